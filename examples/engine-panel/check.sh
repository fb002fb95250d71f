#!/bin/sh
# check.sh: is the engine panel example consistent?  Needs no engine: cc,
# python3 and cohort built from this tree.
#
#   [COHORT=PATH] sh examples/engine-panel/check.sh
#
# (COHORT: another build of cohort than build/release's.)
#
# For each replication: freeze the ledger, fit it, ask ladder next for every
# (family, condition) and require "terminal", replay every game, reconcile
# the games against the request log and the billing export, freeze the
# decisions with the manifest and derive the paired endpoints; then check
# the manifest and the decision logs (check.py).  Exit 0 only when all of
# it holds.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
COHORT=${COHORT:-$ROOT/build/release/cohort}
WORK=$ROOT/build/engine-panel/check
PANEL=$ROOT/build/engine-panel/panel
LC_ALL=C
export LC_ALL
FAMILIES="stockfish fairy-stockfish glaurung"
CONDITIONS="none top10 top5 top3 top2"

[ -x "$COHORT" ] || make -C "$ROOT" -s build
mkdir -p "$WORK"
if [ ! -x "$PANEL" ] || [ "$PANEL" -ot "$HERE/panel.c" ]; then
	cc -std=c11 -D_DEFAULT_SOURCE -O2 -Wall -Wextra -Wno-unused-parameter -I"$ROOT" \
		$(pkg-config --cflags libcrypto libcjson) -o "$PANEL" "$HERE/panel.c" \
		"$ROOT"/build/release/common/*.o "$ROOT"/build/release/json/*.o \
		"$ROOT"/build/release/chess/*.o "$ROOT"/build/release/engine/*.o \
		"$ROOT"/build/release/protocol/*.o \
		$(pkg-config --libs libcrypto libcjson sqlite3 gsl) -lpthread -lm
fi
# the data, the large files unpacked (generate.sh keeps them gzipped)
DATA=$WORK/data
rm -rf "$DATA"
mkdir -p "$DATA"
for f in "$HERE"/*.jsonl "$HERE"/*.json "$HERE"/*.csv; do
	[ -f "$f" ] && cp "$f" "$DATA/"
done
for f in "$HERE"/*.gz; do
	[ -f "$f" ] && gzip -dc "$f" >"$DATA/$(basename "$f" .gz)"
done
cd "$DATA"
fail=0
banner() { printf '\n== %s\n\n' "$*"; }

for r in r1 r2; do
	d=$WORK/$r
	rm -rf "$d"
	mkdir -p "$d"
	banner "$r: freeze"
	"$COHORT" freeze --spec spec-$r.json --store "$d/store" -o "$d/freeze.json" \
		--format table ledger-$r.jsonl
	"$COHORT" verify --store "$d/store" "$d/freeze.json" >/dev/null ||
		{ echo "$r: verify failed"; fail=1; }
	banner "$r: fit"
	"$COHORT" fit --format table "$d/freeze.json"
	"$COHORT" fit -o "$d/fit.json" "$d/freeze.json"
	banner "$r: ladder next, every family and condition"
	for f in $FAMILIES; do
		for c in $CONDITIONS; do
			"$COHORT" ladder next --family $f --condition $c -o "$d/next.json" "$d/freeze.json"
			st=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["state"], d["rule"], d["blocks"], d["games"])' "$d/next.json")
			printf '%-16s %-6s %s\n' $f $c "$st"
			case $st in terminal*) ;; *) echo "$r $f $c: not terminal"; fail=1 ;; esac
		done
	done
	banner "$r: every game replayed"
	"$PANEL" replay ledger-$r.jsonl || fail=1
	banner "$r: reconcile"
	# What reconcile must find, request by request: it counts a request
	# with game_id null (a decision's) as request_without_game, one with
	# status error as failed_request and an attempt above 1 as retry
	# (glaurung's searches that ended without a move, asked again).  The
	# games are reconciled against their own requests and billing rows,
	# then the whole files; each time the findings must be exactly those.
	grep -v '"game_id":null' requests-$r.jsonl >"$d/game-requests.jsonl"
	python3 "$HERE/check.py" --billing-subset requests-$r.jsonl billing-$r.csv \
		"$d/game-billing.csv"
	for part in games all; do
		if [ $part = games ]; then
			q=$d/game-requests.jsonl b=$d/game-billing.csv
			"$COHORT" reconcile --freeze "$d/freeze.json" --ledger ledger-$r.jsonl \
				--requests "$q" --billing "$b" --format table || true
		else
			q=requests-$r.jsonl b=billing-$r.csv
		fi
		rc=0
		"$COHORT" reconcile --freeze "$d/freeze.json" --ledger ledger-$r.jsonl \
			--requests "$q" --billing "$b" -o "$d/reconcile-$part.json" || rc=$?
		python3 "$HERE/check.py" --reconcile "$d/reconcile-$part.json" "$q" $rc $part || fail=1
	done
	banner "$r: decisions frozen with the games, and paired"
	"$COHORT" freeze --spec spec-$r.json --candidates candidates.jsonl \
		--decisions decisions-$r.jsonl --store "$d/store" -o "$d/freeze-decisions.json" \
		ledger-$r.jsonl
	python3 - "$d/freeze-decisions.json" decisions-$r.jsonl <<'EOF' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))["decisions"]
n = sum(1 for line in open(sys.argv[2]) if line.strip())
ok = not d["excluded"] and d["totals"]["decisions"] == n and len(d["included"]) == n
print("freeze --decisions: %d included, %d excluded, of %d: %s" % (
    len(d["included"]), len(d["excluded"]), n, "all included" if ok else "NOT ALL"))
sys.exit(0 if ok else 1)
EOF
	"$COHORT" paired --format table -o "$d/paired.txt" "$d/freeze-decisions.json" || fail=1
	grep -E '^family| medium ' "$d/paired.txt" || true
done

banner "candidate manifest"
"$COHORT" candidates verify --format table candidates.jsonl || fail=1
if [ -x /usr/games/stockfish ]; then
	# three positions built again with the engine, compared byte for byte
	"$COHORT" candidates verify --engine /usr/games/stockfish --sample 3 --seed 1 \
		--format table -o "$WORK/verify-engine.txt" candidates.jsonl || fail=1
	tail -n 3 "$WORK/verify-engine.txt" 2>/dev/null || true
fi

banner "decision logs"
"$PANEL" legal candidates.jsonl >"$WORK/legal.jsonl"
python3 "$HERE/check.py" --legal "$WORK/legal.jsonl" candidates.jsonl positions.jsonl \
	prereg.json decisions-r1.jsonl decisions-r2.jsonl requests-r1.jsonl requests-r2.jsonl \
	billing-r1.csv billing-r2.csv ledger-r1.jsonl ledger-r2.jsonl || fail=1

if [ $fail = 0 ]; then
	banner "check: everything holds"
else
	banner "check: FAILED"
fi
exit $fail
