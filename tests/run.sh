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
for t in "$ROOT"/tests/*.test.sh; do
	TMP=$TMPROOT/$(basename "$t" .test.sh)
	mkdir -p "$TMP"
	export TMP
	(cd "$TMP" && . "$ROOT/tests/lib.sh" && . "$t") 2>&1 | sed "s|^|$(basename "$t" .test.sh): |" | tee -a "$log" | grep -v ': ok ' || true
done
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
