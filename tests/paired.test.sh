# paired.test.sh: cohort paired: every figure computed again by an
# independent implementation (tests/paired_check.py, bootstrap included),
# closed forms on the toy, determinism, verify's refit, and refusals.
PY=/usr/bin/python3
D=$ROOT/examples/paired-toy
"$COHORT" freeze --spec "$D/spec.json" --candidates "$D/candidates.jsonl" --decisions "$D/decisions.jsonl" \
	--store st -o f.json
"$COHORT" paired --store st -o p.json f.json
check "unit: bootstrap intervals' quantiles by selection equal a sort's (tests/unit/quantile_check.c)" \
	"$BUILD/tests/unit/quantile_check"
check "paired: every figure, as an independent implementation gives it" \
	$PY "$ROOT/tests/paired_check.py" "$D/candidates.jsonl" "$D/decisions.jsonl" f.json p.json
"$COHORT" paired --store st --replicates 300 --seed 7 --blunder-cp 50 -o p7.json f.json
check "paired: other options, the same agreement" \
	$PY "$ROOT/tests/paired_check.py" "$D/candidates.jsonl" "$D/decisions.jsonl" f.json p7.json 50
"$COHORT" paired --store st -o p2.json f.json
same_bytes "paired: the same bytes twice" p.json p2.json
for j in 1 2 3; do
	COHORT_JOBS=$j "$COHORT" paired --store st -o p-j$j.json f.json
	same_bytes "paired: the same bytes on $j thread(s)" p.json p-j$j.json
done
check "paired: the documents validate against schemas/paired.schema.json" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/paired.schema.json" p.json p7.json
check "paired: the toy's decisions validate against schemas/decision-record.schema.json" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/decision-record.schema.json" "$D/decisions.jsonl"
head -n 1 "$D/decisions.jsonl" | sed 's/"status":"ok"/"status":"fine"/' >bad-status.jsonl
head -n 1 "$D/decisions.jsonl" | sed 's/"shown":\[\]/"shown":["e2e4"]/' >bad-shown.jsonl
for b in bad-status bad-shown; do
	if $PY "$ROOT/tests/validate.py" "$ROOT/schemas/decision-record.schema.json" $b.jsonl >/dev/null; then
		notok "paired: the decision schema refuses $b" "$(cat $b.jsonl)"
	else
		ok "paired: the decision schema refuses $b"
	fi
done
$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); d["cells"][0]["recall"]={"estimate":2,"interval":None}; json.dump(d,open("bad-p.json","w"))' p.json
if $PY "$ROOT/tests/validate.py" "$ROOT/schemas/paired.schema.json" bad-p.json >/dev/null; then
	notok "paired: the paired schema refuses a recall of 2" "see bad-p.json"
else
	ok "paired: the paired schema refuses a recall of 2"
fi
# Decisions past one window of reading (64 chunks of 1,024), read on 1, 2
# and 3 threads: the same bytes.
mkdir big
$PY "$ROOT/bench/fp-gen.py" big 50 100 >big/n.txt
"$COHORT" freeze --spec big/spec.json --candidates big/candidates.jsonl --decisions big/decisions.jsonl \
	--store big/st -o big/f.json
for j in 1 2 3; do
	COHORT_JOBS=$j "$COHORT" paired --store big/st --replicates 50 -o big/p$j.json big/f.json
done
# -o hands the manifest (16 MB here) to a thread that writes it while the
# rest is made, through a few slots used in turn; standard output takes
# it made whole.  The same bytes.
"$COHORT" freeze --spec big/spec.json --candidates big/candidates.jsonl \
	--decisions big/decisions.jsonl >big/f-stdout.json
same_bytes "freeze -o (written by a thread of its own): the bytes standard output gets" \
	big/f.json big/f-stdout.json
[ "$(cat big/n.txt)" -gt 65536 ] && ok "paired: the large panel has more than one window" ||
	notok "paired: the large panel has more than one window" "$(cat big/n.txt)"
# past 65,536 decisions the freeze sorts them on two threads and merges
$PY - big/f.json <<'P' && ok "freeze: a large panel's decisions listed in decision_id order" ||
import json, sys
d = json.load(open(sys.argv[1]))["decisions"]
for k in ("included", "excluded"):
    ids = [e["decision_id"] for e in d[k]]
    assert ids == sorted(ids), k
assert len(d["included"]) + len(d["excluded"]) > 65536
P
	notok "freeze: a large panel's decisions listed in decision_id order" "see big/f.json"
n60=$(sed -n '60000p' big/decisions.jsonl | sed 's/.*"decision_id":"\([^"]*\)".*/\1/')
sed -n '60000p' big/decisions.jsonl | cat big/decisions.jsonl - >big/twice.jsonl
expect_fail2 "freeze: a decision_id given twice in a large panel names both lines" \
	"twice.jsonl:$(($(cat big/n.txt) + 1)): \"decision_id\": \"$n60\" appears twice \\(also big/twice.jsonl:60000\\)" \
	"$COHORT" freeze --spec big/spec.json --candidates big/candidates.jsonl --decisions big/twice.jsonl \
	--store big/st2 -o big/f2.json
same_bytes "paired: past one window, the same bytes on 1 and 2 threads" big/p1.json big/p2.json
same_bytes "paired: past one window, the same bytes on 1 and 3 threads" big/p1.json big/p3.json
check "paired: past one window, the document validates" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/paired.schema.json" big/p1.json
check "paired: past one window, the decisions validate" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/decision-record.schema.json" big/decisions.jsonl
rm -rf big
$PY - p.json <<'P' && ok "paired: closed forms on the toy" || notok "paired: closed forms" "see p.json"
import json, sys
c = {(x["family"], x["condition"], x["budget"]): x for x in json.load(open(sys.argv[1]))["cells"]}
# beta picks the best shown: recall 1, regret 0, no order change in top2 and top5
for k in ("top2", "top5"):
    b = c[("beta", k, "high")]
    assert b["recall"]["estimate"] == 1 and b["regret"]["mean"] == 0, b
    assert b["order"]["change_probability"] == 0, b
# omitting the best: recall 0 and coverage 0 for everyone
for f in ("alpha", "beta"):
    assert c[(f, "top3-omit-best", "low")]["recall"]["estimate"] == 0
    assert c[(f, "top3-omit-best", "low")]["coverage"]["estimate"] == 0
# alpha takes the first shown: in top5 over three rotations it never takes the best
a = c[("alpha", "top5", "high")]
assert a["recall"]["estimate"] == 0 and a["order"]["change_probability"] == 1, a
# a move scored in neither list is a bound, not averaged in
assert c[("beta", "none", "low")]["regret"]["bounds"] == 1, c[("beta", "none", "low")]
# no shortlist in none
assert c[("alpha", "none", "low")]["coverage"] is None and c[("alpha", "none", "low")]["value_loss"] is None
# effects: beta always right in top2, so every level's recall is 1 and
# every effect 0; every cell has each factor's levels in the contract's order
for f, lv in (("colour", ["white", "black"]), ("phase", ["opening", "middlegame", "endgame"]),
              ("stratum", ["tactical", "ambiguous", "quiet"])):
    e = c[("beta", "top2", "high")]["effects"][f]
    assert [x["level"] for x in e["levels"]] == lv, e
    assert all(x["recall"]["estimate"] in (1, None) for x in e["levels"]), e
    assert e["recall"]["estimate"] == 0 and e["regret"]["estimate"] == 0, e
assert c[("beta", "top2", "high")]["effects"]["colour"]["measure"] == "white-black"
assert c[("beta", "top2", "high")]["effects"]["order"]["measure"] == "range"
P
$PY - p.json >p-eff.json <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
d["cells"][3]["effects"]["stratum"]["regret"]["interval"][0] += 0.02
print(json.dumps(d))
P
expect_status "paired_check finds an effect's interval off by 0.02 cp" 1 \
	$PY "$ROOT/tests/paired_check.py" "$D/candidates.jsonl" "$D/decisions.jsonl" f.json p-eff.json
$PY - p.json >p-eff2.json <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
d["cells"][3]["effects"]["colour"]["recall"]["estimate"] = None
print(json.dumps(d))
P
expect_status "paired_check finds a colour effect turned null" 1 \
	$PY "$ROOT/tests/paired_check.py" "$D/candidates.jsonl" "$D/decisions.jsonl" f.json p-eff2.json
expect_status "verify recomputes the paired document" 0 "$COHORT" verify --store st f.json p.json
grep -q '"check":"refit","detail":"[^"]*","ok":true,"subject":"p.json"' "$TMP/out" && ok "verify: the paired refit holds" ||
	notok "verify: the paired refit holds" "$(head -c 400 "$TMP/out")"
$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); d["cells"][0]["recall"]["estimate"]=0.5; print(json.dumps(d,separators=(",",":"),sort_keys=True),end="")' p.json >p-edit.json
expect_status "verify: an edited paired document is a finding" 1 "$COHORT" verify --store st f.json p-edit.json
"$COHORT" freeze --spec "$D/spec.json" -o games-only.json "$ROOT/examples/luna/ledger.jsonl" 2>/dev/null ||
	"$COHORT" freeze --spec "$D/spec.json" --candidates "$D/candidates.jsonl" -o games-only.json
printf '%s' '{"kind":"cohort.blocks/1","blocks":[]}' >blocks.json
expect_fail2 "paired: a document that is not a freeze with decisions" 'holds no decisions|kind|spec' "$COHORT" paired --store st blocks.json
expect_fail2 "paired: a store without the records" 'not a cohort store|not in the store' "$COHORT" paired --store "$TMP/nostore" f.json
expect_fail2 "paired: --replicates out of range" '--replicates: expected 0 to 1000000' "$COHORT" paired --replicates -1 f.json

# paired reads a freeze without building its included decisions' tree
# (json_parse_skip, paired_freeze_read): a freeze written another way (keys
# shuffled, indented), or read from standard input, gives the same bytes,
# its identity the canonical one; a broken entry is refused by name, and
# the reader's checks hold inside the entries it does not build.
$PY - f.json >f-pretty.json <<'P'
import json, random, sys
rng = random.Random(3)
def shuffle(v):
    if isinstance(v, dict):
        items = [(k, shuffle(x)) for k, x in v.items()]
        rng.shuffle(items)
        return dict(items)
    return [shuffle(x) for x in v] if isinstance(v, list) else v
json.dump(shuffle(json.load(open(sys.argv[1]))), sys.stdout, indent=2, ensure_ascii=False)
P
"$COHORT" paired --store st -o p-pretty.json f-pretty.json
same_bytes "paired: a freeze written another way gives the same document" p.json p-pretty.json
COHORT_JOBS=1 "$COHORT" paired --store st -o p-pretty1.json f-pretty.json
same_bytes "paired: the same on one thread (the identity computed after the parse)" p.json p-pretty1.json
"$COHORT" paired --store st -o p-stdin.json - <f-pretty.json
same_bytes "paired: a freeze on standard input, the same document" p.json p-stdin.json
$PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["input"] == "sha256:" + __import__("hashlib").sha256(open(sys.argv[2],"rb").read()).hexdigest())' \
	p-pretty.json f.json | grep -q True && ok "paired: the input's identity is its canonical bytes' digest" ||
	notok "paired: the input's identity" "$(head -c 200 p-pretty.json)"
entry_edit() { # NAME PYTHON-EXPR: f.json with the first included entry e edited
	$PY -c 'import json,sys; d=json.load(open("f.json")); e=d["decisions"]["included"][0]; '"$2"'; json.dump(d,open(sys.argv[1],"w"))' "$1"
}
entry_edit no-id.json 'del e["id"]'
entry_edit num-id.json 'e["id"]=7'
entry_edit short-id.json 'e["id"]="sha256:00"'
entry_edit not-obj.json 'd["decisions"]["included"][0]=["id"]'
for b in no-id num-id short-id not-obj; do
	expect_fail2 "paired: $b: an entry without an identity, by name" \
		"^cohort paired: $b.json: \"decisions\": an entry without an identity\$" \
		"$COHORT" paired --store st -o never.json $b.json
done
[ ! -e never.json ] && ok "paired: a refused freeze writes nothing" || notok "paired: a refused freeze writes nothing" "never.json exists"
$PY -c 'import sys; s=open("f.json").read(); i=s.index("\"included\":[{")+len("\"included\":[{"); open("dup-key.json","w").write(s[:i]+"\"family\":\"x\","+s[i:])'
expect_fail2 "paired: a key given twice inside an entry it does not build" \
	'dup-key.json:1:[0-9]+: duplicate key "family"' "$COHORT" paired --store st dup-key.json
entry_edit inc-obj.json 'd["decisions"]["included"]={"a":e}'
expect_fail2 "paired: an \"included\" that is not an array" \
	'^cohort paired: inc-obj.json: "decisions": "included": expected an array$' \
	"$COHORT" paired --store st inc-obj.json
