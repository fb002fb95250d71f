# canon.test.sh: RFC 8785 vectors, JSONTestSuite, number text, errors.
D=$ROOT/tests/data

for f in "$D"/jcs/input/*.json; do
	n=$(basename "$f")
	"$COHORT" canon "$f" >"$TMP/$n" 2>"$TMP/err"
	same_bytes "jcs vector $n" "$TMP/$n" "$D/jcs/output/$n"
done
check "es6 number text, 10000 lines" "$BUILD/tests/unit/numbers" "$D/jcs/es6testfile10k.txt"

# Number text against an independent ECMAScript implementation (node):
# a million doubles from random bit patterns and every power of two (2^-24
# is 5.960464477539063e-8, 16 digits, though 5.9604644775390625e-8 is exact).
ES=$ROOT/tests/es-numbers.js
node "$ES" hex "$D/jcs/es6testfile10k.txt" >es10k.txt
same_bytes "node writes the es6 file's numbers as the file does" es10k.txt "$D/jcs/es6testfile10k.txt"
node "$ES" doubles 1000000 >es.txt
check "a million random doubles and every power of two, as node writes them" \
	"$BUILD/tests/unit/numbers" es.txt
for f in "$D"/jcs/input/*.json; do
	n=$(basename "$f")
	node "$ES" canon "$f" >"node-$n"
	"$COHORT" canon "$f" >"ours-$n"
	same_bytes "jcs vector $n as node canonicalizes it" "ours-$n" "node-$n"
done
# The same numbers through the reader, in several texts each (17 and 15
# digits, and in plain notation's range), as one array, and as ledger
# records, where the flat reader must agree with the tree reader.
node "$ES" texts 200000 >texts.txt
{ printf '['; paste -sd, texts.txt; printf ']'; } >texts.json
node "$ES" canon texts.json >node-texts.json
"$COHORT" canon texts.json >ours-texts.json
if cmp -s ours-texts.json node-texts.json; then ok "404,196 doubles in 1.2 million texts, canonicalized as node does"; else
	notok "404,196 doubles in 1.2 million texts, canonicalized as node does" \
		"$(tr , '\n' <node-texts.json >node-texts.txt; tr , '\n' <ours-texts.json | diff - node-texts.txt | head -4)"
fi
head -n 1 "$ROOT/examples/luna/ledger.jsonl" >record.json
{ head -n 12000 texts.txt; tail -n 12588 texts.txt; } | sed 's/^-//' | awk 'NR == FNR { t = $0; next }
	{ s = t; sub(/"wall_s":[^,}]*/, "\"wall_s\":" $0, s); print s }' record.json - >numbers.jsonl
check "flat and tree readers agree on records holding those numbers" \
	"$BUILD/tests/unit/rec_diff" "$ROOT/examples/luna/spec.json" 0 numbers.jsonl
python3 "$ROOT/mk/pow5.py" >pow5.h
same_bytes "json/pow5.h is what mk/pow5.py prints (its formulas checked on the way)" pow5.h "$ROOT/json/pow5.h"
python3 "$ROOT/mk/pow10.py" >pow10.h
same_bytes "json/pow10.h is what mk/pow10.py prints" pow10.h "$ROOT/json/pow10.h"

# Every y_ case is accepted, but the two duplicate-key ones our contract refuses.
cd "$D/json-parsing/test_parsing"
"$BUILD/tests/unit/jsonsuite" y_*.json >"$TMP/y" 2>&1
want_dup="y_object_duplicated_key.json y_object_duplicated_key_and_value.json"
bad=$(grep -v '^accept' "$TMP/y" | grep -v -e '^reject y_object_duplicated_key.json: .*duplicate key' \
	-e '^reject y_object_duplicated_key_and_value.json: .*duplicate key')
if [ -z "$bad" ] && [ "$(grep -c '^accept' "$TMP/y")" = 93 ]; then ok "json y_ accepted (93 + 2 duplicate-key refusals)"; else notok "json y_" "$bad"; fi
"$BUILD/tests/unit/jsonsuite" n_*.json >"$TMP/n" 2>&1
bad=$(grep -v '^reject' "$TMP/n")
if [ -z "$bad" ] && [ "$(grep -c '^reject' "$TMP/n")" = 188 ]; then ok "json n_ all 188 refused"; else notok "json n_" "$bad"; fi
"$BUILD/tests/unit/jsonsuite" i_*.json >"$TMP/i" 2>&1
rc=$?
if [ $rc -le 1 ] && [ "$(grep -c -E '^(accept|reject)' "$TMP/i")" = 35 ]; then ok "json i_ no crash"; else notok "json i_" "exit $rc"; fi
for f in n_*.json; do
	"$COHORT" canon "$f" >/dev/null 2>"$TMP/e"
	rc=$?
	if [ $rc != 2 ] || ! grep -Eq "^cohort canon: n_.*:[0-9]+:[0-9]+: " "$TMP/e"; then
		notok "canon refuses $f with file:line:col" "exit $rc $(cat "$TMP/e")"
	fi
done
ok "canon exit 2 with file:line:col on every n_ case"
cd "$TMP"

printf '{"a":1,\n "b":2, "a":3}' >dup.json
expect_fail2 "duplicate key names line and column" '^cohort canon: dup.json:2:9: duplicate key "a"' "$COHORT" canon dup.json
printf '[1e400]' >big.json
expect_fail2 "number out of range" 'big.json:1:2: number out of double range' "$COHORT" canon big.json
printf '["\\ud800"]' >sur.json
expect_fail2 "lone surrogate" 'sur.json:1:3: lone surrogate' "$COHORT" canon sur.json
printf '{"a":1} x' >trail.json
expect_fail2 "trailing data" 'trail.json:1:9: trailing data' "$COHORT" canon trail.json
printf '["\377"]' >bin.json
expect_fail2 "invalid UTF-8" 'bin.json:1:3: invalid UTF-8' "$COHORT" canon bin.json
printf '{"a":[1,2' >trunc.json
expect_fail2 "truncated" 'trunc.json:1:10: ' "$COHORT" canon trunc.json
awk 'BEGIN{for(i=0;i<257;i++)printf "[";for(i=0;i<257;i++)printf "]"}' >deep.json
expect_fail2 "nesting limit 256" 'deep.json:1:257: nesting deeper than 256' "$COHORT" canon deep.json
awk 'BEGIN{for(i=0;i<256;i++)printf "[";for(i=0;i<256;i++)printf "]"}' >deep256.json
expect_status "nesting of 256 is fine" 0 "$COHORT" canon deep256.json
expect_fail2 "missing file" 'nope.json: cannot open' "$COHORT" canon nope.json
expect_fail2 "unknown option" "unknown option" "$COHORT" canon --bogus

printf ' {"b": [1.0, -0, 1e21, 1e-7], "a": "\\u00e9\\n"} ' >doc.json
"$COHORT" canon doc.json >c.json
printf '{"a":"\303\251\\n","b":[1,0,1e+21,1e-7]}' >want.json
same_bytes "canon of a small document" c.json want.json
"$COHORT" canon --id doc.json >id.txt
printf 'sha256:%s\n' "$(sha256sum <want.json | cut -c1-64)" >want-id.txt
same_bytes "--id is sha256 of the canonical bytes (checked with sha256sum)" id.txt want-id.txt
"$COHORT" canon <doc.json >c2.json
same_bytes "canon reads stdin" c2.json want.json
"$COHORT" canon -o out.json doc.json
same_bytes "canon -o writes the file" out.json want.json
cp want.json keep.json
"$COHORT" canon -o keep.json dup.json 2>/dev/null
same_bytes "failed run leaves the old -o file" keep.json want.json
if ls keep.json.cohort-tmp.* >/dev/null 2>&1; then notok "no temporary left" "$(ls)"; else ok "no temporary left"; fi
expect_fail2 "-o into a missing folder" "cannot write" "$COHORT" canon -o /nonexistent/dir/x.json doc.json
if [ -w /dev/full ]; then
	"$COHORT" canon doc.json >/dev/full 2>full.err
	rc=$?
	if [ $rc = 2 ] && grep -q 'write error' full.err; then ok "a full disk on stdout is an error, exit 2"; else notok "stdout to /dev/full" "exit $rc $(cat full.err)"; fi
fi
