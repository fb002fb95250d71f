#!/bin/sh
# run-one.sh TEST: one tests/*.test.sh in its own folder under $TMPROOT,
# its output into $TMPROOT/NAME.out, then NAME.done (for tests/run.sh,
# which runs several at once; ROOT, BUILD, COHORT and TMPROOT come from it).
set -u
name=$(basename "$1" .test.sh)
TMP=$TMPROOT/$name
mkdir -p "$TMP"
export TMP
(cd "$TMP" && . "$ROOT/tests/lib.sh" && . "$1") >"$TMPROOT/$name.out" 2>&1
: >"$TMPROOT/$name.done"
