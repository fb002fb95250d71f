# fit.sh: cohort fit timings (printed, not asserted).  Sourced by
# bench/run.sh with $COHORT and a scratch folder $BENCH_TMP.  Each fit
# includes every profile interval and the three sensitivity refits.
FB=$BENCH_TMP/fit
mkdir -p "$FB"
FROOT=$(cd "$(dirname "$COHORT")/../.." && pwd)
FBENCH=$(dirname "$COHORT")/tests/unit/fit_bench

# cmd_ms FILE RUNS: mean wall milliseconds per whole `cohort fit` command
# (start-up, parse, fit, canonical write to standard output).
cmd_ms() {
	_t0=$(date +%s%N)
	_i=0
	while [ $_i -lt "$2" ]; do
		"$COHORT" fit "$1" >"$FB/out.json" || return 1
		_i=$((_i + 1))
	done
	_t1=$(date +%s%N)
	awk -v a="$_t0" -v b="$_t1" -v n="$2" 'BEGIN { printf "%.2f", (b - a) / 1e6 / n }'
}

# lib_ms FILE RUNS: "wall cpu" milliseconds per fit in process.
lib_ms() { "$FBENCH" "$1" "$2"; }

_t0=$(date +%s%N)
for _i in 1 2 3 4 5 6 7 8 9 10; do "$COHORT" --version >/dev/null; done
_t1=$(date +%s%N)
echo "fit: program start-up alone (cohort --version): $(awk -v a="$_t0" -v b="$_t1" 'BEGIN { printf "%.2f", (b - a) / 1e7 }') ms"
set -- $(lib_ms "$FROOT/examples/luna-blocks.json" 200)
echo "fit: Luna, 5 conditions, 22 blocks: $1 ms wall, $2 ms cpu per fit in process;" \
	"$(cmd_ms "$FROOT/examples/luna-blocks.json" 20) ms per command (target < 10 ms)"
prev=
for k in 10 100 1000 10000; do
	awk -v conds=$k -v blocks=20 -f "$FROOT/bench/fit-gen.awk" >"$FB/c$k.json"
	runs=$((k >= 1000 ? 2 : 10))
	[ $k = 10000 ] && runs=1
	set -- $(lib_ms "$FB/c$k.json" $runs)
	ratio=
	[ -n "$prev" ] && ratio=$(awk -v a="$2" -v b="$prev" 'BEGIN { printf ", cpu x%.1f for x10 conditions", a / b }')
	echo "fit: $k conditions, $((k * 20)) blocks: $1 ms wall, $2 ms cpu per fit$ratio;" \
		"$(cmd_ms "$FB/c$k.json" 1) ms per command"
	prev=$2
done
echo "fit: target for 1,000 conditions and 20,000 blocks: < 2000 ms"
awk -v conds=1000 -v blocks=20 -v colors=both -f "$FROOT/bench/fit-gen.awk" >"$FB/w1000.json"
_t0=$(date +%s%N)
"$COHORT" fit --black-penalty estimate -o "$FB/out.json" "$FB/w1000.json"
_t1=$(date +%s%N)
echo "fit: 1000 conditions, 20000 blocks, both colors, --black-penalty estimate:" \
	"$(awk -v a="$_t0" -v b="$_t1" 'BEGIN { printf "%.2f", (b - a) / 1e6 }') ms per command"
