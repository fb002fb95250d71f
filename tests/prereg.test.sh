# prereg.test.sh: cohort prereg: the example reads and its identity is the
# SHA-256 of its canonical bytes (computed again in python); the schema and
# the reader agree on the example and on every planted error, each refused
# with the file, the line and the field, and nothing written.
PY=/usr/bin/python3
P=$ROOT/examples/paired-toy/prereg.json
U=$BUILD/tests/unit/prereg_check
check "unit: reader, line map, feature names, deviations (tests/unit/prereg_check.c)" "$U" "$P"
"$U" --registry >reg.txt
$PY -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["properties"]["features"]["items"]["enum"]))' \
	"$ROOT/schemas/prereg.schema.json" >reg.schema.txt
same_bytes "feature registry equals the schema's list" reg.txt reg.schema.txt
expect_status "prereg: the example reads" 0 "$COHORT" prereg "$P"
cp "$TMP/out" check.json
$PY - "$P" check.json >py.txt <<'PYEOF'
import hashlib, json, sys
doc = json.load(open(sys.argv[1]))
canon = json.dumps(doc, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode()
want = {"kind": "cohort.prereg.check/1", "name": doc["name"], "prereg": "sha256:" + hashlib.sha256(canon).hexdigest(),
        "registered_at": doc["registered_at"]}
got = open(sys.argv[2], "rb").read()
print("ok" if got == json.dumps(want, separators=(",", ":"), sort_keys=True).encode() else "differ: %r" % got)
PYEOF
[ "$(cat py.txt)" = ok ] && ok "prereg: identity is the sha256 of the canonical bytes (python)" ||
	notok "prereg: identity is the sha256 of the canonical bytes (python)" "$(cat py.txt)"
check "prereg: the example validates against schemas/prereg.schema.json" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/prereg.schema.json" "$P"
expect_status "prereg -o writes the check" 0 "$COHORT" prereg -o o.json "$P"
same_bytes "prereg -o: the same bytes" o.json check.json

# plant NAME PYTHON-EDIT PATTERN: the example with doc edited, written one
# field a line; the reader refuses it (exit 2, PATTERN, no output file) and
# so does the schema, unless the edit is one the schema cannot tell.
plant() {
	$PY - "$P" bad.json "$2" <<'PYEOF'
import json, sys
doc = json.load(open(sys.argv[1]))
exec(sys.argv[3])
open(sys.argv[2], "w").write(json.dumps(doc, indent=1) + "\n")
PYEOF
	rm -f bad.out
	expect_fail2 "prereg refuses $1" "$3" "$COHORT" prereg -o bad.out bad.json
	[ -e bad.out ] && notok "prereg $1: no output file" "bad.out written"
	if [ "${4:-}" != noschema ]; then
		if $PY "$ROOT/tests/validate.py" "$ROOT/schemas/prereg.schema.json" bad.json >/dev/null; then
			notok "schema refuses $1" "valid"; else ok "schema refuses $1"; fi
	fi
}
plant "an unknown feature" 'doc["features"][1] = "delta_rr"' '^cohort prereg: bad\.json:[0-9]+: "features": 1: unknown feature "delta_rr"$'
plant "an unknown field" 'doc["extra"] = 1' 'bad\.json:[0-9]+: "extra": unknown field'
plant "a field missing" 'del doc["blunder_cp"]' 'bad\.json:1: "blunder_cp": missing'
plant "widths out of order" 'doc["widths"] = [0, 5, 2]' 'bad\.json:[0-9]+: "widths": 2: widths must be distinct and increasing' noschema
plant "a width given twice" 'doc["widths"] = [0, 2, 2]' '"widths": 2: widths must be distinct'
plant "a fractional width" 'doc["widths"] = [0, 2.5]' '"widths": 1: expected a whole number from 0 to 64'
plant "a width past 64" 'doc["widths"] = [0, 65]' '"widths": 1: expected a whole number'
plant "no width" 'doc["widths"] = []' '"widths": expected at least one width'
plant "a bad time" 'doc["registered_at"] = "2026-07-25 00:00"' '"registered_at": expected an RFC 3339 time'
plant "a bad manifest identity" 'doc["candidates"] = "sha256:ABC"' '"candidates": expected sha256: and 64'
plant "an unknown split" 'doc["allocation"]["splits"]["train"] = 5' '"allocation": "splits": "train": expected explore, confirm or heldout'
plant "a zero split" 'doc["allocation"]["splits"]["explore"] = 0' '"allocation": "splits": "explore": expected a whole number from 1'
plant "zero order seeds" 'doc["allocation"]["order_seeds"] = 0' '"allocation": "order_seeds": expected a whole number from 1'
plant "a budget twice" 'doc["allocation"]["budgets"] = ["low", "low"]' '"allocation": "budgets": 1: "low" given twice'
plant "an unknown exclusion" 'doc["exclusions"].append("late")' '"exclusions": 4: unknown exclusion "late"'
plant "a negative lambda" 'doc["distance"]["lambda"] = -1' '"distance": "lambda": expected a number from 0'
plant "an unknown population" 'doc["distance"]["population"] = "world"' '"distance": "population": expected panel or none'
plant "an unknown unit" 'doc["bootstrap"]["unit"] = "move"' '"bootstrap": "unit": expected opening or position'
plant "a fractional seed" 'doc["bootstrap"]["seed"] = 1.5' '"bootstrap": "seed": expected a whole number'
plant "an unknown bootstrap field" 'doc["bootstrap"]["blocks"] = 3' '"bootstrap": "blocks": unknown field'
plant "a prediction of an unknown kind" 'doc["predictions"][0]["kind"] = "guess"' '"predictions": 0: "kind": expected heldout_assistance'
plant "a prediction on an unknown feature" 'doc["predictions"][1]["feature"] = "delta_r[x]"' '"predictions": 1: "feature": unknown feature "delta_r\[x\]"'
plant "a predictor unknown" 'doc["predictions"][0]["predictors"].append("luck")' '"predictions": 0: "predictors": 2: unknown feature "luck"'
plant "a prediction id twice" 'doc["predictions"][1]["id"] = "assist-5"' '"predictions": 1: "id": "assist-5" given twice' noschema
plant "a relation unknown" 'doc["predictions"][1]["relation"] = ">="' '"predictions": 1: "relation": expected > or <'
plant "a prediction field unknown" 'doc["predictions"][1]["why"] = "x"' '"predictions": 1: "why": unknown field'
plant "a kind other than cohort.prereg/1" 'doc["kind"] = "cohort.spec/1"' '"kind": expected cohort.prereg/1'
# the line named is the line of the bad value
plant "an unknown feature (its line)" 'doc["features"][1] = "delta_rr"' "^cohort prereg: bad\\.json:$(awk '/"features"/{print NR + 2; exit}' "$P"): "
printf '{"kind":"cohort.prereg/1","kind":"cohort.prereg/1"}' >dup.json
expect_fail2 "prereg refuses a duplicate key" 'dup\.json:1:[0-9]+: duplicate key "kind"' "$COHORT" prereg dup.json
expect_fail2 "prereg refuses a missing file" 'nothere\.json' "$COHORT" prereg nothere.json

# ---- freeze --prereg: every deviation planted, listed in the freeze and on
# stderr as tests/prereg_dev.py computes it from the raw inputs; verify
# derives it again and reports each; a tampered list is a finding.
T=$ROOT/examples/paired-toy
L=$ROOT/examples/luna
grep -v '"order_seed":9' "$T/decisions.jsonl" >clean.jsonl
# deviate NAME EDIT WANT-EXIT FREEZE-ARGS...: the example prereg edited by EDIT
# (python on doc), a freeze with it, compared with the python rules.
deviate() {
	_n=$1 _edit=$2 _want=$3
	shift 3
	$PY - "$P" dev.json "$_edit" <<'PYEOF'
import json, sys
doc = json.load(open(sys.argv[1]))
exec(sys.argv[3])
open(sys.argv[2], "w").write(json.dumps(doc, indent=1) + "\n")
PYEOF
	rm -rf dst
	"$COHORT" freeze --prereg dev.json --store dst -o dfz.json "$@" >/dev/null 2>dev.err
	_rc=$?
	[ "$_rc" = "$_want" ] && ok "freeze --prereg $_n: exit $_want" ||
		notok "freeze --prereg $_n: exit $_want" "exit $_rc: $(head -c 300 dev.err)"
	_spec=$(echo "$@" | sed 's/.*--spec \([^ ]*\).*/\1/')
	_py="" _l=""
	for a in "$@"; do
		case $_l in --decisions) _py="$_py --decisions $a";; --candidates) _py="$_py --candidates $a";; esac
		case $a in *ledger.jsonl) _py="$_py --ledger $a";; esac
		_l=$a
	done
	$PY "$ROOT/tests/prereg_dev.py" dev.json "$_spec" dfz.json $_py >dev.want
	$PY -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["deviations"], separators=(",", ":"), sort_keys=True, ensure_ascii=False))' dfz.json >dev.got
	same_bytes "freeze --prereg $_n: deviations as computed again (python)" dev.want dev.got
	_nd=$($PY -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' dev.want)
	[ "$(grep -c '^cohort freeze: deviation: ' dev.err)" = "$_nd" ] && ok "freeze --prereg $_n: each deviation on stderr" ||
		notok "freeze --prereg $_n: each deviation on stderr" "$(head -c 300 dev.err)"
	"$COHORT" verify --store dst dfz.json >dev.vr 2>&1
	_vrc=$?
	$PY - dev.vr "$_nd" "$_vrc" >dev.vchk <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1])); n = int(sys.argv[2]); rc = int(sys.argv[3])
bad = [c for c in r["checks"] if not c["ok"]]
ok = all(c["check"] == "deviation" for c in bad) and len(bad) == n and rc == (1 if n else 0) and \
    any(c["check"] == "derivation" and c["subject"] == "deviations" and c["ok"] for c in r["checks"])
print("ok" if ok else "rc %d, findings %s" % (rc, bad[:3]))
PYEOF
	[ "$(cat dev.vchk)" = ok ] && ok "verify re-derives $_n" || notok "verify re-derives $_n" "$(cat dev.vchk)"
}
TOY="--spec $T/spec.json --candidates $T/candidates.jsonl --decisions"
deviate "the registered analysis" 'pass' 0 $TOY clean.jsonl
deviate "a position with a fourth order seed" 'pass' 1 $TOY "$T/decisions.jsonl"
deviate "decisions before registered_at" 'doc["registered_at"] = "2026-08-01T10:00:00.5Z"' 1 $TOY clean.jsonl
deviate "another candidate manifest" 'doc["candidates"] = "sha256:" + "0" * 64' 1 $TOY clean.jsonl
deviate "exclusions not registered" 'doc["exclusions"] = ["family"]' 1 $TOY clean.jsonl
deviate "widths not registered" 'doc["widths"] = [0, 2, 3, 5]' 1 $TOY clean.jsonl
deviate "budgets not registered" 'doc["allocation"]["budgets"] = ["low", "medium", "high"]' 1 $TOY clean.jsonl
deviate "order seeds" 'doc["allocation"]["order_seeds"] = 2' 1 $TOY clean.jsonl
deviate "split sizes" 'doc["allocation"]["splits"] = {"explore": 3}' 1 $TOY clean.jsonl
deviate "all at once" 'doc.update(registered_at="2026-08-15T00:00:00Z", candidates="sha256:" + "1" * 64, widths=[0, 10], exclusions=[]); doc["allocation"].update(order_seeds=1, budgets=[], splits={"confirm": 4})' 1 $TOY clean.jsonl
LUNA="--spec $L/spec.json $L/ledger.jsonl"
deviate "luna: games before registered_at, widths" 'doc["registered_at"] = "2026-06-26T00:00:00Z"' 1 $LUNA
deviate "luna: the registered widths" 'doc.update(registered_at="2026-06-01T00:00:00Z", widths=[0, 2, 3, 5, 10])' 0 $LUNA

# a freeze without --prereg names none (and its bytes do not change)
"$COHORT" freeze $TOY clean.jsonl >plain.json 2>/dev/null
$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(any(k in d for k in ("prereg","preregistration","deviations")))' plain.json &&
	ok "freeze without --prereg: no prereg fields" || notok "freeze without --prereg: no prereg fields" "present"
"$COHORT" freeze --prereg "$P" --store pst -o pf.json $TOY clean.jsonl 2>/dev/null
check "freeze --prereg: the manifest validates against schemas/freeze.schema.json" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/freeze.schema.json" pf.json
$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); c=json.load(open(sys.argv[2])); sys.exit(not (d["prereg"] == c["prereg"] and d["deviations"] == []))' pf.json check.json &&
	ok "freeze --prereg: names the prereg by its identity" || notok "freeze --prereg: names the prereg by its identity" "$(head -c 200 pf.json)"
# tampering: a deviation added, the prereg swapped
$PY -c '
import json,sys; d=json.load(open("pf.json")); d["deviations"]=[{"setting":"x","registered":"1","used":"2"}]; open("t1.json","w").write(json.dumps(d))
d=json.load(open("pf.json")); d["preregistration"]["blunder_cp"]=301; open("t2.json","w").write(json.dumps(d))'
expect_status "verify: a deviations list edited is a finding" 1 "$COHORT" verify --store pst t1.json
grep -q '"check":"derivation","detail":[^}]*"ok":false,"subject":"deviations"' "$TMP/out" && ok "verify names the deviations section" ||
	notok "verify names the deviations section" "$(head -c 400 "$TMP/out")"
expect_status "verify: a prereg that is not the one named is a finding" 1 "$COHORT" verify --store pst t2.json
grep -q 'is not the identity of' "$TMP/out" && ok "verify says the prereg is not the one named" ||
	notok "verify says the prereg is not the one named" "$(head -c 400 "$TMP/out")"
expect_fail2 "freeze --prereg: a bad prereg is an input error" 'nothere\.json' "$COHORT" freeze --prereg nothere.json $TOY clean.jsonl
