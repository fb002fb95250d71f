# freeze.test.sh: freeze and verify on the example cohorts: figures, states,
# determinism, JSON Lines against SQLite, tampering, and bad input.
EX=$ROOT/examples
PY=/usr/bin/python3
cp -r "$EX/luna" luna
cp -r "$EX/deepseek" deepseek

expect_status "freeze luna" 0 "$COHORT" freeze --spec luna/spec.json --store luna/store -o luna.json luna/ledger.jsonl
expect_status "freeze deepseek" 0 "$COHORT" freeze --spec deepseek/spec.json --store ds/store -o ds.json deepseek/ledger.jsonl
check "freeze documents validate against schemas/freeze.schema.json" $PY "$ROOT/tests/validate.py" "$ROOT/schemas/freeze.schema.json" luna.json ds.json
check "specs validate" $PY "$ROOT/tests/validate.py" "$ROOT/schemas/spec.schema.json" luna/spec.json deepseek/spec.json
check "ledgers validate" $PY "$ROOT/tests/validate.py" "$ROOT/schemas/ledger-record.schema.json" luna/ledger.jsonl deepseek/ledger.jsonl

# The published tables, computed here from the manifest by an independent reader.
cat >tables.py <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["conditions"]:
    n = c["games"]
    per = c["tokens"]["total"] // n if n else 0
    print(c["condition"], c["state"], n, "%d-%d-%d" % (c["w"], c["d"], c["l"]), per,
          ",".join("%g" % a for a in c["anchors"]))
t = d["totals"]
print("total", t["games"], t["excluded"], t["tokens"]["total"], "%.2f" % t["worker_hours"])
print("excluded", " ".join(sorted(x["reason"] for x in d["excluded"])))
PYEOF
$PY tables.py luna.json | grep -v '^total' | cut -d' ' -f1-4,6 >luna.tab
cat >luna.want <<'TAB'
none terminal 10 0-5-5 1320
top10 terminal 10 2-2-6 1320
top5 terminal 60 28-14-18 1320,1520,1720,1920
top3 terminal 80 43-22-15 1320,1720,1920,2120,2320,2520
top2 terminal 60 41-11-8 1320,1720,2120,2420,2820
excluded 
TAB
same_bytes "luna: W-D-L, anchors and terminal states of the published table" luna.tab luna.want
$PY tables.py ds.json | awk '$1=="excluded"||$1=="total"{print;next}{print $1,$2,$3,$4,$5}' >ds.tab
cat >ds.want <<'TAB'
none terminal 10 0-2-8 759723
top10 active 8 3-0-5 610880
top5 active 6 3-1-2 924349
top3 active 8 6-0-2 368829
top2 active 11 10-0-1 313651
total 43 5 24431157 157.55
excluded after_cut live live live live
TAB
same_bytes "deepseek: games, W-D-L, tokens per clean game, states, 24431157 tokens, 157.55 worker-hours" ds.tab ds.want

# Determinism: time zone, locale and working directory change nothing.
mkdir -p elsewhere
(cd elsewhere && TZ=Pacific/Kiritimati LC_ALL=C.UTF-8 LANG=fr_FR.UTF-8 "$COHORT" freeze --spec ../luna/spec.json \
	--store ../luna/store2 -o ../luna2.json "$TMP/luna/ledger.jsonl")
same_bytes "same bytes under another TZ, locale, folder and store" luna.json luna2.json
"$COHORT" freeze --spec luna/spec.json luna/ledger.jsonl >luna3.json
same_bytes "same bytes on stdout, without a store" luna.json luna3.json
cat luna/ledger.jsonl | "$COHORT" freeze --spec luna/spec.json - >luna4.json
same_bytes "ledger on standard input" luna.json luna4.json
tac luna/ledger.jsonl >rev.jsonl
"$COHORT" freeze --spec luna/spec.json rev.jsonl >luna5.json
same_bytes "record order does not matter" luna.json luna5.json

# SQLite ledger built by an independent writer (python's sqlite3).
cat >tosql.py <<'PYEOF'
import json, sqlite3, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
cols = []
for r in rows:
    for k in r:
        if k not in cols: cols.append(k)
db = sqlite3.connect(sys.argv[2])
decl = {k: ("JSON" if any(isinstance(r.get(k), (dict, list)) for r in rows) else "") for k in cols}
db.execute("CREATE TABLE games (%s)" % ", ".join('"%s" %s' % (k, decl[k]) for k in cols))
for r in rows:
    vals = [json.dumps(r[k]) if isinstance(r.get(k), (dict, list)) else r.get(k) for k in cols]
    db.execute("INSERT INTO games VALUES (%s)" % ",".join("?" * len(cols)), vals)
db.commit()
PYEOF
$PY tosql.py luna/ledger.jsonl luna.sqlite
"$COHORT" freeze --spec luna/spec.json luna.sqlite >luna-sql.json
same_bytes "SQLite ledger gives the same freeze identity as JSON Lines" luna.json luna-sql.json

# The store: one pack for all records, nothing new on a second freeze.
n=$(ls luna/store/pack | wc -l)
"$COHORT" freeze --spec luna/spec.json --store luna/store luna/ledger.jsonl >/dev/null
n2=$(ls luna/store/pack | wc -l)
if [ "$n" = 2 ] && [ "$n2" = 2 ]; then ok "store: one pack and one index; a re-freeze adds nothing"; else notok "store files" "$n then $n2"; fi
lines=$(cat luna/store/pack/*.pack | wc -l)
if [ "$lines" = 220 ]; then ok "store holds the 220 canonical records"; else notok "store count" "$lines"; fi

# verify: everything holds, then each kind of tampering is found.
expect_status "verify luna" 0 "$COHORT" verify luna.json --store luna/store
"$COHORT" verify --store luna/store luna.json >v.json
check "verify report validates" $PY "$ROOT/tests/validate.py" "$ROOT/schemas/verify.schema.json" v.json
expect_status "verify deepseek (store beside the freeze)" 0 "$COHORT" verify --store ds/store ds.json
cp -r luna/store flipped
pack=$(ls flipped/pack/*.pack)
$PY - "$pack" <<'PYEOF'
import sys
p = sys.argv[1]; b = bytearray(open(p, "rb").read())
i = b.find(b'"result":"win"'); b[i + 11] = ord("W"); open(p, "wb").write(b)
PYEOF
"$COHORT" verify --store flipped --format table luna.json >flip.out
rc=$?
if [ $rc = 1 ] && grep -q '^FAIL record-hash' flip.out; then ok "one flipped byte in one record: exit 1, record-hash"; else notok "flipped byte" "exit $rc"; fi
grep -v '^ok' luna/ledger.jsonl | sed 1d >short.jsonl
"$COHORT" freeze --spec luna/spec.json --store short-store short.jsonl >/dev/null
"$COHORT" verify --store short-store --format table luna.json >miss.out
rc=$?
if [ $rc = 1 ] && [ "$(grep -c '^FAIL record-present' miss.out)" = 1 ]; then ok "a missing record: exit 1, named once"; else notok "missing record" "exit $rc"; fi
sed 's/"l":0,"w":10}/"l":0,"w":9}/' luna.json >edited.json
"$COHORT" verify --store luna/store --format table edited.json >edit.out
rc=$?
if [ $rc = 1 ] && grep -q '^FAIL derivation *blocks\[' edit.out; then ok "an edited manifest: exit 1, the block named"; else notok "edited manifest" "exit $rc $(head -3 edit.out)"; fi
$PY -c "
import json; d = json.load(open('luna.json')); d['conditions'][0]['state'] = 'active'
open('edited2.json', 'w').write(json.dumps(d))"
"$COHORT" verify --store luna/store --format table edited2.json >edit2.out
if [ $? = 1 ] && grep -q 'conditions\[0\]' edit2.out; then ok "an edited state is found"; else notok "edited state" "$(head -3 edit2.out)"; fi
expect_fail2 "verify without a store" "not a cohort store" "$COHORT" verify --store nowhere luna.json

# The quick proof (verify/fast.c) gives the thorough check's report when a
# freeze holds, and claims nothing when anything was tampered with.
VF=$BUILD/tests/unit/verify_fast
check "quick proof: luna holds, same checks and identity as the thorough way" "$VF" luna.json luna/store holds
check "quick proof: deepseek holds (exclusions of every kind)" "$VF" ds.json ds/store holds
"$COHORT" freeze --spec luna/spec.json --store luna-repo-store --repo "$ROOT" -o luna-repo.json luna/ledger.jsonl 2>/dev/null ||
	"$COHORT" freeze --spec luna/spec.json --store luna-repo-store -o luna-repo.json luna/ledger.jsonl
check "quick proof: a freeze with its repo holds" "$VF" luna-repo.json luna-repo-store holds
check "quick proof declines: a flipped byte in a record" "$VF" luna.json flipped declines
check "quick proof declines: a missing record" "$VF" luna.json short-store declines
check "quick proof declines: an edited block" "$VF" edited.json luna/store declines
check "quick proof declines: an edited state" "$VF" edited2.json luna/store declines
cp -r luna/store shared-store
"$COHORT" freeze --spec deepseek/spec.json --store shared-store deepseek/ledger.jsonl >/dev/null
check "quick proof declines: a store shared with another freeze" "$VF" luna.json shared-store declines
expect_status "verify: a store shared with another freeze still holds (the thorough way)" 0 \
	"$COHORT" verify --store shared-store luna.json
$PY -c "
import json; d = json.load(open('luna/spec.json')); d['protocol'] = {'a': 1, 'kind': 'cohort.freeze/1'}
open('kindspec.json', 'w').write(json.dumps(d))"
"$COHORT" freeze --spec kindspec.json --store kind-store -o kind.json luna/ledger.jsonl
expect_status "verify: a spec holding a \"kind\" member of its own still holds" 0 \
	"$COHORT" verify --store kind-store kind.json
# A store filled by two freezes, the second adding a pack of only the
# records the first lacked: the later freeze's records are all of them.
head -110 luna/ledger.jsonl >half.jsonl
"$COHORT" freeze --spec luna/spec.json --store two-packs -o half.json half.jsonl
"$COHORT" freeze --spec luna/spec.json --store two-packs -o whole.json luna/ledger.jsonl
if [ "$(ls two-packs/pack/*.pack | wc -l)" = 2 ]; then ok "a second freeze adds a second pack"; else notok "two packs" "$(ls two-packs/pack)"; fi
check "quick proof: holds over two packs" "$VF" whole.json two-packs holds
check "quick proof declines: the first freeze, its store now holding more" "$VF" half.json two-packs declines
expect_status "verify: the first freeze still holds (the thorough way)" 0 "$COHORT" verify --store two-packs half.json
cp -r luna/store idx-store
$PY - "$(ls idx-store/pack/*.idx)" <<'PYEOF'
import sys
p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[16 + 44 + 40 + 3] ^= 1; open(p, "wb").write(b)
PYEOF
check "quick proof declines: an index entry with a wrong length" "$VF" luna.json idx-store declines
check "a pack's index check = a plain sort-and-compare, on ten chosen and 300 random changes" \
	"$BUILD/tests/unit/cas_index" cas-index-store

# Ladder deviation: a block played at an anchor the policy did not choose.
sed 's/"elo":1520,/"elo":1620,/g' luna/ledger.jsonl >dev.jsonl
"$COHORT" freeze --spec luna/spec.json dev.jsonl >dev.json
if grep -q '"deviations":\[{"anchor":1620,"block":2,"expected":1520' dev.json; then ok "protocol deviation listed"; else notok "deviation" "$(grep -o '"deviations":[^]]*]' dev.json | head -3)"; fi

# --repo: commit and dirtiness through libgit2.
mkdir harness && (cd harness && git init -q && echo p >prompt.txt && git add prompt.txt &&
	GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@a GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@a git commit -qm x)
head=$(git -C harness rev-parse HEAD)
"$COHORT" freeze --spec luna/spec.json --repo harness luna/ledger.jsonl >repo.json
if grep -q "\"repo\":{\"commit\":\"$head\",\"dirty\":false}" repo.json; then ok "--repo records the commit, clean"; else notok "--repo" "$(grep -o '"repo":{[^}]*}' repo.json)"; fi
echo more >>harness/prompt.txt
"$COHORT" freeze --spec luna/spec.json --repo harness luna/ledger.jsonl >repo2.json
if grep -q '"dirty":true' repo2.json; then ok "--repo sees a dirty tree"; else notok "--repo dirty" ""; fi
expect_fail2 "--repo on a folder that is not a repository" "git:" "$COHORT" freeze --spec luna/spec.json --repo luna luna/ledger.jsonl

# Bad input: each names file:line and the field, exits 2, writes nothing.
good=$(head -1 luna/ledger.jsonl)
bad() { # NAME PATTERN LINE
	printf '%s\n%s\n' "$good" "$3" >bad.jsonl
	rm -f out.json
	expect_fail2 "$1" "$2" "$COHORT" freeze --spec luna/spec.json -o out.json bad.jsonl
	if [ -e out.json ] || ls out.json.cohort-tmp.* >/dev/null 2>&1; then notok "$1: no output left" "found"; fi
}
bad "truncated line" '^cohort freeze: bad.jsonl:2:[0-9]+: ' "$(echo "$good" | cut -c1-200)"
bad "wrong type" 'bad.jsonl:2: "block": expected a number' "$(echo "$good" | sed 's/"block":1,/"block":"1",/')"
bad "missing field" 'bad.jsonl:2: "status": missing' "$(echo "$good" | sed 's/"status":"terminal",//')"
bad "unknown status" 'bad.jsonl:2: "status": expected terminal' "$(echo "$good" | sed 's/"status":"terminal"/"status":"done"/')"
bad "unknown result" 'bad.jsonl:2: "result": expected win, draw or loss' "$(echo "$good" | sed 's/"result":"[a-z]*"/"result":"victory"/')"
bad "negative tokens" 'bad.jsonl:2: "tokens": "input": expected a whole number' "$(echo "$good" | sed 's/"input":/"input":-/')"
bad "huge block" 'bad.jsonl:2: "block": expected a whole number' "$(echo "$good" | sed 's/"block":1,/"block":1e300,/')"
bad "bad time" 'bad.jsonl:2: "started_at": expected an RFC 3339 time' "$(echo "$good" | sed 's/"started_at":"[^"]*"/"started_at":"yesterday"/')"
bad "not an object" 'bad.jsonl:2: expected a JSON object' '[1,2]'
bad "duplicate game_id" 'bad.jsonl:2: "game_id": duplicate .*first at bad.jsonl:1' "$good"
bad "duplicate key" 'bad.jsonl:2:8: duplicate key "a"' '{"a":1,"a":2}'
bad "non-UTF-8 bytes" 'bad.jsonl:2:[0-9]+: invalid UTF-8' "$(echo "$good" | sed 's/"opening":"startpos"/"opening":"st\xffrt"/')"
{ printf '{"x":"'; head -c 67108864 /dev/zero | tr '\0' a; printf '"}\n'; } >long.jsonl
expect_fail2 "a line over 64 MiB" 'long.jsonl:1: line longer than 67108864 bytes' "$COHORT" freeze --spec luna/spec.json long.jsonl
rm -f long.jsonl
expect_fail2 "-o that cannot be written" 'cannot write' "$COHORT" freeze --spec luna/spec.json -o /nonexistent/x.json luna/ledger.jsonl
echo '{"kind":"cohort.spec/1"}' >badspec.json
expect_fail2 "spec without a name" 'badspec.json: "name": missing' "$COHORT" freeze --spec badspec.json luna/ledger.jsonl
sed 's/"stop_below": *0.35/"stop_below":"low"/' luna/spec.json >badspec2.json
expect_fail2 "spec with a bad ladder" '"ladder": "stop_below": expected a number' "$COHORT" freeze --spec badspec2.json luna/ledger.jsonl
expect_fail2 "no ledger" 'expected at least one LEDGER' "$COHORT" freeze --spec luna/spec.json
expect_fail2 "no spec" '--spec is required' "$COHORT" freeze luna/ledger.jsonl
expect_fail2 "--spec twice" 'given twice' "$COHORT" freeze --spec a --spec b x
expect_fail2 "missing ledger file" 'nope.jsonl: cannot open' "$COHORT" freeze --spec luna/spec.json nope.jsonl
printf 'SQLite format 3\000garbage' >fake.sqlite
expect_fail2 "a damaged SQLite ledger" 'fake.sqlite: sqlite:' "$COHORT" freeze --spec luna/spec.json fake.sqlite

# A damaged store is a finding, not an unreadable input.
cp -r luna/store dmg1 && printf 'XXXX' | dd of="$(ls dmg1/pack/*.idx)" conv=notrunc 2>/dev/null
expect_status "a damaged index: exit 1" 1 "$COHORT" verify --store dmg1 luna.json
grep -q '"check":"store-damaged","detail":"[^"]*not a cohort index' "$TMP/out" && ok "store-damaged named" || notok "store-damaged" "$(head -c 300 "$TMP/out")"
cp -r luna/store dmg2 && rm dmg2/pack/*.pack
expect_status "a missing pack: exit 1" 1 "$COHORT" verify --store dmg2 luna.json
cp -r luna/store dmg3 && truncate -s 100000 "$(ls dmg3/pack/*.pack)"
expect_status "a truncated pack: exit 1" 1 "$COHORT" verify --store dmg3 luna.json

# The example data is what its generator writes, byte for byte.
cp -r "$ROOT/examples" regen
/usr/bin/python3 regen/make-examples.py >regen.out 2>&1
if diff -r "$ROOT/examples" regen >regen.diff 2>&1; then ok "examples/make-examples.py rewrites the examples byte for byte"; else notok "example generator" "$(head -5 regen.diff)"; fi

# The flat record reader (json/rec.c) and the tree reader agree on every
# record and on hundreds of mutants of each: the same refusal message, or
# the same canonical bytes, digest and summary, bit for bit.
check "flat reader = tree reader on the Luna ledger and 200 mutants a record" \
	"$BUILD/tests/unit/rec_diff" "$EX/luna/spec.json" 200 "$EX/luna/ledger.jsonl"
check "RFC 3339 times: every day of four years against timegm, refusals, bytes past the time" \
	"$BUILD/tests/unit/ts_check"
check "digests' hex digits as printf writes them; git blob ids as git gives them" "$BUILD/tests/unit/hex_check"
check "flat reader = tree reader on the DeepSeek ledger and 200 mutants a record" \
	"$BUILD/tests/unit/rec_diff" "$EX/deepseek/spec.json" 200 "$EX/deepseek/ledger.jsonl"
check "flat reader = tree reader on odd records (escapes, exponents, depth) and 500 mutants" \
	"$BUILD/tests/unit/rec_diff" "$EX/luna/spec.json" 500 "$ROOT/tests/data/rec/odd.jsonl"
# Records shaped as harnesses write them (bench/realshape.py: 17-digit
# floats, millisecond times, escapes and non-ASCII in unknown fields, keys
# in any order): the readers agree, and every one stays on the flat path,
# stored records read by their shape.
python3 "$ROOT/bench/realshape.py" 700 real-spec.json real.jsonl
check "flat reader = tree reader on real-shaped records and 20 mutants a record" \
	"$BUILD/tests/unit/rec_diff" real-spec.json 20 real.jsonl
"$BUILD/tests/unit/rec_diff" real-spec.json 0 real.jsonl >real0.out 2>&1
if grep -q '^700 records: flat reader said yes to 700 ' real0.out && [ "$(sed 's/.*read by a shape //' real0.out)" -ge 600 ]; then
	ok "real-shaped records stay on the flat path (and stored ones on their shapes)"
else notok "real-shaped records on the flat path" "$(cat real0.out)"; fi

# Sorting by game_id: 66,000 games (enough for the sort on two threads),
# whose ids share their first 24 bytes and more, written in an order of
# their own.  The manifest lists them in the order an independent sort
# gives; the ledger backwards gives the same bytes; and a duplicate names
# the earlier line.
head -n 1 luna/ledger.jsonl | sed 's/"requests":\[[^]]*\]/"requests":[]/' >one.jsonl
awk 'NR == 1 { for (k = 0; k < 66000; k++) { r = $0
	sub(/"game_id":"[^"]*"/, sprintf("\"game_id\":\"a-prefix-longer-than-24-bytes-%05d\"", (k * 7919) % 66000), r)
	print r } }' one.jsonl >many.jsonl
awk '{ l[NR] = $0 } END { for (i = NR; i > 0; i--) print l[i] }' many.jsonl >many-rev.jsonl
# Game ids are copied as they are into entries when no byte needs an
# escape, eight bytes looked at a time: each kind of byte that does, in
# the first eight, in the second eight and in the tail, takes the
# canonical writer's way.
$PY - one.jsonl >ids.jsonl <<'PYEOF'
import json, sys
r = json.loads(open(sys.argv[1]).readline())
ids = ["plain", "plain-ascii-id-longer-than-24", "~}|{\u007f"]
for c in ['"', "\\", "\u0001", "\u001f", "\t", "\u00e9", "\u007f"]:
    for at in (0, 3, 10, 17, 22):  # words one, two and three of 24 bytes, and the tail of 23
        base = "abcdefghijklmnopqrstuvwx" if at < 22 else "abcdefghijklmnopqrstuvw"
        ids.append(base[:at] + c + base[at + 1:])
for k, i in enumerate(ids):
    r["game_id"] = i
    r["block"] = k + 1
    print(json.dumps(r))
PYEOF
expect_status "freeze games whose ids need escapes here and there" 0 "$COHORT" freeze --spec luna/spec.json -o ids.json ids.jsonl
check "their entries: the ids as given, in canonical bytes" $PY -c '
import json, sys
m = json.load(open("ids.json"))
src = [json.loads(l)["game_id"] for l in open("ids.jsonl")]
sys.exit(0 if sorted(g["game_id"] for g in m["games"]) == sorted(src) else 1)'
"$COHORT" canon ids.json >ids-canon.json
same_bytes "the manifest is its own canonical form" ids.json ids-canon.json
# Entries write whole anchors and blocks as integers themselves: the
# same text as the canonical writer's, checked here against Python's.
$PY - one.jsonl >nums.jsonl <<'PYEOF'
import json, sys
r = json.loads(open(sys.argv[1]).readline())
for k, (elo, block) in enumerate([("-0", 1), ("-1000000", 1000000000), ("1000000", 7),
                                  ("1320.5", 2), ("-7.25", 3), ("0.1", 4), ("2820", 5)]):
    r["game_id"] = "n%d" % k
    r["block"] = block
    r["anchor"]["elo"] = "@"
    print(json.dumps(r).replace('"@"', elo))
PYEOF
expect_status "freeze games with odd anchors" 0 "$COHORT" freeze --spec luna/spec.json -o nums.json nums.jsonl
check "their anchors and blocks written as the canonical writer writes them" $PY -c '
import re, sys
want = {"n0": ("0", "1"), "n1": ("-1000000", "1000000000"), "n2": ("1000000", "7"),
        "n3": ("1320.5", "2"), "n4": ("-7.25", "3"), "n5": ("0.1", "4"), "n6": ("2820", "5")}
b = open("nums.json").read()
got = {m[2]: (m[0], m[1]) for m in
       re.findall(r"\{\"anchor\":([^,]*),\"block\":([^,]*),[^{]*\"game_id\":\"(n[0-9])\"", b)}
sys.exit(0 if got == want else "%r" % got)'
expect_status "freeze 66,000 games out of order" 0 "$COHORT" freeze --spec luna/spec.json --store many-store -o many.json many.jsonl
# verify's quick proof sorts them on two threads and writes the games list
# on two: it must hold, and give the thorough way's report
check "the quick proof holds on them" "$VF" many.json many-store holds
# The later games' entries are compared on a thread of their own, from
# wherever their first bytes are found: every change, on either side of
# the split (game 19,800), or across it, is still seen.
$PY - many.json <<'PYEOF'
import re, sys
b = open(sys.argv[1], "rb").read()
at = [m.start() for m in re.finditer(rb'\{"anchor":', b)]
split = at[19800]
def entry(i):
    return b[at[i]:at[i + 1] - 1] if i + 1 < len(at) else None
def put(name, x):
    open(name, "wb").write(x)
def flip(i):  # a digit of game i's digest
    k = b.index(b'"id":"sha256:', at[i]) + 13
    return b[:k] + (b"1" if b[k:k + 1] == b"0" else b"0") + b[k + 1:]
put("many-late.json", flip(60000))
put("many-early.json", flip(100))
put("many-first-late.json", flip(19800))
# the two games about the split swapped, and one of them twice
x, y = entry(19799), entry(19800)
put("many-swap.json", b[:at[19799]] + y + b"," + x + b[at[19801] - 1:])
put("many-twice.json", b[:at[19800]] + y + b"," + b[at[19800]:at[19801] - 1] + b[at[19801] - 1:])
put("many-long.json", b[:-1] + b" }")
PYEOF
for m in late early first-late swap twice long; do
	check "the quick proof declines: many-$m" "$VF" many-$m.json many-store declines
done
check "their ids in sorted order, as Python sorts them" $PY -c '
import json, sys
ids = [g["game_id"] for g in json.load(open("many.json"))["games"]]
sys.exit(0 if len(ids) == 66000 and ids == sorted(ids) else 1)'
expect_status "freeze them backwards" 0 "$COHORT" freeze --spec luna/spec.json -o many-rev.json many-rev.jsonl
same_bytes "the same manifest from either order" many.json many-rev.json
# Streams interleaved (conditions played side by side): three in runs of
# seven go on three piles; a repeat goes on another pile than the game it
# repeats, and is named after it; seventeen streams need more piles than
# there are, and are sorted the general way.
$PY - one.jsonl <<'PYEOF'
import json, sys
r = json.loads(open(sys.argv[1]).readline())
def write(name, ids):
    with open(name, "w") as f:
        for i in ids:
            r["game_id"] = i
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
def streams(k, n, run):
    out, at = [], [0] * k
    while len(out) < n:
        for s in range(k):
            for _ in range(run):
                out.append("stream-%02d-game-%06d" % (s, at[s]))
                at[s] += 1
    return out[:n]
three = streams(3, 66000, 7)
write("piles.jsonl", three)
# the repeat in the middle, right after a run of stream 0
write("piles-dup.jsonl", three[:70] + [three[40]] + three[70:])
write("piles-17.jsonl", streams(16, 60000, 5) + ["stream-16-game-%06d" % i for i in range(6000)])
PYEOF
for f in piles piles-17; do
	expect_status "freeze $f.jsonl" 0 "$COHORT" freeze --spec luna/spec.json --store $f-store -o $f.json $f.jsonl
	check "$f: ids in Python's sorted order" $PY -c '
import json, sys
ids = [g["game_id"] for g in json.load(open(sys.argv[1]))["games"]]
src = [json.loads(l)["game_id"] for l in open(sys.argv[2])]
sys.exit(0 if ids == sorted(src) else 1)' $f.json $f.jsonl
	check "$f: the quick proof holds" "$VF" $f.json $f-store holds
done
"$COHORT" freeze --spec luna/spec.json -o piles-dup.json piles-dup.jsonl 2>piles-dup.err
grep -q '^cohort freeze: piles-dup.jsonl:71: "game_id": duplicate "stream-02-game-000012" (first at piles-dup.jsonl:41)$' piles-dup.err &&
	[ ! -e piles-dup.json ] && ok "a repeat on another pile names both lines, the later first" ||
	notok "a repeat among piles" "$(cat piles-dup.err)"
sed -n 5p many.jsonl >>many.jsonl
"$COHORT" freeze --spec luna/spec.json -o many-dup.json many.jsonl 2>many-dup.err
grep -q '^cohort freeze: many.jsonl:66001: "game_id": duplicate "a-prefix-longer-than-24-bytes-[0-9]*" (first at many.jsonl:5)$' many-dup.err &&
	[ ! -e many-dup.json ] && ok "a duplicate among them names both lines" ||
	notok "a duplicate among them" "$(cat many-dup.err)"

# Token sums are exact integers: one record's count and every sum are at
# most 2^53 - 1 (beyond it a JSON number holds a whole number only
# approximately), and a sum past it is refused, not rounded.  g1 and g2
# of the reconcile fixture are condition none.
RD=$ROOT/tests/data/reconcile
tokens() { # OUT IN1 IN2 OUT1: g1 and g2 alone, input IN1 and IN2, g1's output OUT1
	/usr/bin/python3 - "$RD/ledger.jsonl" "$2" "$3" "$4" >"$1" <<'PYEOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["game_id"] in ("g1", "g2")]
for r, i, o in zip(lines, (sys.argv[2], sys.argv[3]), (sys.argv[4], 0)):
    r["tokens"] = {"input": int(i), "output": int(o), "reasoning": 0, "cached": 0}
    print(json.dumps(r))
PYEOF
}
tokens tok-max.jsonl 4503599627370495 4503599627370496 0
expect_status "tokens summing to 2^53 - 1 freeze" 0 "$COHORT" freeze --spec "$RD/spec.json" -o tok-max.json tok-max.jsonl
grep -q '"totals":{"d":[0-9]*,"excluded":0,"games":2,"l":[0-9]*,"tokens":{"cached":0,"input":9007199254740991,"output":0,"reasoning":0,"total":9007199254740991}' tok-max.json &&
	ok "a sum of 2^53 - 1 is written exactly" || notok "a sum of 2^53 - 1" "$(grep -o '"totals":.*' tok-max.json | head -c 300)"
tokens tok-over.jsonl 4503599627370497 4503599627370498 0
expect_fail2 "tokens summing past 2^53 are refused, not rounded" \
	'^cohort freeze: condition none of family fam: "tokens.input": the sum is above 2\^53 - 1 = 9007199254740991' \
	"$COHORT" freeze --spec "$RD/spec.json" -o tok-over.json tok-over.jsonl
[ -e tok-over.json ] && notok "no freeze written past 2^53" "tok-over.json exists" || ok "no freeze written past 2^53"
tokens tok-total.jsonl 4503599627370496 1 4503599627370496
expect_fail2 "a total of the classes past 2^53 is refused" \
	'^cohort freeze: condition none of family fam: "tokens.total": the sum is above 2\^53 - 1' \
	"$COHORT" freeze --spec "$RD/spec.json" -o tok-total.json tok-total.jsonl
