#!/bin/sh
# demo.sh COHORT: the whole pipeline on the example cohorts: freeze, verify,
# then each stage's fragment (examples/demo-*.sh: fit, ladder, reconcile,
# bundle, panel) with $COHORT and $DEMO, a scratch copy of the examples.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
COHORT=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
DEMO=$ROOT/build/demo
LC_ALL=C
export COHORT DEMO ROOT LC_ALL
rm -rf "$DEMO"
mkdir -p "$DEMO"
# everything examples/ holds, so the README's tour and every man page's
# EXAMPLES run here as they do in examples/
cp -r "$ROOT/examples/." "$DEMO/"
cd "$DEMO"

banner() { printf '\n== %s\n\n' "$*"; }

for c in luna deepseek; do
	banner "freeze $c: blocks and condition states"
	"$COHORT" freeze --spec $c/spec.json --store $c/store -o $c/freeze.json \
		--format table $c/ledger.jsonl
	printf '\nidentity: %s\n' "$("$COHORT" canon --id $c/freeze.json)"
	"$COHORT" verify --store $c/store --format table $c/freeze.json | tail -n 1
done

for stage in fit ladder reconcile bundle plot panel; do
	f=$ROOT/examples/demo-$stage.sh
	if [ -f "$f" ]; then
		cd "$DEMO"
		. "$f"
	fi
done
cd "$DEMO"
banner "demo complete: files in $DEMO"
# the tour runs there with cohort on PATH
printf 'to follow the README tour:\n    cd %s && export PATH="%s:$PATH"\n' "$DEMO" \
	"$(dirname "$COHORT")"
