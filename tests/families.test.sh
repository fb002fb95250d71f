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

# reconcile: two families sharing both condition names.  sol's games,
# requests and billing rows are fam's with other ids and three times the
# tokens; one planted retry in sol's top2.  Every cell's sums, computed
# here from the inputs, and each finding's cell must be the family's own.
mkdir -p rec
D=$ROOT/tests/data/reconcile
$PY - "$D" rec <<'P'
import csv, io, json, sys
src, out = sys.argv[1], sys.argv[2]
def lines(p): return [json.loads(l) for l in open(p) if l.strip()]
spec = json.load(open(src + "/spec.json")); spec["families"] = ["fam", "sol"]
json.dump(spec, open(out + "/spec.json", "w"))
def sol(x):
    y = json.loads(json.dumps(x))
    if "tokens" in y: y["tokens"] = {k: 3 * v for k, v in y["tokens"].items()}
    y["model"] = {"requested": "sol-1", "returned": "sol-1"}
    return y
games = []
for g in lines(src + "/ledger.jsonl"):
    s = sol(g); s["family"] = "sol"; s["game_id"] = "sol-" + g["game_id"]
    s["requests"] = ["sol-" + r for r in g.get("requests", [])]
    games += [g, s]
open(out + "/ledger.jsonl", "w").write("".join(json.dumps(g) + "\n" for g in games))
reqs = []
for q in lines(src + "/requests.jsonl"):
    s = sol(q); s["request_id"] = "sol-" + q["request_id"]; s["game_id"] = "sol-" + q["game_id"]
    if s["request_id"] == "sol-r4": s["attempt"] = 2
    reqs += [q, s]
open(out + "/requests.jsonl", "w").write("".join(json.dumps(q) + "\n" for q in reqs))
rows = list(csv.reader(open(src + "/billing.csv")))
w = csv.writer(open(out + "/billing.csv", "w", newline=""), lineterminator="\n")
w.writerow(rows[0])
for r in rows[1:]:
    w.writerow(r)
    w.writerow(["sol-" + r[0], r[1], "sol-1"] + [str(3 * int(v)) for v in r[3:7]] + [r[7]])
P
"$COHORT" freeze --spec rec/spec.json -o rec/freeze.json rec/ledger.jsonl
"$COHORT" reconcile --freeze rec/freeze.json --ledger rec/ledger.jsonl --requests rec/requests.jsonl \
	--billing rec/billing.csv -o rec/report.json
rc=$?
[ $rc = 1 ] && ok "reconcile: two families, the planted retry is a finding" || notok "reconcile: two families" "exit $rc"
$PY - rec <<'P' && ok "reconcile: every (family, condition) cell summed apart, findings in their cell" ||
import json, sys
d = sys.argv[1]
rep = json.load(open(d + "/report.json"))
fr = json.load(open(d + "/freeze.json"))
led = {g["game_id"]: g for g in map(json.loads, open(d + "/ledger.jsonl"))}
cells = [(c["family"], c["condition"]) for c in rep["conditions"]]
assert cells == [("fam", "none"), ("fam", "top2"), ("sol", "none"), ("sol", "top2")], cells
for c in rep["conditions"]:
    mine = [g for g in fr["games"] if (g["family"], g["condition"]) == (c["family"], c["condition"])]
    assert c["clean_games"] == len(mine), (c, mine)
    for k, res in (("w", "win"), ("d", "draw"), ("l", "loss")):
        assert c[k] == sum(g["result"] == res for g in mine), (c, k)
    for t in ("input", "output", "reasoning", "cached"):
        want = sum(led[g["game_id"]]["tokens"][t] for g in mine)
        assert c["tokens"]["recorded"][t] == want, (c["family"], c["condition"], t, want)
    retries = sum(f["kind"] == "retry" and (f["family"], f["condition"]) == (c["family"], c["condition"])
                  for f in rep["findings"])
    assert c["findings"]["retry"] == retries == (1 if (c["family"], c["condition"]) == ("sol", "top2") else 0), c
assert [f["family"] for f in rep["findings"] if f["kind"] == "retry"] == ["sol"], rep["findings"]
assert rep["totals"]["clean_games"] == len(fr["games"])
P
	notok "reconcile: cells apart" "$(head -c 400 rec/report.json)"
"$COHORT" reconcile --freeze rec/freeze.json --ledger rec/ledger.jsonl --requests rec/requests.jsonl \
	--billing rec/billing.csv --format table >rec/table.txt
cut -d' ' -f1 rec/table.txt | sed -n '2,6p' | tr '\n' ' ' >rec/labels
[ "$(cat rec/labels)" = "fam/none fam/top2 sol/none sol/top2 total " ] &&
	ok "reconcile table: one row a family and condition" || notok "reconcile table: one row a family and condition" "$(cat rec/table.txt)"
