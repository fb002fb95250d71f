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
gate = {"heldout_assistance": "C", "architectural": "D", "intervention": "D"}
want = {"kind": "cohort.prereg.check/1", "name": doc["name"], "prereg": "sha256:" + hashlib.sha256(canon).hexdigest(),
        "registered_at": doc["registered_at"], "candidates": "sha256:" + doc["candidates"].replace("sha256:", ""),
        "notes": [], "predictions": [{"id": p["id"], "index": i, "kind": p["kind"], "gate": gate[p["kind"]]}
                                     for i, p in enumerate(doc["predictions"])]}
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
# an unknown feature: the nearest known name and the registry's whole list
plant "an unknown feature" 'doc["features"][1] = "delta_rr"' "^cohort prereg: bad\\.json:[0-9]+: \"features\": 1: unknown feature \"delta_rr\" \\(nearest: delta_r; known: $(paste -sd, reg.txt | sed 's/,/, /g')\\)\$"
plant "a misspelt feature" 'doc["features"][0] = "overload_2_1O"' '"features": 0: unknown feature "overload_2_1O" \(nearest: overload_2_10; known: unaided, r_k, '
plant "an indexed name among the features" 'doc["features"][0] = "delta_r[5]"' '"features": 0: "delta_r\[5\]": this list names base features \(delta_r\)' noschema
plant "a field missing" 'del doc["blunder_cp"]' 'bad\.json:1: "blunder_cp": missing'
plant "widths out of order" 'doc["widths"] = [0, 5, 2]' 'bad\.json:[0-9]+: "widths": 2: widths must be distinct and increasing' noschema
plant "a width given twice" 'doc["widths"] = [0, 2, 2]' '"widths": 2: widths must be distinct'
plant "a fractional width" 'doc["widths"] = [0, 2.5]' '"widths": 1: expected a whole number from 0 to 64'
plant "a width past 64" 'doc["widths"] = [0, 65]' '"widths": 1: expected a whole number'
plant "no width" 'doc["widths"] = []' '"widths": expected at least one width'
plant "a bad time" 'doc["registered_at"] = "2026-07-25 00:00"' '"registered_at": expected an RFC 3339 time'
plant "a bad manifest identity" 'doc["candidates"] = "sha256:ABC"' '"candidates": expected 64 lowercase hex digits \(sha256: before them or not\)'
plant "a manifest named by 63 digits" 'doc["candidates"] = "0" * 63' '"candidates": expected 64 lowercase hex digits'
plant "an unknown split" 'doc["allocation"]["splits"]["train"] = 5' '"allocation": "splits": "train": expected explore, confirm or heldout'
plant "a zero split" 'doc["allocation"]["splits"]["explore"] = 0' '"allocation": "splits": "explore": expected a whole number from 1'
plant "zero order seeds" 'doc["allocation"]["order_seeds"] = 0' '"allocation": "order_seeds": expected a whole number from 1'
plant "a budget twice" 'doc["allocation"]["budgets"] = ["low", "low"]' '"allocation": "budgets": 1: "low" given twice'
plant "an unknown exclusion" 'doc["exclusions"].append("late")' '"exclusions": 4: unknown exclusion "late"'
plant "a negative lambda" 'doc["distance"]["lambda"] = -1' '"distance": "lambda": expected a number from 0'
plant "an unknown population" 'doc["distance"]["population"] = "world"' '"distance": "population": expected panel or none'
plant "an unknown unit" 'doc["bootstrap"]["unit"] = "move"' '"bootstrap": "unit": expected opening or position'
plant "a fractional seed" 'doc["bootstrap"]["seed"] = 1.5' '"bootstrap": "seed": expected a whole number'
plant "a prediction of an unknown kind" 'doc["predictions"][0]["kind"] = "guess"' '"predictions": 0: "kind": expected heldout_assistance'
plant "a prediction on an unknown feature" 'doc["predictions"][1]["feature"] = "delta_rx"' '"predictions": 1: "feature": unknown feature "delta_rx" \(nearest: delta_r; '
plant "a prediction on an index of the wrong kind" 'doc["predictions"][1]["feature"] = "delta_r[x]"' '"predictions": 1: "feature": unknown index of feature "delta_r\[x\]" \(delta_r takes a width'
plant "an empty text prediction" 'doc["predictions"].append("")' '"predictions": 2: expected an object or a text'
plant "a number as a prediction" 'doc["predictions"].append(3)' '"predictions": 2: expected an object or a text'
plant "a predictor unknown" 'doc["predictions"][0]["predictors"].append("luck")' '"predictions": 0: "predictors": 2: unknown feature "luck"'
plant "a prediction id twice" 'doc["predictions"][1]["id"] = "assist-5"' '"predictions": 1: "id": "assist-5" given twice' noschema
plant "a relation unknown" 'doc["predictions"][1]["relation"] = ">="' '"predictions": 1: "relation": expected > or <'
plant "a kind other than cohort.prereg/1" 'doc["kind"] = "cohort.spec/1"' '"kind": expected cohort.prereg/1'
# the line named is the line of the bad value
plant "an unknown feature (its line)" 'doc["features"][1] = "delta_rr"' "^cohort prereg: bad\\.json:$(awk '/"features"/{print NR + 2; exit}' "$P"): "
printf '{"kind":"cohort.prereg/1","kind":"cohort.prereg/1"}' >dup.json
expect_fail2 "prereg refuses a duplicate key" 'dup\.json:1:[0-9]+: duplicate key "kind"' "$COHORT" prereg dup.json
expect_fail2 "prereg refuses a missing file" 'nothere\.json' "$COHORT" prereg nothere.json

# ---- a prereg as researchers write it: fields cohort does not interpret
# kept (hashed with it, listed as notes, never used), text predictions, the
# manifest named by what sha256sum prints
$PY - "$P" harness.json <<'PYEOF'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["families"] = ["alpha", "beta"]
doc["harness"] = {"repo": "harness", "commit": "0" * 40}
doc["decisions_expected"] = 120
doc["bootstrap"]["blocks"] = "openings"
doc["predictions"][1]["why"] = "beta searches wider"
doc["predictions"].insert(1, "Beta gains more from a short list than alpha does.")
doc["predictions"].append("Neither family's k curve is flat.")
doc["candidates"] = doc["candidates"][7:]
open(sys.argv[2], "w").write(json.dumps(doc, indent=1) + "\n")
PYEOF
expect_status "prereg: fields not interpreted, text predictions and a bare hex manifest read" 0 \
	"$COHORT" prereg harness.json
cp "$TMP/out" harness.check
$PY - harness.json harness.check >py.txt <<'PYEOF'
import hashlib, json, sys
doc = json.load(open(sys.argv[1])); got = json.load(open(sys.argv[2]))
canon = json.dumps(doc, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode()
want_notes = ['"families"', '"harness"', '"decisions_expected"', '"bootstrap": "blocks"', '"predictions": 2: "why"']
kinds = [p if isinstance(p, str) else p["kind"] for p in doc["predictions"]]
errs = []
if got["prereg"] != "sha256:" + hashlib.sha256(canon).hexdigest(): errs.append("identity: the kept fields are hashed")
if sorted(got["notes"]) != sorted(want_notes): errs.append("notes %r" % got["notes"])
if [p["kind"] for p in got["predictions"]] != ["text" if isinstance(k, str) and " " in k else k for k in kinds]: errs.append("kinds")
if [p["gate"] for p in got["predictions"] if p["kind"] == "text"] != [None, None]: errs.append("text gates")
if got["candidates"] != "sha256:" + doc["candidates"]: errs.append("candidates")
print("ok" if not errs else "; ".join(errs))
PYEOF
[ "$(cat py.txt)" = ok ] && ok "prereg: notes, text predictions and the manifest as python reads them" ||
	notok "prereg: notes, text predictions and the manifest as python reads them" "$(cat py.txt)"
"$COHORT" prereg --format table harness.json >harness.txt
$PY - harness.check harness.txt <<'PYEOF' >py.txt
import json, sys
c = json.load(open(sys.argv[1])); t = open(sys.argv[2]).read().splitlines()
want = ["prereg " + c["name"], "identity       " + c["prereg"], "registered_at  " + c["registered_at"],
        "candidates     " + c["candidates"], "", "%-5s %-24s %-18s %s" % ("index", "id", "kind", "checked by")]
want += ["%-5d %-24s %-18s %s" % (p["index"], p["id"] or "-", p["kind"], "gate " + p["gate"] if p["gate"] else "no machine (text)")
         for p in c["predictions"]]
want += ["", "not interpreted (kept and hashed with the prereg): " + ", ".join(c["notes"])]
print("ok" if t == want else "\n".join("%r | %r" % x for x in zip(t, want) if x[0] != x[1]))
PYEOF
[ "$(cat py.txt)" = ok ] && ok "prereg --format table: every line as python writes it from the check" ||
	notok "prereg --format table: every line as python writes it" "$(cat py.txt)"
check "prereg: the harness's prereg validates against the schema" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/prereg.schema.json" harness.json

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
# a manifest another tool wrote (python's json.dumps: spaces, its own key
# order): the prereg may name it by the file's sha256 or by its identity;
# which one is recorded in the freeze's decisions section
$PY -c 'import json,sys
for l in open(sys.argv[1]): print(json.dumps(json.loads(l)))' "$T/candidates.jsonl" >foreign.jsonl
FSUM=$(sha256sum foreign.jsonl | cut -d" " -f1)
FOREIGN="--spec $T/spec.json --candidates foreign.jsonl --decisions"
deviate "a foreign manifest named by sha256sum of its file" "doc[\"candidates\"] = \"$FSUM\"" 0 $FOREIGN clean.jsonl
named_by() {
	$PY -c 'import json,sys; s=json.load(open(sys.argv[1]))["decisions"]; print(s.get("candidates_named_by"), s.get("candidates_file"))' dfz.json
}
[ "$(named_by)" = "file sha256:$FSUM" ] && ok "freeze: the prereg named the manifest's file, as recorded" ||
	notok "freeze: the prereg named the manifest's file, as recorded" "$(named_by)"
"$COHORT" paired --prereg dev.json --store dst dfz.json >fpd.json 2>/dev/null
$PY -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["deviations"] != [])' fpd.json &&
	ok "paired --prereg: a manifest named by its file is no deviation" ||
	notok "paired --prereg: a manifest named by its file is no deviation" "$(head -c 300 fpd.json)"
deviate "a foreign manifest named by its identity" 'pass' 0 $FOREIGN clean.jsonl
[ "$(named_by | cut -d" " -f1)" = identity ] && ok "freeze: the prereg named the manifest's identity, as recorded" ||
	notok "freeze: the prereg named the manifest's identity, as recorded" "$(named_by)"
deviate "a foreign manifest named by another file" 'doc["candidates"] = "ab" * 32' 1 $FOREIGN clean.jsonl
[ "$(named_by | cut -d" " -f1)" = None ] && ok "freeze: a prereg naming another manifest records null" ||
	notok "freeze: a prereg naming another manifest records null" "$(named_by)"
# the file's hash is checked again: another one named is a finding
deviate "a foreign manifest named by sha256sum of its file (again)" "doc[\"candidates\"] = \"$FSUM\"" 0 $FOREIGN clean.jsonl
$PY -c 'import json,sys; d=json.load(open("dfz.json")); d["decisions"]["candidates_file"]="sha256:"+"cd"*32; open("t3.json","w").write(json.dumps(d))'
expect_status "verify: another file named for the manifest is a finding" 1 "$COHORT" verify --store dst t3.json
grep -q '"candidate manifest is not in the store"\|the candidate manifest is not in the store' "$TMP/out" &&
	ok "verify says the manifest's file is not in the store" || notok "verify says the manifest's file is not in the store" "$(head -c 400 "$TMP/out")"
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
