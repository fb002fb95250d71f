# ladder.sh: `cohort ladder simulate` throughput: 3 starts x 23 true ratings
# x 2,000 replicates (138,000 ladders, each fitted three ways with the
# joint profile interval) with 1 job and 2 jobs: seconds, ladders per second
# and the speed-up; then the time to emit a simulated ledger.  Sourced by
# bench/run.sh with $COHORT and $BENCH_TMP; prints, asserts nothing.
_lspec=$BENCH_TMP/ladder-spec.json
cat >"$_lspec" <<'JSON'
{"kind": "cohort.spec/1", "name": "bench", "as_of": "2026-07-20T00:00:00Z",
 "families": ["bench"], "conditions": ["c"], "color": "black", "black_penalty": 35,
 "ladder": {"block_games": 10, "start": 1320, "max": 3190,
            "promote": [[0.90, 400], [0.80, 300], [0.65, 200]],
            "stop_below": 0.35, "max_repeats": 1}}
JSON
_lnow() { date +%s.%N; }
echo "ladder simulate: 3 starts x 23 truths x 2000 reps = 138000 ladders"
_lt1=0
for _j in 1 2; do
	_t0=$(_lnow)
	"$COHORT" ladder simulate --spec "$_lspec" --truth 1000:3200:100 --starts 1320,1720,2120 \
		--reps 2000 --seed 1 --jobs $_j -o "$BENCH_TMP/ladder-audit-$_j.json"
	_t1=$(_lnow)
	awk -v a="$_t0" -v b="$_t1" -v j=$_j -v one="$_lt1" 'BEGIN {
		s = b - a
		printf "  jobs %d: %.2f s, %.0f ladders/s", j, s, 138000 / s
		if (one > 0) printf ", speed-up %.2fx", one / s
		printf "\n" }'
	[ $_j = 1 ] && _lt1=$(awk -v a="$_t0" -v b="$_t1" 'BEGIN { print b - a }')
done
cmp -s "$BENCH_TMP/ladder-audit-1.json" "$BENCH_TMP/ladder-audit-2.json" &&
	echo "  same bytes with 1 and 2 jobs" || echo "  DIFFERENT bytes with 1 and 2 jobs"
_t0=$(_lnow)
"$COHORT" ladder simulate --spec "$_lspec" --truth 1000:3200:100 --starts 1320 --reps 40 --seed 2 \
	--emit-ledger "$BENCH_TMP/ladder-sim.jsonl" --emit-spec "$BENCH_TMP/ladder-sim-spec.json" -o /dev/null
_t1=$(_lnow)
awk -v a="$_t0" -v b="$_t1" -v n="$(wc -l <"$BENCH_TMP/ladder-sim.jsonl")" \
	'BEGIN { printf "emit-ledger: %d games of 920 simulated ladders in %.2f s\n", n, b - a }'
