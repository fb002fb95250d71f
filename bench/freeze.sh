# freeze.sh: freeze and verify on a generated ledger of 1,000,000 games
# (about 650 MB at BENCH_SCALE=1), against the plain tools over the same
# bytes.  Targets: freeze at least 10x faster than `jq -S -c . | sha256sum`,
# in at most 2 GB; verify at least 0.8x the throughput of
# `openssl dgst -sha256` over the records.  Sourced by bench/run.sh.
games=$(bench_count 1000000)
[ "$games" -lt 100 ] && games=100
cc -O2 -o genledger "$ROOT/bench/genledger.c" || return 1
bench_time "generate $games games (genledger)" ./genledger "$games" spec.json >ledger.jsonl ||
	return 1
lbytes=$(wc -c <ledger.jsonl)
echo "  ledger: $games records, $lbytes bytes"

bench_time "cohort freeze --store" "$COHORT" freeze --spec spec.json --store store \
	-o freeze.json ledger.jsonl || return 1
f_wall=$BENCH_WALL f_cpu=$BENCH_CPU f_rss=$BENCH_RSS_MB
pack=$(ls store/pack/*.pack)
pbytes=$(wc -c <"$pack")
echo "  manifest: $(wc -c <freeze.json) bytes; store pack: $pbytes bytes"

if command -v jq >/dev/null 2>&1; then
	bench_time "jq -S -c . LEDGER | sha256sum" sh -c 'jq -S -c . ledger.jsonl | sha256sum >jq.sum'
	j_wall=$BENCH_WALL j_cpu=$BENCH_CPU
	bench_ratio "freeze speed-up over jq (wall)" "$j_wall" "$f_wall" ">= 10"
	bench_ratio "freeze speed-up over jq (cpu)" "$j_cpu" "$f_cpu" ">= 10"
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
echo "  freeze peak memory: $f_rss MB (target <= 2048)"

bench_time "cohort verify --store" "$COHORT" verify --store store -o verify.json freeze.json
v_wall=$BENCH_WALL v_cpu=$BENCH_CPU
bench_time "openssl dgst -sha256 PACK" openssl dgst -sha256 "$pack" >/dev/null
o_wall=$BENCH_WALL o_cpu=$BENCH_CPU
awk -v b="$pbytes" -v v="$v_wall" -v o="$o_wall" 'BEGIN {
	if (v > 0 && o > 0)
		printf "  throughput: verify %.1f MB/s, openssl %.1f MB/s\n", b / v / 1e6, b / o / 1e6 }'
bench_ratio "verify throughput / openssl's (wall)" "$o_wall" "$v_wall" ">= 0.8"
bench_ratio "verify throughput / openssl's (cpu)" "$o_cpu" "$v_cpu" ">= 0.8"
