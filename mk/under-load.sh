#!/bin/sh
# under-load.sh: `make test-under-load`: the whole suite (make test) with
# busy loops running beside it, one per LOOPS (default 4), to show that no
# test depends on how busy the machine is: a test that measured wall time
# would fail here and nowhere near a quiet machine.  The loops are ended
# (by their own process ids) when the suite ends or is interrupted.
# Usage: sh mk/under-load.sh [MAKE]; exit status: make test's.
set -u
make=${1:-make}
n=${LOOPS:-4}
loops=
trap 'kill $loops 2>/dev/null' EXIT
trap 'exit 130' INT TERM
i=0
while [ "$i" -lt "$n" ]; do
	sh -c 'while :; do :; done' &
	loops="$loops $!"
	i=$((i + 1))
done
load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?'; }
echo "cohort: make test beside $n busy loops ($(getconf _NPROCESSORS_ONLN 2>/dev/null || echo ?) processors, load $(load))"
start=$(date +%s)
$make test
rc=$?
echo "cohort: make test beside $n busy loops: exit $rc after $(($(date +%s) - start)) s (load $(load))"
exit $rc
