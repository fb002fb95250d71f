# demo-ladder.sh: the ladder's verdicts on the DeepSeek cohort and a short
# audit of the Luna policy.  Sourced by examples/demo.sh with $COHORT and
# $DEMO (the freezes exist).
banner "ladder next: DeepSeek, what each condition plays next"
for c in none top10 top5 top3 top2; do
	"$COHORT" ladder next --condition $c --format table deepseek/freeze.json
done | awk 'NR == 1 || !/^condition/'
banner "exact bounds: Luna conditions (Clopper-Pearson 95%, draws as half points)"
"$COHORT" bound --format table luna/freeze.json | sed -n '/^condition/,$p'
banner "ladder simulate: Luna policy, 3 starts, 200 ladders per truth"
"$COHORT" ladder simulate --spec luna/spec.json --truth 1100:3100:1000 --starts 1320,1720,2120 \
	--reps 200 --seed 20260720 --format table
