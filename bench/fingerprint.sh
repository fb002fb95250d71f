# fingerprint.sh: cohort fingerprint on six families in two replications
# over about 1,000,000 decisions (730 positions at BENCH_SCALE=1), with
# 2,000 bootstrap replicates on two threads (target: 30 s), and again with
# 0 and 1,000 to show the replicates' cost is linear in their number;
# then cohort distance over 50 fingerprints (target: 1 s), and its table.
# The same bytes on one and three threads as on two.  Sourced by
# bench/run.sh.
pos=$(bench_count 730)
[ "$pos" -lt 12 ] && pos=12
python3 "$ROOT/bench/fp-gen.py" . "$pos" 2000 >n.txt || return 1
echo "  $(cat n.txt) decisions, $(wc -l <games.jsonl) games, $pos positions"
bench_time "cohort freeze (decisions and games)" "$COHORT" freeze --spec spec.json \
	--candidates candidates.jsonl --decisions decisions.jsonl --store st -o f.json games.jsonl || return 1
for reps in 0 1000 2000; do
	bench_time "cohort fingerprint, $reps replicates, 2 threads" env COHORT_JOBS=2 "$COHORT" fingerprint \
		--prereg prereg.json --store st --replicates "$reps" -o fp$reps.json f.json || return 1
	eval "w$reps=\$BENCH_WALL c$reps=\$BENCH_CPU"
done
# shellcheck disable=SC2154
echo "  2,000 replicates: $w2000 s wall (target 30 s); cpu beyond reading the data:" \
	"$(awk -v a="$c1000" -v b="$c2000" -v z="$c0" 'BEGIN { printf "%.2f s for 1,000, %.2f s for 2,000 (x%.2f)", a - z, b - z, (a - z > 0 ? (b - z) / (a - z) : 0) }')"
bench_ratio "fingerprint, 2,000 replicates: target / wall" 30 "$w2000" ">= 1"
# linear (or better): the second thousand replicates cost no more than the
# first, which also pays what any bootstrap sets up once
bench_ratio "cpu of replicates 1,001-2,000 / of 1-1,000 (linear: 1)" \
	"$(awk -v b="$c2000" -v a="$c1000" 'BEGIN { print b - a }')" \
	"$(awk -v a="$c1000" -v z="$c0" 'BEGIN { print a - z }')" "<= 1"
for j in 1 3; do
	COHORT_JOBS=$j "$COHORT" fingerprint --prereg prereg.json --store st --replicates 1000 \
		-o fp1000-$j.json f.json || return 1
	if cmp -s fp1000.json fp1000-$j.json; then
		echo "  fingerprint on $j thread(s): the same bytes as on 2"
	else
		echo "  fingerprint on $j thread(s): OTHER BYTES than on 2 (unexpected)"
	fi
done
# 50 fingerprints: the twelve above, renamed and shifted, 25 families of two
python3 - fp2000.json <<'P' || return 1
import json, sys
d = json.load(open(sys.argv[1]))
fps = []
for i in range(50):
    f = json.loads(json.dumps(d["fingerprints"][i % len(d["fingerprints"])]))
    f["family"], f["replication"] = "m%02d" % (i // 2), "r%d" % (i % 2 + 1)
    shift = 0.01 * (i // 2)
    for x in f["features"]:
        if x["estimate"] is not None:
            x["estimate"] += shift * abs(x["estimate"])
    fps.append(f)
d["fingerprints"] = fps
json.dump(d, open("fp50.json", "w"))
P
bench_time "cohort distance, 50 fingerprints, 2 threads" env COHORT_JOBS=2 "$COHORT" distance \
	-o d50.json fp50.json || return 1
echo "  $(python3 -c 'import json,sys; d=json.load(open("d50.json")); print(len(d["pairs"]), "pairs,", len(d["features"]), "features,", d["pairs"][0]["replicates"], "replicates each")') (target 1 s)"
bench_ratio "distance, 50 fingerprints: target / wall" 1 "$BENCH_WALL" ">= 1"
bench_time "cohort distance --format table, 50 fingerprints" env COHORT_JOBS=2 "$COHORT" distance \
	--format table -o d50.txt fp50.json || return 1
