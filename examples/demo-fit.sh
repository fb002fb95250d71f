# demo-fit.sh: the rating tables of both example cohorts (sourced by
# examples/demo.sh with $COHORT and $DEMO; the freezes already exist).
for c in luna deepseek; do
	banner "fit $c: joint Davidson ratings, profile 95% intervals"
	"$COHORT" fit -o "$DEMO/$c/fit.json" "$DEMO/$c/freeze.json"
	"$COHORT" fit --format table "$DEMO/$c/freeze.json"
done
