# families.test.sh: families are never pooled.  Two families that share
# condition names keep their own blocks, conditions, ladder states and
# ratings; an overfull block is a protocol deviation.
PY=/usr/bin/python3
cp -r "$ROOT/examples/luna" two
$PY - two/ledger.jsonl two/spec.json <<'P'
import json, sys
ledger, spec = sys.argv[1], sys.argv[2]
recs = [json.loads(l) for l in open(ledger) if l.strip()]
out = []
for r in recs:
    out.append(r)
    if r["condition"] == "top2":
        s = dict(r)
        s["family"] = "sol"
        s["game_id"] = "sol-" + r["game_id"]
        # sol loses where luna won, so pooling would show
        s["result"] = {"win": "loss", "loss": "win", "draw": "draw"}.get(r.get("result"), r.get("result"))
        out.append(s)
open(ledger, "w").write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in out))
d = json.load(open(spec)); d["families"] = ["luna", "sol"]
json.dump(d, open(spec, "w"))
P
"$COHORT" freeze --spec two/spec.json -o two.json two/ledger.jsonl
$PY - two.json <<'P' && ok "freeze: two families, one condition name: blocks apart" || notok "freeze: families apart" "$(head -c 300 two.json)"
import json, sys
d = json.load(open(sys.argv[1]))
top2 = [b for b in d["blocks"] if b["condition"] == "top2"]
luna = [b for b in top2 if b["family"] == "luna"]; sol = [b for b in top2 if b["family"] == "sol"]
assert luna and sol and len(luna) == len(sol), top2
assert all(b["games"] <= 10 for b in top2), top2
assert all(a["w"] == b["l"] and a["l"] == b["w"] for a, b in zip(luna, sol)), top2
conds = [(c["family"], c["condition"]) for c in d["conditions"]]
assert len(conds) == 10 and conds[0] == ("luna", "none") and conds[5] == ("sol", "none"), conds
P
"$COHORT" fit two.json >two.fit.json
$PY - two.fit.json <<'P' && ok "fit: each family rated apart" || notok "fit: families apart" "$(head -c 300 two.fit.json)"
import json, sys
d = json.load(open(sys.argv[1]))
r = {(c["family"], c["condition"]): c for c in d["conditions"]}
assert r[("luna", "top2")]["w"] == r[("sol", "top2")]["l"], r
assert r[("luna", "top2")]["rating"] > r[("sol", "top2")]["rating"], r
assert r[("sol", "none")]["status"] == "no_games", r[("sol", "none")]
P
expect_fail2 "ladder next: a condition of two families needs --family" 'belongs to several families' \
	"$COHORT" ladder next --condition top2 two.json
expect_status "ladder next --family sol" 0 "$COHORT" ladder next --condition top2 --family sol two.json
grep -q '"family":"sol"' "$TMP/out" && ok "ladder next names the family" || notok "ladder next names the family" "$(cat "$TMP/out")"

# an overfull block: eleven games where block_games is 10
cp -r "$ROOT/examples/luna" over
$PY - over/ledger.jsonl <<'P'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
g = [r for r in recs if r["condition"] == "none"][0]
x = dict(g); x["game_id"] = g["game_id"] + "-extra"
recs.append(x)
open(sys.argv[1], "w").write("".join(json.dumps(r) + "\n" for r in recs))
P
"$COHORT" freeze --spec over/spec.json -o over.json over/ledger.jsonl
grep -q 'more games than the ladder' over.json && ok "an overfull block is a deviation" || notok "an overfull block is a deviation" "$(grep -o '"deviations":[^]]*]' over.json | head -3)"
