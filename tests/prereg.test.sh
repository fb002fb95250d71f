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
