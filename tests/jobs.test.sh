# jobs.test.sh: the same bytes on any number of threads.  freeze (COHORT_JOBS),
# verify (COHORT_JOBS; the quick proof and the thorough way) and ladder
# simulate (--jobs) run with 1, 2 and 3 threads and must write the same
# bytes; the thread pool itself on none to eight threads.
EX=$ROOT/examples
SPEC=$EX/luna/spec.json

check "unit: the pool runs every job once, into its own slot, on 0 to 8 threads (tests/unit/pool_check.c)" \
	"$BUILD/tests/unit/pool_check"
check "unit: a ring hands 40 MB on in order, once, through slots that fill and wrap; a failing take stops it (tests/unit/ring_check.c)" \
	"$BUILD/tests/unit/ring_check"

# 66,000 games: several 4 MiB chunks and pieces, the sort and the games
# list each split over two threads; 3,000 for the thorough way's ranges.
head -n 1 "$EX/luna/ledger.jsonl" | sed 's/"requests":\[[^]]*\]/"requests":[]/' >one.jsonl
awk 'NR == 1 { i = index($0, "\"game_id\":\"") + 11; pre = substr($0, 1, i - 1)
	post = substr($0, i); post = substr(post, index(post, "\""))
	for (k = 0; k < 66000; k++) printf "%sjobs-%05d%s\n", pre, (k * 7919) % 66000, post }' \
	one.jsonl >many.jsonl
head -n 3000 many.jsonl >some.jsonl

# Each run in a folder of its own, under the same names (a report names
# its files).
for j in 1 2 3; do
	mkdir j$j
	(cd j$j && export COHORT_JOBS=$j &&
	"$COHORT" freeze --spec "$SPEC" --store store -o many.json ../many.jsonl &&
	"$COHORT" freeze --spec "$SPEC" --store some -o some.json ../some.jsonl
	"$COHORT" verify --store store -o verify.json many.json
	echo $? >verify.status
	# one stored record changed, its length kept: the quick proof
	# declines and the thorough way names it
	pack=$(ls some/pack/*.pack)
	sed '1s/"color":"\([a-z]*\)k"/"color":"\1K"/' "$pack" >pack.tmp && cat pack.tmp >"$pack"
	"$COHORT" verify --store some -o bad.json some.json
	echo $? >bad.status
	"$COHORT" ladder simulate --spec "$SPEC" --truth 1100:2900:900 --starts 1320,2120 --reps 60 \
		--seed 7 --jobs $j -o sim.json)
done
for j in 2 3; do
	for f in many.json store/pack/*.pack store/pack/*.idx verify.json bad.json sim.json; do
		same_bytes "the same $f with 1 and $j threads" j1/$f j$j/$f
	done
done
echo 0 >want0.status
echo 1 >want1.status
same_bytes "verify holds on the freeze of 66,000 games" j1/verify.status want0.status
same_bytes "verify finds the changed record" j1/bad.status want1.status
check "the thorough way named the changed record, alone" \
	test "$(grep -o '"ok":false' j1/bad.json | wc -l)" -ge 1 -a "$(grep -o '"subject":"jobs-' j1/bad.json | wc -l)" -eq 1
COHORT_JOBS=1 "$COHORT" freeze --spec "$SPEC" -o luna1.json "$EX/luna/ledger.jsonl"
same_bytes "freeze on one thread: the golden bytes" luna1.json "$ROOT/golden/freeze-luna/stdout"

# bundle --check and verify ARCHIVE run their slow checks at once (freezing
# again, each store, computing again, the reviewer's page, each file read):
# the same report with 1, 2 and 3 threads, both when all holds and when a
# changed ledger game, a changed rating and a changed stored record are
# found (in a bag whose own digests and bundle.json were rewritten to match).
luna_evidence lb
cp -R lb lbad
sed '2s/"result":"win"/"result":"loss"/' lb/ledger.jsonl >lbad/ledger.jsonl
"$COHORT" bundle --spec lb/bundle.json -o lb.tar >/dev/null 2>&1 ||
	notok "the Luna evidence bundles" "$("$COHORT" bundle --spec lb/bundle.json -o lb.tar 2>&1 | tail -3)"
mkdir -p bad && tar -xf lb.tar -C bad 2>/dev/null
BADBAG=bad/luna-publication
/usr/bin/python3 "$ROOT/tests/bagtool.py" json "$BADBAG/data/fit.json" \
	'd["black_penalty"]["value"] = 36'
sed '2s/"result":"win"/"result":"loss"/' "$BADBAG/data/ledger.jsonl" >bad.jsonl &&
	cat bad.jsonl >"$BADBAG/data/ledger.jsonl"
pk=$(ls "$BADBAG"/data/store/pack/*.pack | head -1)
sed '2s/"color":"\([a-z]*\)k"/"color":"\1K"/' "$pk" >pk.tmp && cat pk.tmp >"$pk"
/usr/bin/python3 "$ROOT/tests/bagtool.py" reid "$BADBAG" && /usr/bin/python3 "$ROOT/tests/bagtool.py" rebag "$BADBAG" &&
	/usr/bin/python3 "$ROOT/tests/bagtool.py" tar "$BADBAG" bad.tar
for j in 1 2 3; do
	COHORT_JOBS=$j "$COHORT" bundle --check --spec lb/bundle.json >check$j.json 2>check$j.err
	echo $? >check$j.status
	COHORT_JOBS=$j "$COHORT" bundle --check --spec lbad/bundle.json >refuse$j.json 2>refuse$j.err
	echo $? >refuse$j.status
	COHORT_JOBS=$j "$COHORT" verify -o va$j.json lb.tar
	echo $? >va$j.status
	COHORT_JOBS=$j "$COHORT" verify -o vbad$j.json bad.tar
	echo $? >vbad$j.status
done
for j in 2 3; do
	for f in check refuse va vbad; do
		same_bytes "$f: the same report with 1 and $j threads" $f"1.json" $f$j.json
		same_bytes "$f: the same exit status with 1 and $j threads" $f"1.status" $f$j.status
	done
	same_bytes "bundle --check: the same notes with 1 and $j threads" refuse1.err refuse$j.err
done
check "bundle --check of the Luna evidence holds" test "$(cat check1.status)" = 0
check "bundle --check refuses the changed ledger (a stale freeze)" \
	sh -c 'test "$(cat refuse1.status)" = 1 && grep -q "\"check\":\"stale\"" refuse1.json'
check "verify ARCHIVE holds on the Luna archive" test "$(cat va1.status)" = 0
check "verify ARCHIVE finds the changed ledger, store record and rating" sh -c \
	'test "$(cat vbad1.status)" = 1 && /usr/bin/python3 -c "
import json, sys
bad = {c[\"check\"] for c in json.load(sys.stdin)[\"checks\"] if not c[\"ok\"]}
sys.exit(not {\"freeze-ledgers\", \"refit\"} <= bad or len(bad) < 3)" <vbad1.json'

# A record of 12 MiB among the 66,000 (longer than a chunk: its first part
# carried, then a chunk's buffer carried whole) and chunks whose buffers
# are used again and again: the same bytes with 1 and 2 threads, every
# record frozen once, the long one stored as Python's canonical writer
# gives it.
head -n 30000 many.jsonl >long.jsonl
/usr/bin/python3 -c '
import json, sys
r = json.loads(open("one.jsonl").readline())
r["game_id"] = "long-game"
r["note"] = "n" * (12 << 20)
print(json.dumps(r))
open("long.canon", "w").write(json.dumps(r, sort_keys=True, separators=(",", ":"), ensure_ascii=False))' >>long.jsonl
tail -n +30001 many.jsonl >>long.jsonl
for j in 1 2; do
	COHORT_JOBS=$j "$COHORT" freeze --spec "$SPEC" --store lst$j -o long$j.json long.jsonl
done
same_bytes "a 12 MiB record among 66,000: the same manifest with 1 and 2 threads" long1.json long2.json
/usr/bin/python3 -c '
import hashlib, json, sys
m = json.load(open("long1.json"))
ids = {g["game_id"]: g["id"] for g in m["games"] + m["excluded"]}
assert len(ids) == 66001, len(ids)
want = "sha256:" + hashlib.sha256(open("long.canon", "rb").read()).hexdigest()
assert ids["long-game"] == want, (ids["long-game"], want)' &&
	ok "a 12 MiB record among 66,000: every game frozen once, the long one canonical" ||
	notok "a 12 MiB record among 66,000" "see long1.json"
expect_status "a 12 MiB record among 66,000: verify re-derives the freeze" 0 \
	"$COHORT" verify --store lst2 long2.json
