# demo-plot.sh: the figures of the example cohorts and the reviewer's page
# (sourced by examples/demo.sh with $COHORT and $DEMO, after the fits and
# the Luna archive exist).
banner "plot: the candidate curves, the ladders, Luna's colour sensitivity"
for c in luna deepseek; do
	[ -f "$DEMO/$c/fit.json" ] || "$COHORT" fit -o "$DEMO/$c/fit.json" "$DEMO/$c/freeze.json"
	"$COHORT" plot curve -o "$DEMO/$c-curve.svg" "$DEMO/$c/fit.json"
	"$COHORT" plot ladder -o "$DEMO/$c-ladder.svg" "$DEMO/$c/freeze.json"
done
"$COHORT" plot curve -o "$DEMO/both-curves.svg" "$DEMO/luna/fit.json" "$DEMO/deepseek/fit.json"
"$COHORT" plot sensitivity -o "$DEMO/luna-sensitivity.svg" "$DEMO/luna/fit.json"
for f in luna-curve deepseek-curve both-curves luna-ladder deepseek-ladder luna-sensitivity; do
	echo "wrote $DEMO/$f.svg"
done

banner "plot paired: the paired toy's recall and regret against width"
rm -rf "$DEMO/paired-toy"
cp -r "$ROOT/examples/paired-toy" "$DEMO/paired-toy"
"$COHORT" freeze --spec "$DEMO/paired-toy/spec.json" --candidates "$DEMO/paired-toy/candidates.jsonl" \
	--decisions "$DEMO/paired-toy/decisions.jsonl" --store "$DEMO/paired-toy/store" \
	-o "$DEMO/paired-toy/freeze.json" >/dev/null
"$COHORT" paired -o "$DEMO/paired-toy/paired.json" "$DEMO/paired-toy/freeze.json"
"$COHORT" plot paired -o "$DEMO/toy-paired.svg" "$DEMO/paired-toy/paired.json"
echo "wrote $DEMO/toy-paired.svg"

banner "report: the reviewer's page of luna.tar, and of the DeepSeek refusal"
if [ -f "$DEMO/luna.tar" ]; then
	"$COHORT" report -o "$DEMO/luna-report.html" "$DEMO/luna.tar" &&
		echo "wrote $DEMO/luna-report.html (the archive verifies)" ||
		echo "wrote $DEMO/luna-report.html (exit $?: see its verification section)"
	echo "the page the archive holds: $(tar -tf "$DEMO/luna.tar" | grep 'data/report.html$')"
fi
"$COHORT" report --spec "$DEMO/deepseek/bundle.json" -o "$DEMO/deepseek-refusal.html" ||
	echo "wrote $DEMO/deepseek-refusal.html (refused: exit 1)"
echo "open them in a browser: file://$DEMO/luna-report.html"
