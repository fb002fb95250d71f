# gate.test.sh: cohort gate A to D.  Every gate document is judged again by
# tests/gate_check.py (the rules of cohort-gate(1) written out anew: each
# criterion's verdict and evidence, the inputs, the verdict, C3's held-out
# errors by hand-written least squares), validates against
# schemas/gate.schema.json, and is computed again by verify (A, B) or
# through the derive table (C, D, whose fixtures are hand-made).
PY=/usr/bin/python3
X=$ROOT/examples
GC=$ROOT/tests/gate_check.py
RF=$BUILD/tests/unit/gate_refit
canonize() { for f in "$@"; do "$COHORT" canon "$f" >"$f.c" && mv "$f.c" "$f"; done; }
# judged NAME WANT-EXIT WANT-VERDICT GATE [--prereg P] DOCS...: run the gate,
# check its exit, verdict, schema and the independent judgement
judged() {
	_n=$1 _x=$2 _v=$3
	shift 3
	"$COHORT" gate "$@" -o g.json 2>g.err
	_rc=$?
	[ "$_rc" = "$_x" ] && ok "gate $_n: exit $_x" || notok "gate $_n: exit $_x" "exit $_rc: $(head -c 300 g.err)"
	_got=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' g.json 2>/dev/null)
	[ "$_got" = "$_v" ] && ok "gate $_n: verdict $_v" || notok "gate $_n: verdict $_v" "got $_got"
	shift
	_r=$($PY "$GC" g.json "$@" 2>&1)
	[ "$_r" = ok ] && ok "gate $_n: judged again (python)" || notok "gate $_n: judged again (python)" "$_r"
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/gate.schema.json" g.json >g.val &&
		ok "gate $_n: validates against schemas/gate.schema.json" ||
		notok "gate $_n: validates against schemas/gate.schema.json" "$(head -c 300 g.val)"
}
crit() { # crit ID: the verdict of criterion ID in g.json
	$PY -c 'import json,sys; print([c["verdict"] for c in json.load(open("g.json"))["criteria"] if c["id"] == sys.argv[1]][0])' "$1"
}
expect_crit() { # NAME ID WANT
	_c=$(crit "$2")
	[ "$_c" = "$3" ] && ok "gate $1: $2 $3" || notok "gate $1: $2 $3" "$2 is $_c: $($PY -c 'import json; [print(c["detail"]) for c in json.load(open("g.json"))["criteria"]]')"
}

# ---- gate A: DeepSeek (live: its conditions are active), Luna (terminal)
"$COHORT" freeze --spec "$X/deepseek/spec.json" --store dss -o ds.json "$X/deepseek/ledger.jsonl"
"$COHORT" reconcile --freeze ds.json --ledger "$X/deepseek/ledger.jsonl" --requests "$X/deepseek/requests.jsonl" \
	--billing "$X/deepseek/billing.csv" -o dsrec.json
"$COHORT" fit -o dsfit.json ds.json
judged "A deepseek" 1 fail A ds.json dsrec.json dsfit.json
expect_crit "A deepseek" A1 fail
expect_crit "A deepseek" A3 pass
grep -q "gate A: fail (A1 fail)" g.err && ok "gate A: says which criterion did not pass" || notok "gate A: says which criterion did not pass" "$(cat g.err)"
cp g.json dsgate.json
expect_status "verify computes gate A again from the documents it names" 0 "$COHORT" verify --store dss dsgate.json ds.json dsrec.json dsfit.json
grep -q '"check":"refit","detail":"computed again from its inputs: the same bytes","ok":true,"subject":"dsgate.json"' "$TMP/out" &&
	ok "verify: the gate's refit check" || notok "verify: the gate's refit check" "$(head -c 400 "$TMP/out")"
$PY -c 'import json; d=json.load(open("dsgate.json")); d["verdict"]="pass"; open("tgate.json","w").write(json.dumps(d))'
expect_status "verify: a gate whose verdict was edited is a finding" 1 "$COHORT" verify --store dss tgate.json ds.json dsrec.json dsfit.json
expect_status "verify: a gate without its inputs is a finding" 1 "$COHORT" verify --store dss dsgate.json ds.json dsfit.json
grep -q '"check":"input-present","detail":"input sha256:[0-9a-f]* is not among the files given","ok":false' "$TMP/out" &&
	ok "verify: names the missing input" || notok "verify: names the missing input" "$(head -c 300 "$TMP/out")"
"$COHORT" gate A dsrec.json ds.json dsfit.json >order2.json 2>/dev/null
same_bytes "gate A: the order of the documents does not matter" order2.json dsgate.json

"$COHORT" freeze --spec "$X/luna/spec.json" --store ls -o luna.json "$X/luna/ledger.jsonl"
"$COHORT" fit -o lfit.json luna.json
LID=$("$COHORT" canon --id luna.json)
# Luna has no request log: its reconciliation is made by hand here
rec() { printf '{"kind":"cohort.reconcile/1","inputs":{"freeze":{"id":"%s","name":"luna.json"}},"reconciled":%s,"totals":{"provider_error_games":%s},"findings":[]}' "$LID" "$1" "$2" >"$3"; canonize "$3"; }
rec true 0 lrec.json
judged "A luna" 0 pass A luna.json lrec.json lfit.json
judged "A luna, no reconciliation" 1 insufficient A luna.json lfit.json
expect_crit "A luna, no reconciliation" A2 insufficient
expect_crit "A luna, no reconciliation" A3 insufficient
rec false 0 lrec2.json
judged "A luna, not reconciled" 1 fail A luna.json lrec2.json lfit.json
expect_crit "A luna, not reconciled" A3 fail
rec true 2 lrec3.json
judged "A luna, provider errors not reported" 1 fail A luna.json lrec3.json lfit.json
expect_crit "A luna, provider errors not reported" A2 fail
judged "A fit alone" 1 insufficient A lfit.json
# saturated: Luna's top2 block 1 (10-0-0) beside none and top10
grep -e '"condition":"none"' -e '"condition":"top10"' -e '"game_id":"luna-top2-b01-' "$X/luna/ledger.jsonl" >sat.jsonl
"$COHORT" freeze --spec "$X/luna/spec.json" --store ss -o sat.json sat.jsonl
"$COHORT" fit -o satfit.json sat.json 2>/dev/null
judged "A saturated" 1 fail A sat.json satfit.json
expect_crit "A saturated" A4 pass
$PY -c '
import json; d=json.load(open("satfit.json"))
for c in d["conditions"]:
    if c["w"] == c["games"] and c["games"]: c["rating"] = 1800.0
open("satfit2.json","w").write(json.dumps(d))'
canonize satfit2.json
judged "A saturated with an invented point" 1 fail A sat.json satfit2.json
expect_crit "A saturated with an invented point" A4 fail
expect_fail2 "gate A refuses a paired document" 'not evidence for gate A' "$COHORT" gate A luna.json "$X/paired-toy/prereg.json"
expect_fail2 "gate refuses a letter other than A to D" 'expected the gate A, B, C or D' "$COHORT" gate E luna.json
expect_fail2 "gate refuses the same document twice" 'the same document as' "$COHORT" gate A luna.json luna.json

# ---- gate B: the paired toy
T=$X/paired-toy
# every family the same cells: without alpha's illegal fourth seed and
# beta's two extra unaided decisions
grep -v -e '"order_seed":9' -e '"decision_id":"d0168"' -e '"decision_id":"d0169"' "$T/decisions.jsonl" >clean.jsonl
"$COHORT" freeze --spec "$T/spec.json" --candidates "$T/candidates.jsonl" --decisions "$T/decisions.jsonl" --store ts -o tf.json 2>/dev/null
"$COHORT" freeze --spec "$T/spec.json" --candidates "$T/candidates.jsonl" --decisions clean.jsonl --store tcs -o tcf.json 2>/dev/null
"$COHORT" paired --store ts --replicates 50 -o tp.json tf.json
"$COHORT" paired --store tcs --replicates 50 -o tcp.json tcf.json
CID=$("$COHORT" canon --id "$T/candidates.jsonl" 2>/dev/null || sha256sum "$T/candidates.jsonl" | sed 's/^\([0-9a-f]*\).*/sha256:\1/')
CID=sha256:$(sha256sum "$T/candidates.jsonl" | cut -c1-64)
printf '{"kind":"cohort.verify/1","ok":true,"subject":[{"id":"%s","kind":"cohort.candidates/1","name":"candidates.jsonl"}],"checks":[]}' "$CID" >cv.json
printf '{"kind":"cohort.verify/1","ok":false,"subject":[{"id":"%s","kind":"cohort.candidates/1","name":"candidates.jsonl"}],"checks":[]}' "$CID" >cvbad.json
canonize cv.json cvbad.json
judged "B toy" 1 fail B tp.json cv.json
expect_crit "B toy" B1 pass
expect_crit "B toy" B2 fail
expect_crit "B toy" B3 pass
expect_crit "B toy" B4 pass
judged "B toy, every family the same cells" 0 pass B tcp.json cv.json
expect_crit "B toy, every family the same cells" B2 pass
judged "B toy, no verify report" 1 insufficient B tcp.json
expect_crit "B toy, no verify report" B1 insufficient
judged "B toy, the manifest does not verify" 1 fail B tcp.json cvbad.json
expect_crit "B toy, the manifest does not verify" B1 fail
# a manifest another tool wrote (python's spacing, no SAN, no depth, one
# list out of score order with no bound marked): `candidates verify`
# holds with notes, and B1 passes on that report
$PY - "$T/candidates.jsonl" >foreign.jsonl <<'P'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
for p in lines[1:]:
    for c in p["candidates"]:
        c.pop("san", None); c.pop("depth", None); c.pop("bound", None)
c = lines[1]["candidates"]
if "cp" in c[0] and "cp" in c[1]:
    c[0]["cp"], c[1]["cp"] = min(c[0]["cp"], c[1]["cp"]) - 1, max(c[0]["cp"], c[1]["cp"])
for o in lines:
    print(json.dumps(o))
P
"$COHORT" freeze --spec "$T/spec.json" --candidates foreign.jsonl --decisions clean.jsonl --store tfs -o tff.json 2>/dev/null
"$COHORT" paired --store tfs --replicates 50 -o tfp.json tff.json
expect_status "candidates verify: a foreign manifest holds with notes" 0 "$COHORT" candidates verify -o cvf.json foreign.jsonl
$PY -c 'import json,sys; r=json.load(open("cvf.json")); n=[c for c in r["checks"] if c["detail"].startswith("note: ")]
sys.exit(not (r["ok"] and {c["check"] for c in n} >= {"score-order", "canonical", "san"}))' &&
	ok "candidates verify: the foreign manifest's notes (score order, bytes, SAN)" ||
	notok "candidates verify: the foreign manifest's notes" "$(head -c 600 cvf.json)"
judged "B, a foreign manifest that verifies with notes" 0 pass B tfp.json cvf.json
expect_crit "B, a foreign manifest that verifies with notes" B1 pass
# an effect the data cannot give (no position under two order seeds; one side to move) is a
# gap, never a pass; a paired document without effects, likewise
$PY -c '
import json; d=json.load(open("tcp.json"))
for c in d["cells"]:
    if c["condition"] == "top2":
        c["effects"]["order"]["regret"] = {"estimate": None, "interval": None, "reason": "no position and context shown under two order seeds"}
open("tcn.json","w").write(json.dumps(d))
for c in d["cells"]: c["effects"]["colour"]["recall"]["interval"] = None
open("tcw.json","w").write(json.dumps(d))
for c in d["cells"]: del c["effects"]
open("tce.json","w").write(json.dumps(d))'
canonize tcn.json tcw.json tce.json
judged "B, one order seed" 1 insufficient B tcn.json cv.json
expect_crit "B, one order seed" B3 insufficient
grep -q 'order effect estimated in [0-9]* of [0-9]* top-k cells (no position and context shown under two order seeds)' g.json &&
	ok "gate B3 names the order effect's reason" || notok "gate B3 names the order effect's reason" "$(head -c 600 g.json)"
judged "B, a colour effect without its interval" 1 insufficient B tcw.json cv.json
expect_crit "B, a colour effect without its interval" B3 insufficient
judged "B, a paired document without effects" 1 insufficient B tce.json cv.json
expect_crit "B, a paired document without effects" B3 insufficient
cp tcp.json tcp2.json
$PY -c '
import json; d=json.load(open("tcp2.json"))
for c in d["cells"]:
    if c["condition"] == "propose": c["coverage"] = None
open("tcp3.json","w").write(json.dumps(d))'
canonize tcp3.json
judged "B without coverage" 1 fail B tcp3.json cv.json
expect_crit "B without coverage" B4 fail
cp "$T/spec.json" spec.json
"$COHORT" gate B -o bgate.json tcp.json cv.json 2>/dev/null
expect_status "verify computes gate B again (paired from its freeze's store)" 0 "$COHORT" verify --store tcs bgate.json tcp.json tcf.json cv.json
# with the prereg: the paired document follows none, the freeze follows it
"$COHORT" freeze --prereg "$T/prereg.json" --spec "$T/spec.json" --candidates "$T/candidates.jsonl" --decisions clean.jsonl -o tpf.json 2>/dev/null
"$COHORT" gate A --prereg "$T/prereg.json" tpf.json -o g.json 2>/dev/null
$PY -c 'import json,sys; d=json.load(open("g.json")); sys.exit(not (d["deviations"] == [] and d["prereg"].startswith("sha256:")))' &&
	ok "gate --prereg: a freeze that follows it is no deviation" || notok "gate --prereg: a freeze that follows it is no deviation" "$(head -c 300 g.json)"
judged "B --prereg, paired following none" 1 fail B --prereg "$T/prereg.json" tcp2.json cv.json
$PY -c 'import json,sys; d=json.load(open("g.json")); sys.exit(not (len(d["deviations"]) == 1 and d["deviations"][0]["setting"] == "prereg"))' &&
	ok "gate --prereg: evidence following another prereg is a deviation" || notok "gate --prereg: evidence following another prereg is a deviation" "$(head -c 600 g.json)"
# paired --prereg: it names the prereg, takes its bootstrap and blunder_cp,
# and lists what differs; gate B holds its settings to the prereg even
# where the deviations it lists were taken away
"$COHORT" freeze --prereg "$T/prereg.json" --spec "$T/spec.json" --candidates "$T/candidates.jsonl" --decisions clean.jsonl --store tps -o tpf2.json 2>/dev/null
"$COHORT" paired --prereg "$T/prereg.json" --store tps -o tpp.json tpf2.json
$PY -c 'import json,sys; d=json.load(open("tpp.json")); o=d["options"]
sys.exit(not (d["prereg"].startswith("sha256:") and d["deviations"] == [] and (o["replicates"], o["seed"], o["blunder_cp"]) == (200, 1, 300)))' &&
	ok "paired --prereg: names it, its settings, no deviation" || notok "paired --prereg: names it, its settings, no deviation" "$(head -c 400 tpp.json)"
judged "B --prereg, paired following it" 0 pass B --prereg "$T/prereg.json" tpp.json cv.json
expect_status "verify computes paired --prereg again" 0 "$COHORT" verify --store tps tpp.json tpf2.json
"$COHORT" paired --prereg "$T/prereg.json" --store tps --replicates 50 --blunder-cp 200 -o tpq.json tpf2.json
$PY -c 'import json,sys; d=json.load(open("tpq.json"))
sys.exit(not ([(x["setting"], x["registered"], x["used"]) for x in d["deviations"]] == [("bootstrap.replicates", "200", "50"), ("blunder_cp", "300", "200")]))' &&
	ok "paired --prereg: an option against the registered setting is a deviation" || notok "paired --prereg: an option against the registered setting is a deviation" "$($PY -c 'import json; print(json.load(open("tpq.json"))["deviations"])')"
judged "B --prereg, paired listing deviations" 1 fail B --prereg "$T/prereg.json" tpq.json cv.json
$PY -c 'import json; d=json.load(open("tpq.json")); d["deviations"]=[]; open("tpr.json","w").write(json.dumps(d))'
canonize tpr.json
judged "B --prereg, paired settings off the prereg with the deviations taken away" 1 fail B --prereg "$T/prereg.json" tpr.json cv.json
$PY -c 'import json,sys; d=json.load(open("g.json")); sys.exit(not (d["deviations"][0]["setting"] == "paired.options"))' &&
	ok "gate B: paired settings off the prereg are a deviation" || notok "gate B: paired settings off the prereg are a deviation" "$(head -c 600 g.json)"
"$COHORT" paired --prereg "$T/prereg.json" --store tcs -o tpn.json tcf.json
$PY -c 'import json,sys; d=json.load(open("tpn.json"))
sys.exit(not ([(x["setting"], x["used"]) for x in d["deviations"]] == [("freeze.prereg", "none")]))' &&
	ok "paired --prereg: a freeze made without it is a deviation" || notok "paired --prereg: a freeze made without it is a deviation" "$($PY -c 'import json; print(json.load(open("tpn.json"))["deviations"])')"
"$COHORT" freeze --prereg "$T/prereg.json" --spec "$T/spec.json" --candidates "$T/candidates.jsonl" --decisions "$T/decisions.jsonl" -o tdf.json 2>/dev/null
judged "A --prereg, a freeze made without it" 1 fail A --prereg "$T/prereg.json" tcf.json
$PY -c 'import json,sys; d=json.load(open("g.json")); sys.exit(not (d["deviations"][0]["used"].endswith("follows no prereg")))' &&
	ok "gate --prereg: a freeze made without it is a deviation" || notok "gate --prereg: a freeze made without it is a deviation" "$(head -c 600 g.json)"
judged "A with a deviating freeze" 1 fail A tdf.json
$PY -c 'import json,sys; d=json.load(open("g.json")); sys.exit(not (d["deviations"][0]["setting"] == "evidence"))' &&
	ok "gate: evidence listing deviations is a deviation" || notok "gate: evidence listing deviations is a deviation" "$(head -c 600 g.json)"

# ---- gates C and D: hand-made fingerprints and distances
pre() { # pre NAME PYTHON-EDIT: the toy prereg with its predictions replaced
	$PY - "$T/prereg.json" "$1" "$2" <<'PYEOF'
import json, sys
doc = json.load(open(sys.argv[1]))
exec(sys.argv[3])
open(sys.argv[2], "w").write(json.dumps(doc, indent=1))
PYEOF
}
pre p.json 'doc["predictions"] = [
 {"id": "assist", "kind": "heldout_assistance", "target": "delta_r[5]", "predictors": ["delta_r[2]", "order_change"], "baseline": ["unaided"]},
 {"id": "f4-over-f3", "kind": "architectural", "family": "f4", "feature": "delta_r[5]", "relation": ">", "family2": "f3"},
 {"id": "f4-widen", "kind": "intervention", "family": "f4", "target": "delta_r[5]", "control": "omit_best[3]"}]'
PID=$("$COHORT" prereg p.json | sed 's/.*"prereg":"\([^"]*\)".*/\1/')
$PY "$ROOT/tests/gate_fixtures.py" "$PID" .
for f in train held dist; do "$COHORT" canon $f.raw.json >$f.json; done
judged "C" 0 pass C --prereg p.json train.json held.json dist.json
cp g.json cgate.json
"$RF" cgate.json train.json held.json dist.json p.json
[ $? = 0 ] && ok "gate C computed again through the derive table" || notok "gate C computed again through the derive table" "differs"
$PY -c 'import json; d=json.load(open("cgate.json")); d["criteria"][0]["verdict"]="fail"; open("tc.json","w").write(json.dumps(d))'
"$RF" tc.json train.json held.json dist.json p.json
[ $? = 1 ] && ok "gate C: an edited criterion does not compute again" || notok "gate C: an edited criterion does not compute again" "same"
"$RF" cgate.json train.json held.json dist.json 2>/dev/null
[ $? = 1 ] && ok "gate C: without its prereg it does not compute again" || notok "gate C: without its prereg it does not compute again" "computed"
judged "C without prereg" 1 insufficient C train.json held.json dist.json
expect_crit "C without prereg" C3 insufficient
judged "C without the heldout split" 1 insufficient C --prereg p.json train.json dist.json
expect_crit "C without the heldout split" C3 insufficient
pre q.json 'doc["predictions"] = [{"id": "assist", "kind": "heldout_assistance", "target": "delta_r[5]", "predictors": ["unaided"], "baseline": ["delta_r[2]", "order_change"]}]'
# the fixtures name p.json's identity: with q.json they deviate, and C3 fails on its own
judged "C, a prediction that loses to its baseline" 1 fail C --prereg q.json train.json held.json dist.json
expect_crit "C, a prediction that loses to its baseline" C3 fail
$PY -c '
import json; d=json.load(open("dist.json")); d["test_retest"][2]["d2"] = 20; open("d1.json","w").write(json.dumps(d))
d=json.load(open("dist.json")); d["separation"][4]["exceeds"] = False; open("d2.json","w").write(json.dumps(d))
d=json.load(open("dist.json")); d["test_retest"] = d["test_retest"][1:]; open("d3.json","w").write(json.dumps(d))'
canonize d1.json d2.json d3.json
judged "C, a family that does not replicate" 1 fail C --prereg p.json train.json held.json d1.json
expect_crit "C, a family that does not replicate" C1 fail
judged "C, a pair that does not separate" 1 fail C --prereg p.json train.json held.json d2.json
expect_crit "C, a pair that does not separate" C2 fail
expect_crit "C, a pair that does not separate" C1 pass
judged "C, a family with one replication" 1 insufficient C --prereg p.json train.json held.json d3.json
expect_crit "C, a family with one replication" C1 insufficient
judged "D" 0 pass D --prereg p.json held.json train.json
cp g.json dgate.json
"$RF" dgate.json held.json train.json p.json
[ $? = 0 ] && ok "gate D computed again through the derive table" || notok "gate D computed again through the derive table" "differs"
pre r.json 'doc["predictions"] = [
 {"id": "f3-over-f4", "kind": "architectural", "family": "f3", "feature": "delta_r[5]", "relation": ">", "family2": "f4"},
 {"id": "f4-widen", "kind": "intervention", "family": "f4", "target": "delta_r[5]", "control": "delta_r[9]"}]'
judged "D, predictions that fail" 1 fail D --prereg r.json held.json
expect_crit "D, predictions that fail" D1 fail
expect_crit "D, predictions that fail" D2 insufficient
pre s.json 'doc["predictions"] = [{"id": "f4-over-f9", "kind": "architectural", "family": "f4", "feature": "delta_r[5]", "relation": ">", "family2": "f9"}]'
judged "D, a family never fingerprinted" 1 fail D --prereg s.json held.json
expect_crit "D, a family never fingerprinted" D1 insufficient
# text predictions (free strings, as a researcher writes them) are
# registered and listed by gate D, never judged: alone, D1 has nothing a
# machine can check
pre t.json 'doc["predictions"] = ["f3 gains more from top-2 than f4 does.",
 {"id": "f4-over-f3", "kind": "architectural", "family": "f4", "feature": "delta_r[5]", "relation": ">", "family2": "f3"},
 "Order matters less to f4."]'
judged "D, text predictions beside the others" 1 fail D --prereg t.json held.json train.json
expect_crit "D, text predictions beside the others" D1 pass
grep -q 'prediction 0 is text, not checked by machine' g.json && ok "gate D1 says which predictions are text" ||
	notok "gate D1 says which predictions are text" "$(head -c 600 g.json)"
pre u.json 'doc["predictions"] = ["f3 gains more from top-2 than f4 does."]'
judged "D, text predictions alone" 1 fail D --prereg u.json held.json
expect_crit "D, text predictions alone" D1 insufficient
judged "C, text predictions beside the others" 1 fail C --prereg t.json train.json held.json dist.json
# --format table: cohort's own table of the same gate, the same exit; each
# criterion's id, verdict, text and detail as the document has them
"$COHORT" gate D --prereg t.json -o td.json held.json train.json 2>/dev/null
"$COHORT" gate D --prereg t.json --format table held.json train.json >td.txt 2>/dev/null
[ $? = 1 ] && ok "gate --format table: the exit of the document" || notok "gate --format table: the exit" "not 1"
$PY - td.json td.txt <<'P' >td.chk
import json, sys
g = json.load(open(sys.argv[1])); t = open(sys.argv[2]).read().splitlines()
want = ["gate %s: %s" % (g["gate"], g["verdict"]), "prereg: %s" % g["prereg"]]
kind = {i["id"]: i["kind"][7:].split("/")[0] for i in g["inputs"]}
for c in g["criteria"]:
    want += ["", "%-3s %-12s %s" % (c["id"], c["verdict"], c["text"])]
    if c["detail"]: want.append("    detail: " + c["detail"])
    want.append("    evidence: " + (", ".join("%s %s" % (kind[e], e[7:19]) for e in c["evidence"]) or "none"))
want += ["", "deviations: " + ("" if g["deviations"] else "none")]
want += ["    %s: registered %s, used %s" % (d["setting"], d["registered"], d["used"]) for d in g["deviations"]]
want.append("text predictions (not checked by machine): " + ("" if g["text_predictions"] else "none"))
want += ["    %d: %s" % (x["index"], x["text"]) for x in g["text_predictions"]]
print("ok" if t == want else "\n".join("%r | %r" % x for x in zip(t, want) if x[0] != x[1])[:600])
P
[ "$(cat td.chk)" = ok ] && ok "gate --format table: every line as python writes it from the document" ||
	notok "gate --format table: every line as python writes it" "$(cat td.chk)"
judged "D without prereg" 1 insufficient D held.json
expect_fail2 "gate D refuses a distance" 'not evidence for gate D' "$COHORT" gate D held.json dist.json

# ---- gates C and D on fingerprints cohort made of two splits: each
# opening in one split (tests/fp_make.py by-opening), the predictions
# registered in the prereg the fingerprints follow
mkdir -p sp
$PY "$ROOT/tests/fp_make.py" sp 40 by-opening
$PY - sp/prereg.json <<'P'
import json, sys
p = json.load(open(sys.argv[1]))
p["predictions"] = [
    {"id": "assist", "kind": "heldout_assistance", "target": "oracle_regret[5]", "predictors": ["oracle_regret[2]"], "baseline": ["unaided"]},
    {"id": "a-over-b", "kind": "architectural", "family": "alpha", "feature": "oracle_regret[5]", "relation": ">", "family2": "beta"},
    {"id": "a-widen", "kind": "intervention", "family": "alpha", "target": "delta_r[5]", "control": "omit_best"}]
open(sys.argv[1], "w").write(json.dumps(p, separators=(",", ":"), sort_keys=True))
P
"$COHORT" freeze --prereg sp/prereg.json --spec sp/spec.json --candidates sp/candidates.jsonl \
	--decisions sp/decisions.jsonl --store sp/st -o sp/f.json sp/games.jsonl 2>/dev/null
# (the freeze reports the order seeds it deviates by; the fingerprints
# follow the prereg; C2 fails on these families, so gate C fails)
for s in explore heldout all; do
	"$COHORT" fingerprint --prereg sp/prereg.json --store sp/st --split $s -o sp/fp-$s.json sp/f.json
done
"$COHORT" distance -o sp/dist.json sp/fp-explore.json
judged "D on a heldout fingerprint" 1 fail D --prereg sp/prereg.json sp/fp-heldout.json sp/fp-explore.json
$PY - g.json sp/fp-heldout.json <<'P' && ok "gate D1: decided on the heldout split's intervals" ||
import json, sys
g = {c["id"]: c for c in json.load(open(sys.argv[1]))["criteria"]}
fp = json.load(open(sys.argv[2]))
ent = lambda fam: [{x["name"]: x for x in e["features"]}["oracle_regret[5]"] for e in fp["fingerprints"] if e["family"] == fam]
a, b = ent("alpha"), ent("beta")
holds = all(x["lo"] > y["hi"] for x in a for y in b)
assert g["D1"]["verdict"] == ("pass" if holds else "fail"), (g["D1"], a, b)
assert g["D1"]["evidence"] == [json.load(open(sys.argv[1]))["inputs"][0]["id"]] or len(g["D1"]["evidence"]) == 1, g["D1"]
assert g["D2"]["verdict"] != "pass" or all(x["lo"] > 0 for x in ent("alpha")), g["D2"]
P
	notok "gate D1 on the heldout split" "$(head -c 600 g.json)"
judged "D on a fingerprint of every split" 1 insufficient D --prereg sp/prereg.json sp/fp-all.json
expect_crit "D on a fingerprint of every split" D1 insufficient
judged "C on two splits' fingerprints" 1 fail C --prereg sp/prereg.json sp/fp-explore.json sp/fp-heldout.json sp/dist.json
grep -q 'assist: 2 families with every feature, 4 needed' g.json &&
	ok "gate C3: scored on the splits, insufficient for two families with decisions" ||
	notok "gate C3 on the splits" "$(grep -o '"detail":"[^"]*","evidence":\[[^]]*\],"id":"C3"' g.json)"
judged "C: a fingerprint of every split is on neither side" 1 fail C --prereg sp/prereg.json sp/fp-all.json sp/fp-heldout.json sp/dist.json
grep -q 'assist: 0 families with every feature' g.json &&
	ok "gate C3: split all is not the training side" ||
	notok "gate C3: split all" "$(grep -o '"detail":"[^"]*","evidence":\[[^]]*\],"id":"C3"' g.json)"
