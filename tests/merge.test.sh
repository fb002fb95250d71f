# merge.test.sh: a run cut into shards, run as separate processes in a
# random order, merged: the bytes of the run on one machine; and every
# refusal (a missing or duplicated shard, parts of different runs,
# malformed parts) exits 2 naming the file and the field.
PY=/usr/bin/python3
SPEC=$ROOT/examples/luna/spec.json
RUN="--spec $SPEC --truth 1100:2900:450 --starts 1320,1720 --reps 700 --seed 11"

"$COHORT" ladder simulate $RUN --jobs 2 -o whole.json
# 4 shards, started in a random order (shuf), each its own process with
# its own thread count, all at once.
for i in $(printf '1\n2\n3\n4\n' | shuf); do
	"$COHORT" ladder simulate $RUN --jobs $((i % 3 + 1)) --shard $i/4 -o part$i.json &
done
wait
for i in 1 2 3 4; do [ -s part$i.json ] || notok "shard $i/4 written" "no part$i.json"; done
"$COHORT" merge -o merged.json $(printf 'part1.json\npart2.json\npart3.json\npart4.json\n' | shuf)
same_bytes "4 shards merged in a random order: the bytes of one run" whole.json merged.json
"$COHORT" merge part4.json part3.json part2.json part1.json >stdout.json
same_bytes "merge to standard output: the same bytes" whole.json stdout.json
check "the parts validate against schemas/part.schema.json" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/part.schema.json" part1.json part2.json part3.json part4.json
# units: 2 starts x 5 truths x 3 chunks (700 reps: chunks of 250) = 30;
# shard I holds floor(30 (I-1)/4) .. floor(30 I/4) - 1.
$PY - part1.json part2.json part3.json part4.json >slices.txt <<'PYEOF'
import json, sys
for i, p in enumerate(sys.argv[1:], 1):
    d = json.load(open(p))
    u = [x["unit"] for x in d["units"]]
    want = list(range(30 * (i - 1) // 4, 30 * i // 4))
    print("ok" if u == want and d["shard"] == [i, 4] else "bad %s %s" % (p, u))
PYEOF
[ "$(sort -u slices.txt)" = ok ] && ok "each shard holds its slice of the 30 units" ||
	notok "each shard holds its slice of the 30 units" "$(grep bad slices.txt | head -2)"
# The key is the identity of {of, settings}, computed again here.
$PY - part2.json >key.txt <<'PYEOF'
import hashlib, json, sys
d = json.load(open(sys.argv[1]))
def canon(o):  # integers and these floats print alike in RFC 8785 and here
    return json.dumps(o, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
k = "sha256:" + hashlib.sha256(canon({"of": d["of"], "settings": d["settings"]}).encode()).hexdigest()
print("ok" if k == d["key"] else "bad %s %s" % (k, d["key"]))
PYEOF
[ "$(cat key.txt)" = ok ] && ok "the key is the identity of {of, settings}" || notok "the key is the identity of {of, settings}" "$(cat key.txt)"

# One shard, and more shards than units.
"$COHORT" ladder simulate $RUN --shard 1/1 -o one.json && "$COHORT" merge -o m1.json one.json
same_bytes "1 shard merged: the bytes of one run" whole.json m1.json
R2="--spec $SPEC --truth 1100:1500:400 --starts 1320 --reps 300 --seed 3"
"$COHORT" ladder simulate $R2 -o w2.json
for i in 1 2 3 4 5 6 7; do "$COHORT" ladder simulate $R2 --shard $i/7 -o s$i.json; done
"$COHORT" merge -o m2.json s7.json s6.json s5.json s4.json s3.json s2.json s1.json
same_bytes "7 shards of 4 units (some empty) merged: the bytes of one run" w2.json m2.json

# Refusals, each exit 2 with nothing written.
expect_fail2 "a missing shard is refused" 'part1.json: "shard": shard 3/4 of its run is missing' \
	"$COHORT" merge part1.json part2.json part4.json
expect_fail2 "a shard twice is refused" 'part2.json: "shard": shard 2/4 again \(also part2.json\)' \
	"$COHORT" merge part1.json part2.json part2.json part3.json part4.json
"$COHORT" ladder simulate --spec $SPEC --truth 1100:2900:450 --starts 1320,1720 --reps 700 --seed 12 \
	--shard 3/4 -o other3.json
expect_fail2 "a part of another run (another seed) is refused" \
	'other3.json: "key": a part of another run than part1.json' \
	"$COHORT" merge part1.json part2.json other3.json part4.json
"$COHORT" ladder simulate $RUN --shard 3/5 -o five3.json
expect_fail2 "a part of another shard count is refused" \
	'five3.json: "shard": one of 5 shards, but part1.json is one of 4' \
	"$COHORT" merge part1.json part2.json five3.json part4.json
sed 's/"seed":"11"/"seed":"13"/' part3.json >forged3.json
expect_fail2 "a part whose key is not its settings' identity is refused" 'forged3.json: "key": not the identity of its settings' \
	"$COHORT" merge part1.json part2.json forged3.json part4.json
sed 's/"sums":\[/"sums":["x",/' part2.json >badsums.json
expect_fail2 "a malformed unit is refused, naming its file and field" 'badsums.json: "units": unit [0-9]+: "sums": expected 6 numbers' \
	"$COHORT" merge part1.json badsums.json part3.json part4.json
$PY -c '
import json, sys
d = json.load(open("part4.json")); d["units"].pop()
sys.stdout.write(json.dumps(d, sort_keys=True, separators=(",", ":")))' >short4.json
expect_fail2 "a part without all its units is refused" 'short4.json: "units": expected 8 \(from unit 22\), got 7' \
	"$COHORT" merge part1.json part2.json part3.json short4.json
sed 's/"shard":\[2,4\]/"shard":[5,4]/' part2.json >badshard.json
expect_fail2 "a shard outside 1..N is refused" 'badshard.json: "shard": expected \[I, N\]' \
	"$COHORT" merge part1.json badshard.json part3.json part4.json
sed 's/"kind":"cohort.part\/1"/"kind":"cohort.parts\/1"/' part2.json >badkind.json
expect_fail2 "a document of another kind is refused" 'badkind.json: "kind": expected cohort.part/1' \
	"$COHORT" merge part1.json badkind.json part3.json part4.json
printf '{"kind":"cohort.part/1","of":"cohort.nothing/1","shard":[1,1],"settings":{},"units":[],"key":"%s"}' \
	"sha256:$(printf '{"of":"cohort.nothing/1","settings":{}}' | sha256sum | cut -c1-64)" >unknown.json
expect_fail2 "a kind no merge knows is refused" 'unknown.json: "of": no merge knows "cohort.nothing/1"' \
	"$COHORT" merge unknown.json
printf '{"kind":"cohort.part/1"' >trunc.json
expect_fail2 "a part that is not JSON is refused with its place" '^cohort merge: trunc.json:1:' \
	"$COHORT" merge trunc.json
expect_fail2 "merge -o writes nothing on a refusal" 'missing' "$COHORT" merge -o none.json part1.json
[ -e none.json ] && notok "no output file on a refusal" "none.json exists" || ok "no output file on a refusal"
expect_fail2 "--shard 0/4 is a usage error" '--shard: expected I/N with 1 <= I <= N' \
	"$COHORT" ladder simulate $RUN --shard 0/4
expect_fail2 "--shard 5/4 is a usage error" '--shard: expected I/N' "$COHORT" ladder simulate $RUN --shard 5/4
expect_fail2 "--shard with --emit-ledger is refused" '--shard and --emit-ledger cannot go together|--emit-ledger and --shard cannot go together' \
	"$COHORT" ladder simulate $RUN --shard 1/4 --emit-ledger l.jsonl

# The fingerprint of simulated data, its replicates cut into 4 shards.
mkdir fp
"$COHORT" simulate paired --seed 5 --emit fp -o fp/truth.json "$ROOT/examples/simulate/two-families.json"
CID=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["candidates"])' fp/truth.json)
cat >fp/prereg.json <<JEOF
{"kind": "cohort.prereg/1", "name": "sim", "registered_at": "2026-01-15T00:00:00Z",
 "candidates": "$CID", "widths": [0, 2, 5],
 "allocation": {"splits": {"explore": 40, "confirm": 20, "heldout": 20}, "order_seeds": 2, "budgets": []},
 "exclusions": ["provider_error", "after_cut"],
 "features": ["unaided", "r_k", "delta_r", "recall_unaided", "order_change", "illegal_rate", "latency_per_decision"],
 "distance": {"lambda": 0.1, "population": "panel"},
 "bootstrap": {"replicates": 150, "unit": "opening", "seed": 1},
 "blunder_cp": 300, "predictions": []}
JEOF
for r in 1 2; do
	"$COHORT" freeze --spec fp/spec.json --candidates fp/candidates.jsonl --decisions fp/decisions-r$r.jsonl \
		--store fp/store -o fp/f$r.json fp/ledger-r$r.jsonl
done
FPRUN="--prereg fp/prereg.json --store fp/store fp/f1.json fp/f2.json"
COHORT_JOBS=2 "$COHORT" fingerprint $FPRUN -o fp/whole.json
for i in $(printf '1\n2\n3\n4\n' | shuf); do
	COHORT_JOBS=$((i % 2 + 1)) "$COHORT" fingerprint $FPRUN --shard $i/4 -o fp/part$i.json &
done
wait
"$COHORT" merge -o fp/merged.json $(printf 'fp/part1.json\nfp/part2.json\nfp/part3.json\nfp/part4.json\n' | shuf)
same_bytes "fingerprint: 4 shards of replicates merged in a random order: the bytes of one run" fp/whole.json fp/merged.json
check "fingerprint parts validate against schemas/part.schema.json" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/part.schema.json" fp/part1.json fp/part2.json fp/part3.json fp/part4.json
"$COHORT" fingerprint --prereg fp/prereg.json --store fp/store --replicates 149 --shard 2/4 fp/f1.json fp/f2.json \
	-o fp/other2.json
expect_fail2 "fingerprint: a part of another run (other replicates) is refused" \
	'fp/other2.json: "key": a part of another run than fp/part1.json' \
	"$COHORT" merge fp/part1.json fp/other2.json fp/part3.json fp/part4.json
expect_fail2 "fingerprint and ladder parts do not mix" '"of": "cohort.ladder-audit/1", but fp/part1.json is "cohort.fingerprint/1"' \
	"$COHORT" merge fp/part1.json part2.json

# The distance of those fingerprints, its pairs cut into 3 shards.
"$COHORT" distance -o fp/dist.json fp/whole.json
for i in $(printf '1\n2\n3\n' | shuf); do
	COHORT_JOBS=$((i % 2 + 1)) "$COHORT" distance --shard $i/3 -o fp/dpart$i.json fp/whole.json &
done
wait
"$COHORT" merge -o fp/dmerged.json $(printf 'fp/dpart1.json\nfp/dpart2.json\nfp/dpart3.json\n' | shuf)
same_bytes "distance: 3 shards of pairs merged in a random order: the bytes of one run" fp/dist.json fp/dmerged.json
$PY -c '
import json, sys
d = json.load(open("fp/dpart2.json")); d["units"][0]["d2r"] = d["units"][0]["d2r"][:-1]
sys.stdout.write(json.dumps(d, sort_keys=True, separators=(",", ":")))' >fp/dshort2.json
expect_fail2 "distance: a pair without every replicate is refused, naming the file" \
	'fp/dshort2.json: "units": unit [0-9]+: expected d2r' \
	"$COHORT" merge fp/dpart1.json fp/dshort2.json fp/dpart3.json
expect_fail2 "distance: a missing shard is refused" 'shard 2/3 of its run is missing' \
	"$COHORT" merge fp/dpart1.json fp/dpart3.json
