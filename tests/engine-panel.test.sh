# engine-panel.test.sh: the engine panel (examples/engine-panel) as
# evidence: each replication frozen with its games, the candidate manifest
# and its decisions; paired, fit and verify on it; every paired figure
# computed again by tests/paired_check.py; the preregistration's shape and
# dates checked by a reading of its own; and a few positions of the
# manifest rebuilt with the installed stockfish, byte for byte.
PY=/usr/bin/python3
E=$ROOT/examples/engine-panel
SF=$(command -v stockfish 2>/dev/null || echo /usr/games/stockfish)
for r in r1 r2; do
	gzip -dc "$E/ledger-$r.jsonl.gz" >ledger-$r.jsonl
	gzip -dc "$E/decisions-$r.jsonl.gz" >decisions-$r.jsonl
done

# ---- the manifest, without the engine ----
expect_status "engine-panel: candidates verify holds on the manifest" 0 \
	"$COHORT" candidates verify -o cv.json "$E/candidates.jsonl"
MID=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["subject"][0]["id"])' cv.json 2>/dev/null)

# ---- per replication: freeze, paired, fit, verify ----
for r in r1 r2; do
	expect_status "engine-panel $r: freeze --candidates --decisions" 0 \
		"$COHORT" freeze --spec "$E/spec-$r.json" --candidates "$E/candidates.jsonl" \
		--decisions decisions-$r.jsonl --store st-$r -o f-$r.json ledger-$r.jsonl
	check "engine-panel $r: every decision included, none excluded, the manifest by identity" \
		$PY - f-$r.json decisions-$r.jsonl "$MID" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))["decisions"]
n = sum(1 for line in open(sys.argv[2]) if line.strip())
assert not d["excluded"], d["excluded"][:3]
assert len(d["included"]) == n == d["totals"]["decisions"], (len(d["included"]), n)
assert sys.argv[3] in json.dumps(d), "the freeze does not name the manifest " + sys.argv[3]
EOF
	# the prereg's bootstrap and blunder threshold, given explicitly
	expect_status "engine-panel $r: paired" 0 "$COHORT" paired --store st-$r --replicates 2000 \
		--seed 1 --blunder-cp 300 -o p-$r.json f-$r.json
	check "engine-panel $r: every paired figure, as an independent implementation gives it" \
		$PY "$ROOT/tests/paired_check.py" "$E/candidates.jsonl" decisions-$r.jsonl f-$r.json p-$r.json 300
	check "engine-panel $r: the paired document and the decisions validate against their schemas" \
		sh -c '"$1" "$2/tests/validate.py" "$2/schemas/paired.schema.json" "$3" &&
		"$1" "$2/tests/validate.py" "$2/schemas/decision-record.schema.json" "$4"' sh \
		"$PY" "$ROOT" p-$r.json decisions-$r.jsonl
	check "engine-panel $r: paired's options are the prereg's bootstrap" $PY - p-$r.json "$E/prereg.json" <<'EOF'
import json, sys
o = json.load(open(sys.argv[1]))["options"]
p = json.load(open(sys.argv[2]))
assert o["replicates"] == p["bootstrap"]["replicates"] and o["seed"] == p["bootstrap"]["seed"], o
assert o["blunder_cp"] == p["blunder_cp"], o
EOF
	expect_status "engine-panel $r: fit" 0 "$COHORT" fit -o fit-$r.json f-$r.json
	expect_status "engine-panel $r: verify recomputes freeze, paired and fit" 0 \
		"$COHORT" verify --store st-$r f-$r.json p-$r.json fit-$r.json
	"$COHORT" paired --store st-$r --format table -o table-$r.txt f-$r.json 2>/dev/null
	grep -q '^family' table-$r.txt && ok "engine-panel $r: the paired table" ||
		notok "engine-panel $r: the paired table" "$(head -c 300 table-$r.txt)"
done
check "engine-panel: the panel's figures (three families, both replications, every condition)" \
	$PY - p-r1.json p-r2.json <<'EOF'
import json, sys
conds = {"none", "top2", "top3", "top5", "top10", "top5-omit-best", "propose", "engine-selects"}
for f in sys.argv[1:]:
    cells = json.load(open(f))["cells"]
    fams = {c["family"] for c in cells}
    assert fams == {"stockfish", "fairy-stockfish", "glaurung"}, fams
    for fam in fams:
        got = {c["condition"] for c in cells if c["family"] == fam}
        assert got == conds, (fam, got)
    # the negative control of the prereg (p2): no engine looks at the order of searchmoves
    for c in cells:
        cp = c["order"]["change_probability"]
        assert cp is None or cp == 0, (c["family"], c["condition"], c["budget"], cp)
    # omitting the best: nobody can play it
    for c in cells:
        if c["condition"] == "top5-omit-best":
            assert c["recall"]["estimate"] == 0, c
EOF

# ---- the preregistration, read on its own ----
check "engine-panel: prereg.json has the contract's shape, names the manifest, precedes every game and decision" \
	$PY - "$E/prereg.json" "$MID" "$E/positions.jsonl" ledger-r1.jsonl ledger-r2.jsonl \
	decisions-r1.jsonl decisions-r2.jsonl <<'EOF'
import collections, datetime, json, sys
raw = open(sys.argv[1], encoding="utf-8").read()
p = json.loads(raw)
assert raw == json.dumps(p, sort_keys=True, separators=(",", ":"), ensure_ascii=False), "not canonical"
keys = {"kind", "name", "registered_at", "candidates", "widths", "allocation", "exclusions",
        "features", "distance", "bootstrap", "blunder_cp", "predictions"}
assert set(p) == keys, set(p) ^ keys
assert p["kind"] == "cohort.prereg/1" and p["name"] == "engine-panel", p["kind"]
assert p["candidates"] == sys.argv[2], (p["candidates"], sys.argv[2])
assert p["widths"] == [0, 2, 3, 5, 10], p["widths"]
assert set(p["allocation"]) == {"splits", "order_seeds", "budgets"}, p["allocation"]
assert set(p["distance"]) == {"lambda", "population"} and p["distance"]["lambda"] > 0
assert set(p["bootstrap"]) == {"replicates", "unit", "seed"}, p["bootstrap"]
assert p["bootstrap"]["unit"] in ("opening", "position"), p["bootstrap"]
assert isinstance(p["blunder_cp"], int) and p["blunder_cp"] > 0
assert p["exclusions"] and all(isinstance(x, str) for x in p["exclusions"])
assert p["features"] and all(isinstance(x, str) for x in p["features"])
assert len(set(p["features"])) == len(p["features"]), "a feature twice"
assert p["predictions"] and all(isinstance(x, (str, dict)) for x in p["predictions"])
def when(s):
    assert s.endswith("Z"), s
    return datetime.datetime.fromisoformat(s[:-1] + "+00:00")
reg = when(p["registered_at"])
splits = collections.Counter(json.loads(l)["split"] for l in open(sys.argv[3]))
assert dict(splits) == p["allocation"]["splits"], (splits, p["allocation"]["splits"])
n = 0
for f in sys.argv[4:]:
    seeds, budgets = set(), set()
    for line in open(f):
        d = json.loads(line)
        t = when(d.get("started_at") or d["ts"])
        assert t > reg, (d.get("game_id") or d["decision_id"], t, reg)
        n += 1
        if "decision_id" in d:
            budgets.add(d["budget"])
            if d["order_seed"]:
                seeds.add(d["order_seed"])
    if "decisions" in f:
        assert budgets == set(p["allocation"]["budgets"]), budgets
        assert len(seeds) == p["allocation"]["order_seeds"], seeds
assert n > 30000, n
EOF

# ---- the manifest rebuilt with the installed stockfish ----
# The positions with the fewest legal moves (the cheapest to search again:
# MultiPV 10 at 200,000 nodes, then every other move alone), their lines
# exactly as the manifest has them; verify --engine searches them again and
# compares bytes.  A stockfish other than the manifest's (another Debian
# version, another build) cannot give the same bytes: that is reported as a
# finding of the environment and the rebuild skipped, not failed.
want=$($PY -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["engine"]["binary_sha256"])' "$E/candidates.jsonl")
if [ ! -x "$SF" ]; then
	echo "skip engine-panel: candidates verify --engine: no stockfish installed (the manifest's is Debian stockfish 15.1-4, sha256 $want)"
elif [ "$(sha256sum "$SF" | cut -c1-64)" != "$want" ]; then
	echo "skip engine-panel: candidates verify --engine: FINDING: the installed stockfish ($SF, Debian $(dpkg-query -W -f '${Version}' stockfish 2>/dev/null || echo '?'), sha256 $(sha256sum "$SF" | cut -c1-64)) is not the manifest's (Debian stockfish 15.1-4, sha256 $want): its analysis cannot be compared byte for byte"
else
	$PY - "$E/candidates.jsonl" few.jsonl 3 <<'EOF'
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines(keepends=True)
def moves(l):
    d = json.loads(l)
    return len(d["candidates"]) + len(d.get("evals", {}))
few = sorted(range(1, len(lines)), key=lambda i: (moves(lines[i]), i))[:int(sys.argv[3])]
open(sys.argv[2], "w", encoding="utf-8").write(lines[0] + "".join(lines[i] for i in sorted(few)))
EOF
	expect_status "engine-panel: three positions of the manifest rebuilt by the installed stockfish, the same bytes" 0 \
		"$COHORT" candidates verify --engine "$SF" -o cv-engine.json few.jsonl
	grep -q '"ok":false' cv-engine.json && notok "engine-panel: the rebuild's checks all hold" "$(head -c 400 cv-engine.json)" ||
		ok "engine-panel: the rebuild's checks all hold"
	# the same comparison can fail: one centipawn off in the first of them
	$PY - few.jsonl off.jsonl <<'EOF'
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
d = json.loads(lines[1])
c = next(c for c in d["candidates"] if "cp" in c)
c["cp"] += 1
out = [lines[0], json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False)]
open(sys.argv[2], "w", encoding="utf-8").write("\n".join(out) + "\n")
EOF
	expect_status "engine-panel: a manifest line one centipawn off is a finding of the rebuild" 1 \
		"$COHORT" candidates verify --engine "$SF" -o cv-off.json off.jsonl
	grep -q '"check":"analysis","detail":"[^"]*","ok":false' cv-off.json &&
		ok "engine-panel: the finding is the analysis's" ||
		notok "engine-panel: the finding is the analysis's" "$(head -c 400 cv-off.json)"
fi
