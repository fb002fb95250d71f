#!/bin/sh
# run.sh BUILD: run every tests/*.test.sh (golden.test.sh runs every
# golden/ case) against BUILD/cohort; print "N passed, N failed" and exit
# non-zero on a failure.
set -u
LC_ALL=C
TZ=UTC
export LC_ALL TZ
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$ROOT/${1:-build/release}" && pwd)
COHORT=$BUILD/cohort
export ROOT BUILD COHORT
TMPROOT=$(mktemp -d)
trap 'rm -rf "$TMPROOT"' EXIT INT TERM
log=$TMPROOT/log
: >"$log"
# Files run TEST_JOBS at a time (default: one per processor), each in a
# folder of its own; the slowest are started first, so that the last to
# start are short.  Their outputs are printed in the files' order as each
# is done.
export TMPROOT
# TESTS="fit bound" runs only those files (names without .test.sh); the
# whole suite is what make test runs.
selected() {
	if [ -z "${TESTS:-}" ]; then cat; return; fi
	while read -r _t; do
		case " $TESTS " in *" $(basename "$_t" .test.sh) "*) echo "$_t" ;; esac
	done
}
jobs=${TEST_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
slow="readme freeze engine-panel paired simfp canon bundle browser attacks simulate"
{
	for n in $slow; do [ -f "$ROOT/tests/$n.test.sh" ] && echo "$ROOT/tests/$n.test.sh"; done
	for t in "$ROOT"/tests/*.test.sh; do
		case " $slow " in *" $(basename "$t" .test.sh) "*) ;; *) echo "$t" ;; esac
	done
} | selected | xargs -P "$jobs" -n 1 sh "$ROOT/tests/run-one.sh" &
runner=$!
for t in $(ls "$ROOT"/tests/*.test.sh | selected); do
	name=$(basename "$t" .test.sh)
	while [ ! -e "$TMPROOT/$name.done" ] && kill -0 "$runner" 2>/dev/null; do sleep 1; done
	[ -e "$TMPROOT/$name.done" ] || echo "$name: not ok the test file did not finish" | tee -a "$log"
	[ -e "$TMPROOT/$name.out" ] && sed "s|^|$name: |" "$TMPROOT/$name.out" | tee -a "$log" | grep -v ': ok ' || true
done
wait "$runner"
pass=$(grep -c ': ok ' "$log")
fail=$(grep -c ': not ok ' "$log")
# The failures again at the end, where a log cut to its last lines keeps them.
if [ "$fail" != 0 ]; then
	echo "suite $(basename "$BUILD"): the failures again:"
	grep ': not ok ' "$log" | cut -c 1-300 | head -n 40
fi
echo "suite $(basename "$BUILD"): $(grep -c '' "$log") lines"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
