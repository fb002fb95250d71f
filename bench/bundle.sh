# bundle.sh: cohort bundle timings (printed, not asserted).  Sourced by
# bench/run.sh (helpers bench_time, bench_ratio, bench_count) with $COHORT,
# $ROOT and a scratch folder $BENCH_TMP.  The evidence is 1024 MB times
# $BENCH_SCALE of JSON Lines text (8 ledger files made from the Luna example
# ledger).  Each contender runs twice, alternating, and its best time counts.
BB=$BENCH_TMP/bundle
BUNIT=$(dirname "$COHORT")/tests/unit
mb=$(bench_count 1024)
mkdir -p "$BB/ev"

# evidence: 8 files of mb/8 MB each
per=$((mb * 1048576 / 8))
: >"$BB/seed.jsonl"
while [ "$(wc -c <"$BB/seed.jsonl")" -lt 8388608 ]; do cat "$ROOT/examples/luna/ledger.jsonl" >>"$BB/seed.jsonl"; done
items=
for i in 1 2 3 4 5 6 7 8; do
	: >"$BB/ev/ledger$i.jsonl"
	while [ "$(wc -c <"$BB/ev/ledger$i.jsonl")" -lt $per ]; do
		head -c $((per - $(wc -c <"$BB/ev/ledger$i.jsonl"))) "$BB/seed.jsonl" >>"$BB/ev/ledger$i.jsonl"
	done
	items="$items${items:+,}{\"role\":\"ledger$i\",\"path\":\"ledger$i.jsonl\"}"
done
printf '{"kind":"cohort.bundle-spec/1","name":"bench","as_of":"2026-07-20T00:00:00Z","items":[%s]}' \
	"$items" >"$BB/ev/bundle.json"
total=$(cat "$BB"/ev/ledger*.jsonl | wc -c)
cat "$BB"/ev/ledger*.jsonl >/dev/null # the same warm cache for every contender
echo "  evidence: $((total / 1048576)) MB in 8 files"

min() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a + 0 < b + 0) ? a : b }'; }
# Each contender writes its archive where the last one's was just removed:
# on a VM that gives freed memory back to its host, writing a gigabyte into
# page-cache memory freed a moment ago is several times faster than into
# memory long given back, so an archive left in place would tax the next
# writer only.
tar_cmd="cd '$BB/ev' && tar -cf '$BB/base.tar' ledger*.jsonl && openssl dgst -sha256 ledger*.jsonl >/dev/null"
t_ours= t_tar= t_tarsync= t_vours= t_sha=
for run in 1 2; do
	bench_time "tar -cf + openssl dgst -sha256" sh -c "$tar_cmd" && t_tar=$(min "$BENCH_WALL" "$t_tar")
	rm -f "$BB/base.tar"
	bench_time "tar -cf + openssl dgst -sha256 + sync" sh -c "$tar_cmd && sync '$BB/base.tar'" && t_tarsync=$(min "$BENCH_WALL" "$t_tarsync")
	rm -f "$BB/base.tar" "$BB/out.tar"
	bench_time "cohort bundle (checks, scan, archive, fsync)" \
		"$COHORT" bundle --spec "$BB/ev/bundle.json" -o "$BB/out.tar" >/dev/null && t_ours=$(min "$BENCH_WALL" "$t_ours")
done
bench_ratio "bundle / (tar + sha256)" "$t_ours" "$t_tar" "< 1.5"
bench_ratio "bundle / (tar + sha256 + sync, as bundle fsyncs)" "$t_ours" "$t_tarsync" "< 1.5"
for run in 1 2; do
	bench_time "openssl dgst -sha256 over the files" \
		sh -c "cd '$BB/ev' && openssl dgst -sha256 ledger*.jsonl >/dev/null" && t_sha=$(min "$BENCH_WALL" "$t_sha")
	bench_time "verify the archive (bundle_verify_path)" "$BUNIT/bundle_verify" "$BB/out.tar" >/dev/null &&
		t_vours=$(min "$BENCH_WALL" "$t_vours")
done
bench_ratio "verify / sha256" "$t_vours" "$t_sha" "< 1.5"
bench_time "secret scan (one thread)" "$BUNIT/secret_scan" -q "$BB"/ev/ledger*.jsonl >/dev/null
echo "  secret scan: $(awk -v s="$BENCH_WALL" -v n="$total" 'BEGIN { printf "%.0f", n / 1048576 / s }') MB/s of JSON text (target >= 200)"
rm -rf "$BB"
