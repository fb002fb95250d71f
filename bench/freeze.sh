# freeze.sh: freeze and verify on two ledgers of 1,000,000 games each,
# against the plain tools over the same bytes: the generated ledger of
# bench/genledger.c (about 650 MB at BENCH_SCALE=1) and a real-shaped one,
# the example cohorts' records replicated by bench/realshape.py (17-digit
# floats, millisecond times, UCI move lists, escapes, non-ASCII names,
# nested unknown fields, keys in any order; about 2.9 GB).  Targets:
# freeze at least 20x faster than `jq -S -c . | sha256sum`, in at most
# 1 GB; verify at least 1.6x the throughput of `openssl dgst -sha256` over
# the three files it reads (verify hashes on both processors, openssl on
# one); `bundle --check` of the spec, ledger and freeze with its store
# within 2x the time of freeze + verify.  Sourced by bench/run.sh.
games=$(bench_count 1000000)
[ "$games" -lt 100 ] && games=100
cc -O2 -o genledger "$ROOT/bench/genledger.c" || return 1
cc -O2 -o memtouch "$ROOT/bench/memtouch.c" || return 1
mkdir -p generated real-shaped
bench_time "generate $games games (genledger)" ./genledger "$games" generated/spec.json \
	>generated/ledger.jsonl || return 1
bench_time "generate $games real-shaped games (realshape.py)" python3 "$ROOT/bench/realshape.py" \
	"$games" real-shaped/spec.json real-shaped/ledger.jsonl || return 1
: >summary.txt
for shape in generated real-shaped; do
echo "  == the $shape ledger"
j_wall=
cd "$shape" || return 1
# the ledger on disk and in the page cache before anyone is timed
sync
cat ledger.jsonl >/dev/null
lbytes=$(wc -c <ledger.jsonl)
echo "  ledger: $games records, $lbytes bytes"

# The machine's speed wanders (a shared VM): freeze runs twice, verify and
# openssl five times each, taking turns, and the best time counts; jq,
# a minute a run, once.
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a + 0 < b + 0) ? a : b }'; }
f_wall= f_cpu= f_rss=
for run in 1 2; do
	rm -rf store
	bench_time "cohort freeze --store (run $run)" "$COHORT" freeze --spec spec.json --store store \
		-o freeze.json ledger.jsonl || return 1
	f_wall=$(best "$BENCH_WALL" "$f_wall") f_cpu=$(best "$BENCH_CPU" "$f_cpu") f_rss=$BENCH_RSS_MB
done
pack=$(ls store/pack/*.pack)
pbytes=$(wc -c <"$pack")
echo "  manifest: $(wc -c <freeze.json) bytes; store pack: $pbytes bytes"

if command -v jq >/dev/null 2>&1; then
	bench_time "jq -S -c . LEDGER | sha256sum" sh -c 'jq -S -c . ledger.jsonl | sha256sum >jq.sum'
	j_wall=$BENCH_WALL j_cpu=$BENCH_CPU
	bench_ratio "freeze speed-up over jq (wall)" "$j_wall" "$f_wall" ">= 20"
	bench_ratio "freeze speed-up over jq (cpu)" "$j_cpu" "$f_cpu" ">= 20"
	# The pack holds the records in ledger order; with ASCII keys, jq's
	# sorted compact output is the same bytes.
	if [ "$(openssl dgst -sha256 -r "$pack" | cut -c1-64)" = "$(cut -c1-64 jq.sum)" ]; then
		echo "  store pack = jq -S -c output, byte for byte: yes"
	else
		echo "  store pack = jq -S -c output, byte for byte: no"
	fi
else
	echo "  jq not installed: no comparison"
fi
echo "  freeze peak memory: $f_rss MB (target <= 1024)"

# verify reads the manifest, the pack and its index, and re-derives the
# manifest from the records; openssl is timed over the pack alone and over
# all three files (the bytes verify reads).
idx=$(ls store/pack/*.idx)
abytes=$((pbytes + $(wc -c <freeze.json) + $(wc -c <"$idx")))
# What two CPUs give here just now: two openssl runs at once against one.
# A shared VM's two CPUs are at times one core's two hardware threads, or
# share it with other guests; verify's second thread then adds little, and
# its ratio to one-threaded openssl falls with it.  And how fast fresh
# memory comes (bench/memtouch.c): verify takes a few hundred megabytes
# afresh, openssl a few.
probe() {
	bench_time "openssl dgst -sha256 PACK, one alone ($1)" openssl dgst -sha256 "$pack" >/dev/null
	p1=$BENCH_WALL
	bench_time "openssl dgst -sha256 PACK, two at once ($1)" \
		sh -c 'openssl dgst -sha256 "$1" >/dev/null & openssl dgst -sha256 "$1" >/dev/null; wait' sh "$pack"
	bench_ratio "two CPUs' throughput / one's ($1; 2 = two cores)" "$(awk -v a="$p1" 'BEGIN { print 2 * a }')" \
		"$BENCH_WALL"
	echo "  fresh memory, first touch of 256 MB ($1): $(../memtouch 256) GB/s"
}
probe before
v_wall= v_cpu= o_wall= o_cpu= a_wall=
for run in 1 2 3 4 5; do
	bench_time "cohort verify --store (run $run)" "$COHORT" verify --store store -o verify.json freeze.json
	v_wall=$(best "$BENCH_WALL" "$v_wall") v_cpu=$(best "$BENCH_CPU" "$v_cpu") v_rss=$BENCH_RSS_MB
	bench_time "openssl dgst -sha256 PACK (run $run)" openssl dgst -sha256 "$pack" >/dev/null
	o_wall=$(best "$BENCH_WALL" "$o_wall") o_cpu=$(best "$BENCH_CPU" "$o_cpu")
	bench_time "openssl dgst -sha256 FREEZE PACK INDEX (run $run)" \
		openssl dgst -sha256 freeze.json "$pack" "$idx" >/dev/null
	a_wall=$(best "$BENCH_WALL" "$a_wall")
done
probe after
grep -q '"ok":true' verify.json && echo "  verify: all holds" || echo "  verify: FINDINGS (unexpected)"
awk -v b="$pbytes" -v a="$abytes" -v v="$v_wall" -v o="$o_wall" -v w="$a_wall" 'BEGIN {
	if (v > 0 && o > 0 && w > 0)
		printf "  throughput: verify %.1f MB/s of pack (%.1f MB/s of all it reads); openssl %.1f MB/s (%.1f MB/s)\n",
		    b / v / 1e6, a / v / 1e6, b / o / 1e6, a / w / 1e6 }'
echo "  verify peak memory: $v_rss MB"
bench_ratio "verify throughput / openssl's over the pack (wall)" "$o_wall" "$v_wall"
bench_ratio "verify throughput / openssl's over all verify reads (wall)" "$a_wall" "$v_wall" ">= 1.6"
bench_ratio "verify throughput / openssl's over the pack (cpu)" "$o_cpu" "$v_cpu"

# The publication gate's check of the same cohort: every file read,
# digested and scanned, the ledger frozen again, the store checked.
cat >bundle.json <<JSON
{"kind":"cohort.bundle-spec/1","name":"bench-$shape","as_of":"2030-01-01T00:00:00Z",
 "items":[{"role":"spec","path":"spec.json"},{"role":"ledger","path":"ledger.jsonl"},
  {"role":"freeze","path":"freeze.json","store":"store","derived_from":["spec","ledger"]}]}
JSON
b_wall= b_cpu= b_rss=
for run in 1 2; do
	bench_time "cohort bundle --check (run $run)" "$COHORT" bundle --check --spec bundle.json \
		-o check.json 2>/dev/null
	b_wall=$(best "$BENCH_WALL" "$b_wall") b_cpu=$(best "$BENCH_CPU" "$b_cpu") b_rss=$BENCH_RSS_MB
done
# the ledgers' ladders have not stopped: live findings, and nothing else
nf=$(grep -o '"check":"[a-z-]*"' check.json | wc -l)
nlive=$(grep -o '"check":"live"' check.json | wc -l)
if [ "$nf" -eq "$nlive" ]; then
	echo "  bundle --check: $nlive live findings (the ladders still climb), nothing else; every check ran"
else
	echo "  bundle --check: $((nf - nlive)) FINDINGS besides live ones (unexpected)"
fi
echo "  bundle --check peak memory: $b_rss MB"
fv_wall=$(awk -v a="$f_wall" -v b="$v_wall" 'BEGIN { print a + b }')
bench_ratio "bundle --check / (freeze + verify) (wall)" "$b_wall" "$fv_wall" "<= 2"
{
	printf '%-12s freeze %6ss (jq %6ss, x%s)  verify %6ss (openssl %6ss, x%s)  check %6ss (x%s of freeze + verify)\n' "$shape" \
		"$f_wall" "${j_wall:-?}" "$(awk -v a="${j_wall:-0}" -v b="$f_wall" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')" \
		"$v_wall" "$a_wall" "$(awk -v a="$a_wall" -v b="$v_wall" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')" \
		"$b_wall" "$(awk -v a="$b_wall" -v b="$fv_wall" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
} >>../summary.txt
cd .. || return 1
rm -rf "$shape/store"
done
echo "  == side by side (wall seconds, ratio to the plain tool)"
sed 's/^/  /' summary.txt
