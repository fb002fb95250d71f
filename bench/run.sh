#!/bin/sh
# run.sh: run the benchmarks.  `make bench` calls it as
#   sh bench/run.sh build/release/cohort [NAME...]
# It sources every bench/NAME.sh (all of them, or the NAMEs given) in a
# subshell, in the scratch folder $BENCH_TMP (one per benchmark, removed
# when it ends), with $COHORT (absolute), $ROOT (the source tree) and
# $BENCH_SCALE (default 1: the sizes the benchmarks are specified at; 0.1
# for a quick run).  Benchmarks print times and ratios; they assert nothing.
# Helpers for them:
#   bench_time LABEL CMD...  run CMD, print LABEL with its wall time, CPU
#                            time and peak memory (to the report, even when
#                            CMD's output is redirected); set BENCH_WALL,
#                            BENCH_CPU (seconds) and BENCH_RSS_MB
#   bench_ratio LABEL X Y [TARGET]  print LABEL: X/Y (and the target)
#   bench_count N            N scaled by $BENCH_SCALE, as an integer
set -u
if [ $# -lt 1 ]; then
	echo "usage: sh bench/run.sh COHORT [NAME...]" >&2
	exit 2
fi
case $1 in /*) COHORT=$1 ;; *) COHORT=$(pwd)/$1 ;; esac
shift
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH_SCALE=${BENCH_SCALE:-1}
LC_ALL=C
export COHORT ROOT BENCH_SCALE LC_ALL
if [ ! -x "$COHORT" ]; then
	echo "bench: $COHORT: not an executable" >&2
	exit 2
fi
base=$(mktemp -d "${TMPDIR:-/tmp}/cohort-bench.XXXXXX") || exit 2
trap 'rm -rf "$base"' EXIT
trap 'exit 130' INT TERM

bench_time() {
	_label=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%e %U %S %M' -o "$base/.time" "$@"
		_rc=$?
		# the last line: time prints "Command exited with non-zero status" first
		set -- $(tail -n 1 "$base/.time")
		BENCH_WALL=$1
		BENCH_CPU=$(awk -v u="$2" -v s="$3" 'BEGIN { printf "%.2f", u + s }')
		BENCH_RSS_MB=$(awk -v k="$4" 'BEGIN { printf "%.0f", k / 1024 }')
	else
		_t0=$(date +%s.%N)
		"$@"
		_rc=$?
		BENCH_WALL=$(awk -v a="$_t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
		BENCH_CPU=?
		BENCH_RSS_MB=?
	fi
	# to the report (fd 3), whatever the command's output was redirected to
	{
		printf '  %-44s %8s s wall %8s s cpu %6s MB peak' "$_label" "$BENCH_WALL" \
			"$BENCH_CPU" "$BENCH_RSS_MB"
		[ "$_rc" -ne 0 ] && printf '  (exit status %s)' "$_rc"
		printf '\n'
	} >&3
	return "$_rc"
}

bench_ratio() {
	awk -v l="$1" -v x="$2" -v y="$3" -v t="${4:-}" 'BEGIN {
		if (y + 0 <= 0) { printf "  %-44s      n/a\n", l; exit }
		printf "  %-44s %8.2f%s\n", l, x / y, t == "" ? "" : "   (target " t ")" }'
}

bench_count() {
	awk -v n="$1" -v s="$BENCH_SCALE" 'BEGIN { x = int(n * s + 0.5); printf "%d", x < 1 ? 1 : x }'
}

exec 3>&1
failed=
echo "cohort benchmarks (BENCH_SCALE=$BENCH_SCALE, $(nproc 2>/dev/null || echo ?) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null))"
if [ $# -eq 0 ]; then
	set --
	for f in "$ROOT"/bench/*.sh; do
		name=${f##*/}
		name=${name%.sh}
		[ "$name" = run ] || set -- "$@" "$name"
	done
fi
for name in "$@"; do
	f=$ROOT/bench/$name.sh
	if [ ! -f "$f" ]; then
		echo "bench: no bench/$name.sh" >&2
		failed="$failed $name"
		continue
	fi
	echo "== $name"
	BENCH_TMP=$base/$name
	mkdir -p "$BENCH_TMP"
	(
		export BENCH_TMP
		cd "$BENCH_TMP" || exit 2
		. "$f"
	)
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "   bench/$name.sh ended with status $rc"
		failed="$failed $name"
	fi
	rm -rf "$BENCH_TMP"
done
if [ -n "$failed" ]; then
	echo "bench: did not complete:$failed" >&2
	exit 1
fi
exit 0
