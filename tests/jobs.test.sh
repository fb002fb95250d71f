# jobs.test.sh: the same bytes on any number of threads.  freeze (COHORT_JOBS),
# verify (COHORT_JOBS; the quick proof and the thorough way) and ladder
# simulate (--jobs) run with 1, 2 and 3 threads and must write the same
# bytes; the thread pool itself on none to eight threads.
EX=$ROOT/examples
SPEC=$EX/luna/spec.json

check "unit: the pool runs every job once, into its own slot, on 0 to 8 threads (tests/unit/pool_check.c)" \
	"$BUILD/tests/unit/pool_check"

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
