# canon-stream.test.sh: `cohort canon` streams: the same bytes and the same
# refusals as the tree path, in memory bounded by what RFC 8785 makes it
# hold (an object until it closes), not by the document.
D=$ROOT/tests/data
U=$BUILD/tests/unit/canon_stream

# Documents whose refusal comes on a later line, past the first blocks,
# or inside a token cut by a block's end.
printf '[1,\n2,\n{"a":1,\n "b":2, "a":3}]' >s-dup.json
printf '{"z":{"y":1,"x":2,"y":3},\n"a":[1e400]}' >s-nested-dup.json
printf '\357\273\277[1]' >s-bom.json
printf '["abc\\u12"]' >s-esc.json
printf '["\\ud83d\\ude00", "\\ud83d"]' >s-pair.json
printf '["\302\251\342\202\254\360\237\230\200", "\342\202"]' >s-utf8.json
printf '[tru' >s-word.json
printf '[1.5e' >s-exp.json
printf '{"a" 1}' >s-colon.json
printf '{"a":1 "b":2}' >s-comma.json
printf '[1]\n\n  x' >s-trail.json
printf '\n\n\n' >s-empty.json
awk 'BEGIN { printf "["; for (i = 0; i < 100000; i++) printf "%d,\n", i; printf "\"\\q\"]" }' >s-late.json
awk 'BEGIN { printf "{"; for (i = 0; i < 3000; i++) printf "\"k%d\":[%d.25,\"\\u00e9%d\"],", (i * 7919) % 3000, i, i;
	printf "\"k17\":0}" }' >s-bigdup.json
awk 'BEGIN { printf "{"; for (i = 0; i < 3000; i++) printf "%s\"k%d\":{\"b\":%d,\"a\":\"\\n\"}", i ? "," : "", (i * 7919) % 3000, i;
	printf "}" }' >s-bigobj.json
{ printf '['; paste -sd, "$ROOT/examples/luna/ledger.jsonl"; printf ']'; } >s-luna.json
# runs of numbers read at once: blanks after commas, numbers not canonical
# among them, runs longer than a read's, nested, and refused midway
awk 'BEGIN { printf "{\"a\":[0"; for (i = 1; i < 3000; i++) printf ",%s%d%s", i % 3 ? " " : "\t", i, i % 7 ? "" : ".50";
	printf ", 1e5, -0.0, [6, 7], 8.5,9],\"b\":[[1,2],[3, 4]]}" }' >s-runs.json
awk 'BEGIN { printf "["; for (i = 0; i < 500; i++) printf "%d, ", i; printf ", 3]" }' >s-runbad.json
awk 'BEGIN { printf "[0"; for (i = 1; i < 500; i++) printf ", %d", i; printf ",\n 05]" }' >s-runzero.json
set -- "$D"/json-parsing/test_parsing/*.json "$D"/jcs/input/*.json "$ROOT"/examples/*/*.json s-*.json
"$U" "$@" >stream.txt 2>&1
rc=$?
if [ $rc = 0 ] && [ "$(grep -c '^same ' stream.txt)" = $# ]; then
	ok "stream and tree agree, byte for byte and refusal for refusal, on $# files, in memory and in blocks of 1 to 4096 bytes"
else
	notok "stream and tree agree on $# files" "$(grep -v '^same ' stream.txt | head -5)"
fi

# The refusals as the command words them, exit 2, nothing on stdout.
expect_fail2 "a duplicate key after three lines" '^cohort canon: s-dup.json:4:9: duplicate key "a"$' \
	"$COHORT" canon s-dup.json
expect_fail2 "a nested object's duplicate, at its close" \
	'^cohort canon: s-nested-dup.json:1:19: duplicate key "y"$' "$COHORT" canon s-nested-dup.json
expect_fail2 "a bad escape on line 100,001, megabytes in" \
	'^cohort canon: s-late.json:100001:2: bad escape in string$' "$COHORT" canon s-late.json
expect_fail2 "the byte-order mark" '^cohort canon: s-bom.json:1:1: byte-order mark not allowed$' \
	"$COHORT" canon s-bom.json
expect_fail2 "a lone high surrogate after a pair" '^cohort canon: s-pair.json:1:19: lone surrogate escape$' \
	"$COHORT" canon s-pair.json
expect_fail2 "trailing data two lines down" '^cohort canon: s-trail.json:3:3: trailing data after the value$' \
	"$COHORT" canon s-trail.json
expect_fail2 "a comma twice after a run of 500 numbers" \
	'^cohort canon: s-runbad.json:1:2392: unexpected character$' "$COHORT" canon s-runbad.json
expect_fail2 "a leading zero after a run, a line down" \
	'^cohort canon: s-runzero.json:2:2: bad number: leading zero$' "$COHORT" canon s-runzero.json
expect_fail2 "nothing but white space" '^cohort canon: s-empty.json:4:1: unexpected end of input$' \
	"$COHORT" canon s-empty.json
expect_fail2 "a duplicate in an object of 3001 members" \
	'^cohort canon: s-bigdup.json:1:[0-9]+: duplicate key "k17"$' "$COHORT" canon s-bigdup.json

# Independent bytes: node's RFC 8785 (tests/es-numbers.js) of real records
# as one array and of one object of 3000 members, each holding an object.
for f in s-luna.json s-bigobj.json; do
	node "$ROOT/tests/es-numbers.js" canon "$f" >"node-$f"
	"$COHORT" canon "$f" >"ours-$f"
	same_bytes "$f streamed as node canonicalizes it" "ours-$f" "node-$f"
done

# A million doubles from random bit patterns and every power of two, as
# node's Number::toString writes them (canonical already, so they must come
# back unchanged) and as toPrecision(17) writes them (17 digits, through
# strtod and canon_number, to the same bytes).
node "$ROOT/tests/es-numbers.js" doubles 1000000 | cut -d, -f2 >doubles.txt
{ printf '['; paste -sd, doubles.txt | tr -d '\n'; printf ']'; } >doubles.json
node -e 'const t = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n");
	process.stdout.write("[" + t.map(x => Number(x).toPrecision(17)).join(",") + "]")' doubles.txt >doubles17.json
"$COHORT" canon doubles.json >ours-doubles.json
same_bytes "a million doubles as node writes them stream through unchanged" ours-doubles.json doubles.json
"$COHORT" canon doubles17.json >ours-doubles17.json
same_bytes "the same million with 17 digits each, canonicalized as node writes them" \
	ours-doubles17.json doubles.json
rm -f doubles.txt doubles*.json ours-doubles*.json

# Memory: 200 MB of records in one array, streamed record by record.  The
# expected bytes are made apart: the record's canonical bytes, repeated.
head -n 1 "$ROOT/examples/luna/ledger.jsonl" >rec.json
"$COHORT" canon rec.json >rec-canon.json
n=140000
# sanitized, memory is the sanitizer's: the bytes only, of fewer records
[ -n "${COHORT_SANITIZED:-}" ] && n=10000
{ printf '['; yes "$(cat rec.json)," | head -n $n; printf '0]'; } >big.json
want=$({ printf '['; yes "$(cat rec-canon.json)," | head -n $n | tr -d '\n'; printf '0]'; } | sha256sum | cut -c1-64)
size=$(wc -c <big.json)
if [ -n "${COHORT_SANITIZED:-}" ]; then
	"$COHORT" canon --id big.json >big-id.txt 2>big.err
	if [ "$(cat big-id.txt)" = "sha256:$want" ]; then ok "canon --id of $n records"; else
		notok "canon --id of $n records" "$(cat big-id.txt big.err)"; fi
elif [ -x /usr/bin/time ]; then
	/usr/bin/time -f %M -o rss.txt "$COHORT" canon --id big.json >big-id.txt 2>big.err
	rss=$(tail -n 1 rss.txt)
	if [ "$(cat big-id.txt)" = "sha256:$want" ] && [ "$rss" -lt 65536 ]; then
		ok "canon --id of $size bytes of records: the right identity, $rss kB peak (under 64 MB)"
	else
		notok "canon --id of $size bytes within 64 MB" "$(cat big-id.txt big.err) peak $rss kB"
	fi
	/usr/bin/time -f %M -o rss.txt "$COHORT" canon big.json 2>big.err | sha256sum | cut -c1-64 >big-sum.txt
	rss=$(tail -n 1 rss.txt)
	if [ "$(cat big-sum.txt)" = "$want" ] && [ "$rss" -lt 65536 ]; then
		ok "canon of $size bytes to standard output: the right bytes, $rss kB peak (under 64 MB)"
	else
		notok "canon of $size bytes to standard output within 64 MB" "$(cat big.err) peak $rss kB"
	fi
fi
# The address space too: 128 MB, of which the shared libraries take some 57 MB
# (the tree reader needs ten times the document's size).
if [ -n "${COHORT_SANITIZED:-}" ]; then
	:
elif (ulimit -v 131072 && "$COHORT" canon -o big-out.json big.json) 2>big.err &&
	[ "$(sha256sum <big-out.json | cut -c1-64)" = "$want" ]; then
	ok "canon -o of $size bytes within 128 MB of address space"
else
	notok "canon -o of $size bytes within 128 MB of address space" "$(cat big.err)"
fi
rm -f big-out.json

# A refusal at the end of a document larger than what stdout's spool keeps
# in memory: into a pipe, nothing is written and the spool's temporary
# file is gone; into a regular file, it is cut back to where it ended.
mkdir spool
{ printf '['; yes "$(cat rec.json)," | head -n 13000; printf ']'; } >late-bad.json
{ TMPDIR=$TMP/spool "$COHORT" canon late-bad.json 2>late.err; echo $? >late.rc; } | wc -c >late.bytes
if [ "$(cat late.rc)" = 2 ] && [ "$(cat late.bytes)" = 0 ] &&
	grep -q '^cohort canon: late-bad.json:13001:1: unexpected character$' late.err; then
	ok "a refusal after 20 MB writes nothing into a pipe, exit 2"
else
	notok "a refusal after 20 MB into a pipe" "exit $(cat late.rc), $(cat late.bytes) bytes, $(cat late.err)"
fi
if [ -z "$(ls spool)" ]; then ok "no spool file left"; else notok "no spool file left" "$(ls spool)"; fi
expect_fail2 "a refusal after 20 MB leaves a file on stdout empty" \
	'^cohort canon: late-bad.json:13001:1: unexpected character$' "$COHORT" canon late-bad.json
printf 'kept\n' >kept.txt
cp kept.txt appended.txt
{ "$COHORT" canon late-bad.json; "$COHORT" canon rec.json; } >>appended.txt 2>/dev/null
cat kept.txt rec-canon.json >want-appended.txt
same_bytes "appended to, a file on stdout is cut back to its old end, and the next run goes on from there" \
	appended.txt want-appended.txt
rm -f big.json late-bad.json
