# demo-plot.sh: the figures of the example cohorts (sourced by
# examples/demo.sh with $COHORT and $DEMO, after the fits exist).
banner "plot: the Luna candidate curve, the DeepSeek ladder, Luna's colour sensitivity"
[ -f "$DEMO/luna/fit.json" ] || "$COHORT" fit -o "$DEMO/luna/fit.json" "$DEMO/luna/freeze.json"
"$COHORT" plot curve -o "$DEMO/luna-curve.svg" "$DEMO/luna/fit.json"
"$COHORT" plot ladder -o "$DEMO/deepseek-ladder.svg" "$DEMO/deepseek/freeze.json"
"$COHORT" plot sensitivity -o "$DEMO/luna-sensitivity.svg" "$DEMO/luna/fit.json"
for f in luna-curve deepseek-ladder luna-sensitivity; do
	echo "wrote $DEMO/$f.svg"
done
