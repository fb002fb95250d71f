# candidates.sh: how much of `cohort candidates build` is the engine's own
# time (printed, not asserted; the target is at least 0.95).  Sourced by
# bench/run.sh with $COHORT and a scratch folder $BENCH_TMP.
#
# The commands cohort sends are captured once (the engine run through a
# tee), then the same searches are timed two ways on the same positions:
# the whole `cohort candidates build`, and the engine fed those commands
# by bench/ucifeed.c, which only waits for each uciok, readyok and
# bestmove.  The ratio engine alone / cohort is the share of the command's
# wall time spent inside the engine.  On a busy machine wall times move by
# tens of percent from run to run, so the CPU time cohort itself takes
# (perf stat --no-inherit, when perf can count task-clock) is given too:
# cohort works only while the engine waits for it, so its own CPU time is
# what it adds to the wall time, and 1 - own / wall is the share of its
# wall time inside the engine.
SF=$(command -v stockfish 2>/dev/null || echo /usr/games/stockfish)
UNIT=$(dirname "$COHORT")/tests/unit
if [ ! -x "$SF" ]; then
	echo "candidates: no stockfish (sh mk/deps.sh test installs it); skipped"
	return 0
fi
cc -O2 -o ucifeed "$ROOT/bench/ucifeed.c" || return 1
printf '#!/bin/sh\ntee "%s/cmds.txt" | exec "%s"\n' "$BENCH_TMP" "$SF" >tee-engine
chmod +x tee-engine

# measure CMD...: "WALL CPU" seconds, each the least of five runs (CPU
# is user + system of the command and the engine it waited for: the
# machine's other load moves it much less than the wall time)
measure() {
	_bw= _bc=
	for _i in 1 2 3 4 5; do
		/usr/bin/time -f '%e %U %S' -o "$BENCH_TMP/time.out" "$@" >/dev/null 2>"$BENCH_TMP/m.err" ||
			{ cat "$BENCH_TMP/m.err" >&2; return 1; }
		read -r _w _u _s <"$BENCH_TMP/time.out"
		_bw=$(awk -v t="$_w" -v m="$_bw" 'BEGIN { if (m == "" || t < m) m = t; printf "%.3f", m }')
		_bc=$(awk -v t="$_u" -v u="$_s" -v m="$_bc" 'BEGIN { t += u; if (m == "" || t < m) m = t; printf "%.3f", m }')
	done
	echo "$_bw $_bc"
}

# case_ratio LABEL POSITIONS BUILD-OPTIONS...
case_ratio() {
	_label=$1 _pos=$2
	shift 2
	"$COHORT" candidates build --engine ./tee-engine "$@" -o tee.jsonl "$_pos" || return 1
	"$COHORT" candidates build --engine "$SF" "$@" -o sf.jsonl "$_pos" || return 1
	tail -n +2 tee.jsonl >tee.pos && tail -n +2 sf.jsonl >sf.pos
	cmp -s tee.pos sf.pos || echo "  (the captured run gave other lines: the engine is not repeatable here)"
	_searches=$(grep -c '^go ' cmds.txt)
	_m1=$(measure "$COHORT" candidates build --engine "$SF" "$@" -o sf.jsonl "$_pos") || return 1
	_m2=$(measure ./ucifeed "$SF" cmds.txt) || return 1
	_own=$(own_cpu "$COHORT" candidates build --engine "$SF" "$@" -o sf.jsonl "$_pos")
	set -- $_m1 $_m2
	printf '  %-44s %s searches: cohort %s s wall %s s cpu, engine alone %s s wall %s s cpu\n' \
		"$_label" "$_searches" "$1" "$2" "$3" "$4"
	bench_ratio "$_label: inside the engine, wall" "$3" "$1" ">= 0.95"
	bench_ratio "$_label: inside the engine, cpu" "$4" "$2" ">= 0.95"
	if [ -n "$_own" ]; then
		awk -v o="$_own" -v w="$1" -v l="$_label" 'BEGIN {
			printf "  %-44s %8.3f s own cpu of %s s wall\n", l ": cohort itself", o, w
			printf "  %-44s %8.3f   (target >= 0.95)\n", l ": inside the engine, 1 - own/wall", 1 - o / w }'
	else
		echo "  $_label: cohort's own cpu: perf stat cannot count task-clock here"
	fi
}

# own_cpu CMD...: the least CPU seconds of three runs that CMD's own
# process took, without the engine (empty when perf cannot say)
own_cpu() {
	command -v perf >/dev/null 2>&1 || return 0
	_bo=
	for _i in 1 2 3; do
		_o=$(perf stat --no-inherit -x, -e task-clock "$@" 2>&1 >/dev/null |
			awk -F, '$3 == "task-clock" && $1 + 0 > 0 { printf "%.4f", $1 / 1000 }')
		[ -n "$_o" ] || return 0
		_bo=$(awk -v t="$_o" -v m="$_bo" 'BEGIN { if (m == "" || t < m) m = t; printf "%.4f", m }')
	done
	echo "$_bo"
}

n=$(bench_count 20)
"$UNIT/positions_walk" "$n" 11 >walk.jsonl || return 1
case_ratio "$n positions, 100000 nodes, MultiPV 10" walk.jsonl --nodes 100000 --multipv 10 || return 1
m=$(bench_count 4)
"$UNIT/positions_walk" "$m" 12 >walk-evals.jsonl || return 1
case_ratio "$m positions, 20000 nodes, MultiPV 5, --evals" walk-evals.jsonl --nodes 20000 --multipv 5 --evals || return 1
