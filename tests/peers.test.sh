# peers.test.sh: every number of docs/peers.md's three tables, again, without
# Ordo: cohort's columns from cohort fit on the same blocks; Ordo's -M
# column and the logistic with every anchor held from tests/ordo-ml.py, an
# independent fit of Ordo's model to the PGN (the one cohort exported for
# Luna, TCEC's own for the panel).
PY=/usr/bin/python3
DOC=$ROOT/docs/peers.md
PANEL=$ROOT/tests/data/pgn/tcec/TCEC_Season_2_-_Division_A.pgn

# table.py DOC NAME: the rows of the table after <!-- peers:NAME -->, one a
# line, cells split by tabs
cat >table.py <<'PYEOF'
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
i = lines.index("<!-- peers:%s -->" % sys.argv[2]) + 3
while i < len(lines) and lines[i].startswith("|"):
    print("\t".join(c.strip() for c in lines[i].strip("|").split("|")))
    i += 1
PYEOF
# fitrows.py: cohort.fit/1 as "condition<TAB>games<TAB>W-D-L<TAB>rating<TAB>lo .. hi"
cat >fitrows.py <<'PYEOF'
import json, sys
for c in json.load(sys.stdin)["conditions"]:
    lo, hi = c["interval"]
    print("%s\t%d\t%d-%d-%d\t%.0f\t%.0f .. %.0f" % (c["condition"], c["games"], c["w"],
          c["d"], c["l"], c["rating"], lo, hi))
PYEOF
# compare NAME WANT GOT: the same lines
compare() {
	if cmp -s "$2" "$3"; then ok "$1"; else notok "$1" "$(diff "$2" "$3" | head -6 | tr '\n' ' ')"; fi
}

# ---- Luna ----
$PY table.py "$DOC" luna >luna.rows
if [ "$(grep -c '' luna.rows)" = 5 ]; then ok "peers: the Luna table has its five conditions"; else
	notok "peers: the Luna table has its five conditions" "$(grep -c '' luna.rows) rows"; fi
"$COHORT" fit "$ROOT/examples/luna-blocks.json" | $PY fitrows.py >got.txt
cut -f1-5 luna.rows >want.txt
compare "peers luna: cohort's games, W-D-L, ratings and intervals as cohort fit gives them" want.txt got.txt
"$COHORT" export blocks --format ordo --anchors anchors.csv -o luna.pgn "$ROOT/examples/luna-blocks.json"
$PY "$ROOT/tests/ordo-ml.py" luna.pgn 35 --anchors anchors.csv >ml.txt
$PY "$ROOT/tests/ordo-ml.py" luna.pgn 35 --anchors anchors.csv --keep >keep.txt
cut -f1,7 luna.rows | sort >want.txt
sort ml.txt >got.txt
compare "peers luna: Ordo -M's ratings, fitted again from the exported PGN (2420 purged)" want.txt got.txt
cut -f1,6 luna.rows | sort >want.txt
sort keep.txt >got.txt
compare "peers luna: the logistic with every anchor held" want.txt got.txt
# the one difference the purge makes: top2 alone played the all-lost anchor
if grep -q '^anchor-2420' ml.txt || ! diff ml.txt keep.txt | grep -q top2; then
	notok "peers luna: the purge moves top2 alone" "$(diff ml.txt keep.txt | tr '\n' ' ')"
elif [ "$(diff ml.txt keep.txt | grep -c '^[<>]')" = 2 ]; then ok "peers luna: the purge moves top2 alone"; else
	notok "peers luna: the purge moves top2 alone" "$(diff ml.txt keep.txt | tr '\n' ' ')"; fi

# ---- the engine panel ----
$PY table.py "$DOC" panel >panel.rows
if [ "$(grep -c '' panel.rows)" = 6 ]; then ok "peers: the panel table has its six engines"; else
	notok "peers: the panel table has its six engines" "$(grep -c '' panel.rows) rows"; fi
$PY "$ROOT/tests/ordo-ml.py" "$PANEL" 0 --mean 3000 | sort >got.txt
cut -f1,4 panel.rows | sort >want.txt
compare "peers panel: Ordo -M's ratings of the six, fitted again from TCEC's PGN" want.txt got.txt
# the blocks: each engine a condition, its opponents held at the table's
# Ordo ratings, a block per opponent and colour (tallied from the PGN's
# tags here, not by cohort)
cat >panel.py <<'PYEOF'
import json, re, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[2], encoding="utf-8")]
ratings = {r[0]: float(r[3]) for r in rows}
games, tags = [], {}
for line in open(sys.argv[1], encoding="utf-8"):
    m = re.match(r'\[(\w+) "(.*)"\]', line)
    if m:
        tags[m[1]] = m[2]
        if m[1] == "Result":
            games.append(dict(tags))
            tags = {}
blocks = []
for me in ratings:
    cells = {}
    for g in games:
        if me not in (g["White"], g["Black"]):
            continue
        col = "white" if g["White"] == me else "black"
        opp = g["Black"] if col == "white" else g["White"]
        r = g["Result"]
        res = "d" if r == "1/2-1/2" else ("w" if (r == "1-0") == (col == "white") else "l")
        cells.setdefault((opp, col), {"w": 0, "d": 0, "l": 0})[res] += 1
    for i, ((opp, col), c) in enumerate(sorted(cells.items())):
        blocks.append(dict(condition=me, block=i + 1, anchor=ratings[opp], color=col, **c))
print(json.dumps({"kind": "cohort.blocks/1", "black_penalty": 0,
                  "conditions": list(ratings), "blocks": blocks}))
PYEOF
$PY panel.py "$PANEL" panel.rows >panel.json
"$COHORT" fit panel.json | $PY fitrows.py >got.txt
cut -f1-3,5,6 panel.rows >want.txt
compare "peers panel: cohort's ratings and intervals with the opponents held at Ordo's" want.txt got.txt

# ---- examples/engine-panel, replication r1: families never pooled ----
$PY table.py "$DOC" engine-panel >ep.rows
if [ "$(grep -c '' ep.rows)" = 15 ]; then ok "peers: the engine-panel table has its fifteen cells"; else
	notok "peers: the engine-panel table has its fifteen cells" "$(grep -c '' ep.rows) rows"; fi
EP=$ROOT/examples/engine-panel
gzip -dc "$EP/ledger-r1.jsonl.gz" >ep-ledger.jsonl
"$COHORT" freeze --spec "$EP/spec-r1.json" --store ep-store -o ep-freeze.json ep-ledger.jsonl
"$COHORT" fit ep-freeze.json | $PY -c 'import json, sys
for c in json.load(sys.stdin)["conditions"]:
    lo, hi = c["interval"]
    print("%s/%s\t%d\t%d-%d-%d\t%.0f\t%.0f .. %.0f" % (c["family"], c["condition"], c["games"],
          c["w"], c["d"], c["l"], c["rating"], lo, hi))' >got.txt
cut -f1-5 ep.rows >want.txt
compare "peers engine panel: cohort's games, W-D-L, ratings and intervals as cohort fit gives them" want.txt got.txt
"$COHORT" export blocks --format ordo --anchors ep-anchors.csv -o ep.pgn ep-freeze.json
$PY "$ROOT/tests/ordo-ml.py" ep.pgn 0 --anchors ep-anchors.csv | sort >got.txt
cut -f1,7 ep.rows | sort >want.txt
compare "peers engine panel: Ordo -M's ratings, fitted again from the exported PGN (1550 purged)" want.txt got.txt
$PY "$ROOT/tests/ordo-ml.py" ep.pgn 0 --anchors ep-anchors.csv --keep | sort >got.txt
cut -f1,6 ep.rows | sort >want.txt
compare "peers engine panel: the logistic with every anchor held" want.txt got.txt

# the draw parameters the page quotes
nu() { "$COHORT" fit "$1" | $PY -c 'import json, sys
d = json.load(sys.stdin)["draw"]
print("%.2f (%.2f .. %.2f)" % (d["nu"], d["interval"][0], d["interval"][1]))'; }
for pair in "$ROOT/examples/luna-blocks.json:nu = " "panel.json:nu is " "ep-freeze.json:nu = "; do
	f=${pair%%:*} say=${pair#*:}
	v=$(nu "$f")
	if tr '\n' ' ' <"$DOC" | grep -qF "$say$v"; then ok "peers: the page quotes nu $v for $(basename "$f")"; else
		notok "peers: the page quotes nu for $(basename "$f")" "cohort fit gives $v"; fi
done
