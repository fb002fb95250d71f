# reconcile.test.sh: cohort reconcile: a clean fixture reconciles and its
# figures match an independent recomputation; each kind of discrepancy,
# planted alone and all together, is found, named and counted in the right
# condition and nothing else is; billing formats (provider CSV with a map,
# BOM, CRLF, quoted fields; JSON Lines with dotted paths); malformed input
# refused with file:line; the DeepSeek example gives the published table.
D=$ROOT/tests/data/reconcile
P="/usr/bin/python3 $D/plant.py"
SCHEMA=$ROOT/schemas/reconcile.schema.json

# fixture DIR: a copy of the fixture with its freeze (from the unplanted ledger).
fixture() {
	rm -rf "$1"
	mkdir -p "$1"
	cp "$D"/spec.json "$D"/ledger.jsonl "$D"/requests.jsonl "$D"/billing.csv "$1"/
	"$COHORT" freeze --spec "$1/spec.json" -o "$1/freeze.json" "$1/ledger.jsonl"
}
# rec DIR [OPTIONS]: reconcile DIR's files.
rec() {
	_d=$1
	shift
	"$COHORT" reconcile --freeze "$_d/freeze.json" --ledger "$_d/ledger.jsonl" \
		--requests "$_d/requests.jsonl" "$@"
}

fixture base
rec base --billing base/billing.csv -o base.json
rc=$?
[ $rc = 0 ] && ok "clean fixture reconciles (exit 0)" || notok "clean fixture reconciles" "exit $rc"
check "report matches the schema" /usr/bin/python3 "$ROOT/tests/validate.py" "$SCHEMA" base.json
check "figures equal an independent recomputation from the inputs" $P sums base base.json
$P findings base.json >base.find
[ ! -s base.find ] && ok "clean fixture: no findings" || notok "clean fixture: no findings" "$(head -3 base.find)"
grep -q '"reconciled":true' base.json && ok "reconciled true" || notok "reconciled true" "$(head -c 200 base.json)"
# By hand: none has g1 (2500+450+300) and g2 (800+120+40): 4210 tokens over 2 games.
/usr/bin/python3 -c '
import json,sys
r = json.load(open("base.json"))
c = {x["condition"]: x for x in r["conditions"]}
assert c["none"]["tokens_per_clean_game"] == 2105, c["none"]
assert c["top2"]["tokens_per_clean_game"] == 3360, c["top2"]
assert c["top2"]["provider_error_games"] == 1 and c["top2"]["provider_error_requests"] == 1
assert c["top2"]["provider_error_tokens"]["input"] == 700
assert r["totals"]["tokens"]["recorded"]["total"] == 10930
assert r["inputs"]["ledgers"][0]["name"] == "ledger.jsonl"
' 2>err.txt && ok "hand-computed tokens per clean game, provider-error game counted apart" ||
	notok "hand-computed figures" "$(tail -2 err.txt)"
want=$(sha256sum base/billing.csv | cut -c1-64)
grep -q "\"billing\":\[{\"name\":\"billing.csv\",\"sha256\":\"sha256:$want\"}\]" base.json &&
	ok "inputs: billing by base name and sha256 of its bytes (checked with sha256sum)" ||
	notok "inputs by identity" "$(head -c 300 base.json)"
fid=$("$COHORT" canon --id base/freeze.json)
grep -q "\"freeze\":{\"id\":\"$fid\"" base.json && ok "inputs: the freeze by its identity" ||
	notok "freeze identity" "$fid"

# Same bytes from another folder with absolute paths, and under another TZ.
mkdir -p elsewhere
(cd elsewhere && TZ=Asia/Kolkata "$COHORT" reconcile --freeze "$TMP/base/freeze.json" \
	--ledger "$TMP/base/ledger.jsonl" --requests "$TMP/base/requests.jsonl" \
	--billing "$TMP/base/billing.csv" -o ../again.json)
same_bytes "same report from another folder, absolute paths, another TZ" base.json again.json

# Each kind alone, then all together.
kinds="missing_game identity_mismatch stale_freeze game_without_requests game_requests
game_tokens wall_time request_without_game unbilled_request duplicate_billing billed_tokens
unmatched_billing failed_request retry model_changed"
for k in $kinds; do
	fixture "p_$k"
	$P plant "p_$k" "$k" >"p_$k.want"
	rec "p_$k" --billing "p_$k/billing.csv" -o "p_$k.json"
	rc=$?
	$P findings "p_$k.json" >"p_$k.got" 2>"p_$k.err"
	crc=$?
	if [ $rc != 1 ]; then
		notok "planted $k: exit 1" "exit $rc"
	elif [ $crc != 0 ]; then
		notok "planted $k: counts per condition agree with the list" "$(cat "p_$k.err")"
	elif ! cmp -s "p_$k.want" "p_$k.got"; then
		notok "planted $k: found, in its condition, and nothing else" "$(diff "p_$k.want" "p_$k.got" | head -6)"
	else
		ok "planted $k: found, named, in its condition, nothing else"
	fi
done
fixture p_all
# shellcheck disable=SC2086
$P plant p_all $kinds | sort >p_all.want
rec p_all --billing p_all/billing.csv -o p_all.json
rc=$?
$P findings p_all.json >p_all.got 2>p_all.err
crc=$?
if [ $rc = 1 ] && [ $crc = 0 ] && cmp -s p_all.want p_all.got; then
	ok "all kinds planted together: each found once, nothing else"
else
	notok "all kinds together" "exit $rc/$crc $(diff p_all.want p_all.got | head -6) $(cat p_all.err)"
fi
check "report with findings matches the schema" /usr/bin/python3 "$ROOT/tests/validate.py" "$SCHEMA" p_all.json
grep -q '"file":"billing.csv","found":2,"game_id":"g3","kind":"duplicate_billing","line":11' p_duplicate_billing.json &&
	ok "a billing finding names the billing file and line" || notok "billing file:line" "$(grep -o '.\{80\}duplicate_billing.\{60\}' p_duplicate_billing.json)"

# A game live at the cut that ended after it has moved on: not a finding.
fixture moved
/usr/bin/python3 - moved/ledger.jsonl <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
for g in rows:
    if g["game_id"] == "g6":
        g.update(status="terminal", result="draw", ended_at="2026-08-02T10:00:00Z")
open(sys.argv[1], "w").write("".join(json.dumps(g) + "\n" for g in rows))
PY
expect_status "a live game that ended after the cut is no finding" 0 rec moved --billing moved/billing.csv

# The cut, to the nanosecond and across offsets: a game that ended at the
# cut (written +02:00) belongs to the cohort, one that ended a nanosecond
# later does not; freeze and reconcile agree.
fixture edge
/usr/bin/python3 - edge <<'PY'
import json, sys
d = sys.argv[1]
led = [json.loads(l) for l in open(d + "/ledger.jsonl")]
g4 = next(g for g in led if g["game_id"] == "g4")
req = open(d + "/requests.jsonl").read()
bill = open(d + "/billing.csv").read()
for gid, rid, end in (("g9", "r90", "2026-08-01T02:00:00+02:00"), ("g10", "r91", "2026-08-01T00:00:00.000000001Z")):
    g = dict(g4, game_id=gid, requests=[rid], ended_at=end, started_at="2026-07-31T23:00:00Z",
             tokens={"input": 1, "output": 1, "reasoning": 0, "cached": 0})
    led.append(g)
    req += json.dumps({"request_id": rid, "game_id": gid, "ts": "2026-07-31T23:00:00Z",
                       "model": {"requested": "fam-1", "returned": "fam-1"},
                       "tokens": {"input": 1, "output": 1, "reasoning": 0, "cached": 0},
                       "latency_ms": 1, "attempt": 1, "status": "ok"}) + "\n"
    bill += "%s,2026-07-31T23:00:00Z,fam-1,1,1,0,0,0.000001\n" % rid
open(d + "/ledger.jsonl", "w").write("".join(json.dumps(g) + "\n" for g in led))
open(d + "/requests.jsonl", "w").write(req)
open(d + "/billing.csv", "w").write(bill)
PY
rec edge --billing edge/billing.csv -o edge.json
$P findings edge.json >edge.got
echo "stale_freeze top2 g9 - game_id" >edge.want
same_bytes "cut: ended at the cut (other offset) is stale, a nanosecond later is not" edge.got edge.want
"$COHORT" freeze --spec edge/spec.json -o edge/freeze.json edge/ledger.jsonl
expect_status "cut: reconcile agrees with a freeze of the same ledger" 0 rec edge --billing edge/billing.csv

# Tolerance: 7 billed output tokens where 0 were recorded is beyond any
# tolerance; 2% off is within --tolerance 0.05 but not 0.01.
fixture tol
/usr/bin/python3 - tol/billing.csv <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
for r in rows:
    if r[0] == "r4":
        r[3] = "2040"   # recorded 2000: 2% over
open(sys.argv[1], "w", newline="").write("".join(",".join(r) + "\n" for r in rows))
PY
expect_status "2% off: a finding without tolerance" 1 rec tol --billing tol/billing.csv
expect_status "2% off: a finding at --tolerance 0.01" 1 rec tol --billing tol/billing.csv --tolerance 0.01
expect_status "2% off: within --tolerance 0.05" 0 rec tol --billing tol/billing.csv --tolerance 0.05
grep -q '"tolerance":0.05' "$TMP/out" && ok "the report records the tolerance" || notok "tolerance in report" "$(head -c 200 "$TMP/out")"

# Billing formats: a provider CSV (BOM, CRLF, its own column names and
# order, quoted commas, quotes and line breaks, times with offsets, quoted
# numbers) with a column map, and JSON Lines with dotted paths: the same
# figures and findings as the plain CSV.
strip() { /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("inputs"); print(json.dumps(d, sort_keys=True))' "$1"; }
strip base.json >base.cmp
rec base --billing "$D/provider.csv" --billing-map "$D/provider-map.json" -o prov.json
rc=$?
strip prov.json >prov.cmp
[ $rc = 0 ] && cmp -s base.cmp prov.cmp && ok "provider CSV with a column map: same reconciliation" ||
	notok "provider CSV" "exit $rc $(diff base.cmp prov.cmp | head -3)"
grep -q '"billing_map":{"name":"provider-map.json"' prov.json && ok "the map is named among the inputs" || notok "map in inputs" ""
rec base --billing "$D/billing.jsonl" --billing-map "$D/jsonl-map.json" -o jl.json
rc=$?
strip jl.json >jl.cmp
[ $rc = 0 ] && cmp -s base.cmp jl.cmp && ok "JSON Lines billing with dotted paths: same reconciliation" ||
	notok "JSON Lines billing" "exit $rc $(diff base.cmp jl.cmp | head -3)"
head -5 base/billing.csv >b1.csv
tail -n +6 base/billing.csv | sed '1i request_id,ts,model,input_tokens,output_tokens,reasoning_tokens,cached_tokens,cost' >b2.csv
rec base --billing b1.csv --billing b2.csv -o two.json
rc=$?
strip two.json >two.cmp
[ $rc = 0 ] && cmp -s base.cmp two.cmp && ok "billing split over two files: same reconciliation" || notok "two billing files" "exit $rc"
cut -d, -f1-5,8 base/billing.csv >noclass.csv
rec base --billing noclass.csv -o noclass.json
rc=$?
grep -q '"billed":{"cached":null,"input":[0-9]*,"output":[0-9]*,"reasoning":null' noclass.json && [ $rc = 0 ] &&
	ok "billing without reasoning and cached columns: those classes null, not compared" || notok "absent classes" "exit $rc"

# Request lines the fast path leaves to the strict reader (escapes, arrays,
# deeper objects, white space) give the same reconciliation; a duplicate key
# is refused by the strict reader.
mkdir -p slow
cp base/freeze.json base/ledger.jsonl slow/
/usr/bin/python3 - base/requests.jsonl slow/requests.jsonl <<'PY'
import json, sys
out = open(sys.argv[2], "w")
for i, l in enumerate(open(sys.argv[1])):
    r = json.loads(l)
    if i % 3 == 0:
        r["trace"] = {"spans": [1, 2, {"deep": True}]}
    if i % 3 == 1:
        r["note"] = "caf\u00e9 \"quoted\""
    out.write(json.dumps(r, indent=None if i % 2 else 1, ensure_ascii=(i % 2 == 0)).replace("\n", " ") + "\n")
PY
rec slow --billing base/billing.csv -o slow.json
rc=$?
strip slow.json >slow.cmp
[ $rc = 0 ] && cmp -s base.cmp slow.cmp && ok "request lines off the fast path: same reconciliation" ||
	notok "strict path requests" "exit $rc $(diff base.cmp slow.cmp | head -3)"
sed '2s/"status":"ok"/"status":"ok","status":"ok"/' base/requests.jsonl >dupkey.jsonl
expect_fail2 "requests: a duplicate key refused (strict reader)" '^cohort reconcile: dupkey.jsonl:2:[0-9]+: duplicate key "status"' \
	"$COHORT" reconcile --freeze base/freeze.json --ledger base/ledger.jsonl --requests dupkey.jsonl --billing base/billing.csv
sed '3s/"latency_ms":15000/"latency_ms":015000/' base/requests.jsonl >lead0.jsonl
expect_fail2 "requests: a number with a leading zero refused" '^cohort reconcile: lead0.jsonl:3:[0-9]+: ' \
	"$COHORT" reconcile --freeze base/freeze.json --ledger base/ledger.jsonl --requests lead0.jsonl --billing base/billing.csv

check "fast path: 80,000 mutated lines, none accepted that the strict reader refuses, all read alike" \
	"$BUILD/tests/unit/recon_flat" "$(sed -n 1p "$D/requests.jsonl")" \
	'{"a":-0.5e3,"b":{"c":true,"d":false,"e":null},"f":"x"}' '{"n":0,"m":1e-400,"k":"caf\u00e9"}' '{}'

# --db keeps the database; its times are UTC.
rec base --billing "$D/provider.csv" --billing-map "$D/provider-map.json" --db keep.db -o /dev/null
t=$(sqlite3 keep.db "SELECT ts FROM billing WHERE request_id = 'r1'")
[ "$t" = 2026-07-20T10:00:00Z ] && ok "--db: billing time with an offset stored in UTC" || notok "--db UTC" "$t"
n=$(sqlite3 keep.db "SELECT count(*) FROM requests JOIN billing USING (request_id)")
[ "$n" = 9 ] && ok "--db: ad-hoc join over the kept tables" || notok "--db join" "$n"
ls keep.db.cohort-tmp.* >/dev/null 2>&1 && notok "--db leaves no temporary" "$(ls)" || ok "--db leaves no temporary"

# CSV reader, field by field.
printf '\357\273\277a,b,c\r\n"x, y","say ""hi""","two\r\nlines"\r\n,,\r\n1,2,3' >q.csv
"$BUILD/tests/unit/recon_csv" q.csv >q.out
printf '%s\n' 'header:[a][b][c]' '2:[x, y][say "hi"][two\r\nlines]' '4:[][][]' '5:[1][2][3]' \
	"sha256 $(sha256sum q.csv | cut -c1-64)" >q.want
same_bytes "csv: BOM, CRLF, quoted commas, quotes and line breaks, empty fields, no final newline" q.out q.want
csv_bad() { # NAME CONTENT PATTERN
	printf "$2" >bad.csv
	"$BUILD/tests/unit/recon_csv" bad.csv >bad.out
	if [ $? = 2 ] && grep -Eq -- "$3" bad.out; then ok "csv refuses $1"; else notok "csv refuses $1" "$(cat bad.out)"; fi
}
csv_bad "a quote in an unquoted field" 'a,b\n1,x"y\n' '^error: bad.csv:2: quote inside an unquoted field'
csv_bad "text after a closing quote" 'a,b\n1,"x"y\n' '^error: bad.csv:2: unexpected character after a closing quote'
csv_bad "an unterminated quote (line where it opens)" 'a,b\n1,2\n3,"open\nmore\n' '^error: bad.csv:3: unterminated quoted field'
csv_bad "too few fields" 'a,b\n1,2\n3\n' '^error: bad.csv:3: expected 2 fields, found 1'
csv_bad "too many fields" 'a,b\n1,2,3\n' '^error: bad.csv:2: expected 2 fields, found 3'
csv_bad "a blank line" 'a,b\n1,2\n\n3,4\n' '^error: bad.csv:3: expected 2 fields, found 1'
csv_bad "a bare carriage return" 'a,b\r1,2\n' '^error: bad.csv:1: carriage return not followed by a line feed'
csv_bad "invalid UTF-8" 'a,b\n1,\377\n' '^error: bad.csv:2: invalid UTF-8'
csv_bad "a duplicate column" 'a,a\n1,2\n' '^error: bad.csv:1: duplicate column "a"'
csv_bad "an empty file" '' '^error: bad.csv:1: empty file'
csv_bad "a line after a multi-line field, counted right" 'a,b\n"1\n2",3\n4,x"\n' '^error: bad.csv:4: quote inside'

# Times and counts against date(1).
"$BUILD/tests/unit/recon_time" 2026-08-03T10:59:24.990Z 2026-08-03T23:59:24+02:00 \
	2026-08-03T00:10:00-05:30 2024-02-29T12:00:00z 2026-12-31T23:30:00-01:00 >times.out
bad=
for t in 2026-08-03T10:59:24Z 2026-08-03T23:59:24+02:00 2026-08-03T00:10:00-05:30 \
	2024-02-29T12:00:00Z 2026-12-31T23:30:00-01:00; do
	s=$(date -u -d "$t" +%s)
	u=$(date -u -d "$t" +%Y-%m-%dT%H:%M:%S)
	grep -q "^T $s\.[0-9]* ${u}[.0-9]*Z$" times.out || bad="$bad $t"
done
[ -z "$bad" ] && ok "RFC 3339 times with offsets equal date(1)'s UTC" || notok "times vs date(1)" "$bad $(cat times.out)"
"$BUILD/tests/unit/recon_time" 2023-02-29T00:00:00Z 2026-08-03 "2026-08-03 10:00:00Z" \
	2026-08-03T24:00:00Z 2026-08-03T10:61:00Z 2026-08-03T10:00:00 2026-08-03T10:00:00+0200 \
	2026-08-03T10:00:00.Z 2300-01-01T00:00:00Z >tbad.out
[ "$(grep -c '^T bad$' tbad.out)" = 9 ] && ok "malformed times refused" || notok "malformed times" "$(cat tbad.out)"
"$BUILD/tests/unit/recon_time" --count 0 8082 9007199254740991 1,234 "1 234" 1.0 1e3 +1 -1 "" 9007199254740992 >c.out
printf 'C 0\nC 8082\nC 9007199254740991\n' >c.want
grep -v bad c.out >c.ok
[ "$(grep -c '^C bad$' c.out)" = 8 ] && cmp -s c.ok c.want && ok "token counts: digits only, separators refused" ||
	notok "token counts" "$(cat c.out)"

# Malformed inputs: exit 2, file:line and field, nothing written.
cp base.json keep.json
bad_billing() { # NAME FILE PATTERN
	expect_fail2 "billing: $1" "$3" rec base --billing "$2" -o keep.json
}
sed '3s/,1500,/,"1,500",/' base/billing.csv >b.csv
bad_billing "thousands separator refused" b.csv '^cohort reconcile: b.csv:3: "input_tokens": expected a whole number of tokens, found "1,500"'
sed '4s/2026-07-20T11:00:00Z/20 July 2026/' base/billing.csv >b.csv
bad_billing "a time that is not RFC 3339" b.csv '^cohort reconcile: b.csv:4: "ts": expected an RFC 3339 date-time'
sed '5s/^r4,/"r4,/' base/billing.csv >b.csv
bad_billing "an unterminated quote" b.csv '^cohort reconcile: b.csv:5: unterminated quoted field'
sed '6s/$/,extra/' base/billing.csv >b.csv
bad_billing "a row with an extra field" b.csv '^cohort reconcile: b.csv:6: expected 8 fields, found 9'
sed '1s/input_tokens/prompt/' base/billing.csv >b.csv
bad_billing "a missing column" b.csv '^cohort reconcile: b.csv:1: no column "input_tokens"'
sed '2s/0.001800/1.8e-3/' base/billing.csv >b.csv
bad_billing "a cost in exponent form" b.csv '^cohort reconcile: b.csv:2: "cost": expected a decimal amount'
printf '{"id":"r1","usage":{"prompt_tokens":1.5,"completion_tokens":1}}\n' >b.jsonl
expect_fail2 "billing JSON Lines: a fractional count" '^cohort reconcile: b.jsonl:1: "usage.prompt_tokens": expected a whole number' \
	rec base --billing b.jsonl --billing-map "$D/jsonl-map.json"
printf '{"request_id":"r1",\n' >b.jsonl
expect_fail2 "billing JSON Lines: malformed JSON" '^cohort reconcile: b.jsonl:1:[0-9]+: ' rec base --billing b.jsonl
printf '{"request_id": "id", "tokens": "x"}' >m.json
expect_fail2 "a map naming an unknown column" '^cohort reconcile: m.json: "tokens": not a billing column' \
	rec base --billing base/billing.csv --billing-map m.json
same_bytes "a refused run leaves the old -o file" keep.json base.json
ls keep.json.cohort-tmp.* >/dev/null 2>&1 && notok "no temporary left" "$(ls)" || ok "no temporary left"
rm -f gone.json gone.db
rec base --billing b.jsonl --db gone.db -o gone.json 2>/dev/null
[ ! -e gone.json ] && [ ! -e gone.db ] && ! ls gone.db.tmp.* >/dev/null 2>&1 &&
	ok "a refused run writes neither report nor database" || notok "nothing written on error" "$(ls)"

bad_req() { # NAME SED PATTERN
	sed "$2" base/requests.jsonl >bad.jsonl
	expect_fail2 "requests: $1" "$3" "$COHORT" reconcile --freeze base/freeze.json --ledger base/ledger.jsonl \
		--requests bad.jsonl --billing base/billing.csv
}
bad_req "attempt as a string" '4s/"attempt":1/"attempt":"1"/' '^cohort reconcile: bad.jsonl:4: "attempt": expected a number'
bad_req "unknown status" '2s/"status":"ok"/"status":"fine"/' '^cohort reconcile: bad.jsonl:2: "status": expected ok or error'
bad_req "negative tokens" '3s/"input":800/"input":-800/' '^cohort reconcile: bad.jsonl:3: "tokens.input": expected a whole number'
bad_req "game_id missing" '5s/"game_id":"g3",//' '^cohort reconcile: bad.jsonl:5: "game_id": missing'
bad_req "a bad time" '6s/"ts":"[^"]*"/"ts":"yesterday"/' '^cohort reconcile: bad.jsonl:6: "ts": expected an RFC 3339 date-time'
bad_req "malformed JSON" '7s/}$/,}/' '^cohort reconcile: bad.jsonl:7:[0-9]+: '
bad_req "a request id given twice" '9s/"r9"/"r2"/' '^cohort reconcile: bad.jsonl:9: "request_id": "r2" given twice \(first at bad.jsonl:2\)'
sed '2s/"status":"terminal"/"status":"done"/' base/ledger.jsonl >badl.jsonl
expect_fail2 "ledger: unknown status" '^cohort reconcile: badl.jsonl:2: "status": expected terminal, live, provider_error or aborted' \
	"$COHORT" reconcile --freeze base/freeze.json --ledger badl.jsonl --requests base/requests.jsonl --billing base/billing.csv
sed '3s/"tokens":{[^}]*}/"tokens":{"input":1}/' base/ledger.jsonl >badl.jsonl
expect_fail2 "ledger: incomplete tokens" '^cohort reconcile: badl.jsonl:3: "tokens.output": missing' \
	"$COHORT" reconcile --freeze base/freeze.json --ledger badl.jsonl --requests base/requests.jsonl --billing base/billing.csv
expect_fail2 "ledger: a game given twice" '^cohort reconcile: base/ledger.jsonl:1: "game_id": "g1" given twice' \
	"$COHORT" reconcile --freeze base/freeze.json --ledger base/ledger.jsonl --ledger base/ledger.jsonl \
	--requests base/requests.jsonl --billing base/billing.csv
expect_fail2 "freeze: not a freeze" '^cohort reconcile: base/spec.json: "kind": expected cohort.freeze/1' \
	"$COHORT" reconcile --freeze base/spec.json --ledger base/ledger.jsonl --requests base/requests.jsonl --billing base/billing.csv

# Token sums past 2^53 - 1 cannot be written exactly: refused, naming the
# condition and the field (two billing rows of g1, condition none).
fixture bigbill
sed -e '2s/^\(r1,[^,]*,[^,]*,\)[0-9]*,/\14503599627370497,/' -e '3s/^\(r2,[^,]*,[^,]*,\)[0-9]*,/\14503599627370498,/' \
	"$D/billing.csv" >bigbill/billing.csv
expect_fail2 "billed tokens summing past 2^53 are refused, not rounded" \
	'^cohort reconcile: family fam, condition none: "tokens.billed.input": the sum is above 2\^53 - 1 = 9007199254740991' \
	rec bigbill --billing bigbill/billing.csv

# Usage.
expect_fail2 "usage: --freeze required" 'freeze is required' "$COHORT" reconcile --ledger x --requests y --billing z
expect_fail2 "usage: --billing required" 'billing is required' "$COHORT" reconcile --freeze x --ledger x --requests y
expect_fail2 "usage: --freeze twice" '--freeze given twice' "$COHORT" reconcile --freeze a --freeze b
expect_fail2 "usage: bad --format" 'expected json or table' rec base --billing base/billing.csv --format xml
expect_fail2 "usage: bad --tolerance" 'tolerance: expected a fraction' rec base --billing base/billing.csv --tolerance 5%
expect_fail2 "usage: a stray argument" "unexpected argument 'extra'" rec base --billing base/billing.csv extra
expect_fail2 "usage: two inputs from standard input" 'only one input can be standard input' \
	"$COHORT" reconcile --freeze base/freeze.json --ledger - --requests - --billing base/billing.csv
"$COHORT" reconcile --freeze base/freeze.json --ledger base/ledger.jsonl --requests - \
	--billing base/billing.csv <base/requests.jsonl >stdin.json
strip stdin.json >stdin.cmp
cmp -s base.cmp stdin.cmp && grep -q '"requests":\[{"name":"-"' stdin.json &&
	ok "a request log from standard input, named -" || notok "stdin input" "$(head -c 200 stdin.json)"

# The DeepSeek example: the published efficiency table, byte for byte.
E=$ROOT/examples/deepseek
if [ -f "$E/requests.jsonl" ]; then
	"$COHORT" freeze --spec "$E/spec.json" -o ds.freeze.json "$E/ledger.jsonl"
	"$COHORT" reconcile --freeze ds.freeze.json --ledger "$E/ledger.jsonl" --requests "$E/requests.jsonl" \
		--billing "$E/billing.csv" --format table >ds.table
	rc=$?
	[ $rc = 0 ] && ok "DeepSeek example reconciles" || notok "DeepSeek example reconciles" "exit $rc"
	grep -q '^43 clean games, 0 provider-error games, 24,431,157 recorded tokens, 157.55 worker-hours$' ds.table &&
		ok "DeepSeek: 43 clean games, 24,431,157 tokens, 157.55 worker-hours (the published figures)" ||
		notok "DeepSeek seed figures" "$(tail -3 ds.table)"
	for row in 'none +10 +0-2-8 +759,723' 'top10 +8 +3-0-5 +610,880' 'top5 +6 +3-1-2 +924,349' \
		'top3 +8 +6-0-2 +368,829' 'top2 +11 +10-0-1 +313,651'; do
		grep -Eq "^$row " ds.table || bad="$bad [$row]"
	done
	[ -z "${bad:-}" ] && ok "DeepSeek: each condition's games, W-D-L and tokens per clean game (the published figures)" ||
		notok "DeepSeek rows" "$bad"
	for b in "--billing $E/billing.jsonl" "--billing $E/provider-billing.csv --billing-map $E/billing-map.json"; do
		# shellcheck disable=SC2086
		"$COHORT" reconcile --freeze ds.freeze.json --ledger "$E/ledger.jsonl" --requests "$E/requests.jsonl" \
			$b --format table >ds2.table
		same_bytes "DeepSeek: same table from $(echo "$b" | sed 's|[^ ]*/||g')" ds2.table ds.table
	done
fi

# The table lists its findings, one a line, at most 20 of a kind: 30
# requests without a game (each billed) give 20 lines and "and 10 more".
fixture many
for i in $(seq 1 30); do
	printf '{"request_id":"orphan%d","game_id":null,"ts":"2026-07-20T10:00:00Z","model":{"requested":"fam-1","returned":"fam-1"},"tokens":{"input":1,"output":1,"reasoning":0,"cached":0},"latency_ms":1,"attempt":1,"status":"ok"}\n' $i
done >>many/requests.jsonl
for i in $(seq 1 30); do printf 'orphan%d,2026-07-20T10:00:00Z,fam-1,1,1,0,0,0.000001\n' $i; done >>many/billing.csv
rec many --billing many/billing.csv --format table >many.txt
rc=$?
n=$(grep -c '^  request_without_game, request orphan[0-9]*, requests.jsonl:[0-9]*: game_id expected absent, found absent$' many.txt)
if [ $rc = 1 ] && [ "$n" = 20 ] && grep -q '^  and 10 more request_without_game$' many.txt &&
	grep -q '^not reconciled: 30 findings (request_without_game 30)$' many.txt; then
	ok "the reconcile table lists findings, 20 of a kind, and counts the rest"
else
	notok "the reconcile table lists findings, 20 of a kind, and counts the rest" "exit $rc, $n listed: $(tail -3 many.txt)"
fi
