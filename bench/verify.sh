# verify.sh: `cohort verify ARCHIVE` on the archive of a generated cohort
# of 1,000,000 games times $BENCH_SCALE (ledger, freeze with its store,
# fit, bound), against tar extraction + sha256sum -c of its manifests
# (target: within 1.5x); and on a bag whose manifest has 100,000 lines
# (target: within 2 s); and the refusal of an archive of more entries
# than the cap (target: within 20 s).  Sourced by bench/run.sh.
games=$(bench_count 1000000)
[ "$games" -lt 1000 ] && games=1000
cc -O2 -o genledger "$ROOT/bench/genledger.c" || return 1
./genledger "$games" spec.json terminal >ledger.jsonl || return 1
mkdir -p ev
mv spec.json ledger.jsonl ev/
(
	cd ev || exit 1
	"$COHORT" freeze --spec spec.json --store store -o freeze.json ledger.jsonl &&
		"$COHORT" fit -o fit.json freeze.json && "$COHORT" bound -o bound.json freeze.json
) >/dev/null || return 1
cat >ev/bundle.json <<'JSON'
{"kind": "cohort.bundle-spec/1", "name": "bench-cohort", "as_of": "2030-01-01T00:00:00Z",
 "items": [{"role": "spec", "path": "spec.json"}, {"role": "ledger", "path": "ledger.jsonl"},
  {"role": "freeze", "path": "freeze.json", "store": "store", "derived_from": ["spec", "ledger"]},
  {"role": "fit", "path": "fit.json", "derived_from": ["freeze"]},
  {"role": "bound", "path": "bound.json", "derived_from": ["freeze"]}]}
JSON
"$COHORT" bundle --spec ev/bundle.json -o cohort.tar >/dev/null || return 1
echo "  archive: $games games, $(wc -c <cohort.tar) bytes"
cat cohort.tar >/dev/null
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a + 0 < b + 0) ? a : b }'; }
t_base= t_ours=
for run in 1 2; do
	rm -rf x
	bench_time "tar -xf + sha256sum -c (run $run)" sh -c 'mkdir x && tar -m -xf cohort.tar -C x &&
		cd x/bench-cohort && sha256sum -c --quiet manifest-sha256.txt tagmanifest-sha256.txt' &&
		t_base=$(best "$BENCH_WALL" "$t_base")
	rm -rf x
	bench_time "cohort verify ARCHIVE (run $run)" "$COHORT" verify -o v.json cohort.tar &&
		t_ours=$(best "$BENCH_WALL" "$t_ours")
done
grep -q '"ok":true' v.json && echo "  verify: all holds" || echo "  verify: FINDINGS (unexpected)"
bench_ratio "verify / (tar -xf + sha256sum -c)" "$t_ours" "$t_base" "< 1.5"

# a bag of one file whose manifest names 100,000 more (each a finding)
mkdir -p m/b/data
printf 'BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n' >m/b/bagit.txt
printf 'x\n' >m/b/data/x
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "%064x  data/absent/%07d\n", i, i }' >m/b/manifest-sha256.txt
(cd m && tar -cf ../m.tar b)
bench_time "cohort verify: a 100,000-line manifest" "$COHORT" verify -o m.json m.tar
echo "  (target: within 2 s)"

# an archive of 1,000,001 empty entries (the cap is 1,000,000): refused
# while the headers are read (the attack suite checks that it is refused;
# this is how long the refusal takes; target: within 20 s)
python3 "$ROOT/tests/bagtool.py" entries cap.tgz 1000001 || return 1
bench_time "cohort verify: 1,000,001 entries, refused" "$COHORT" verify -o cap.json cap.tgz
echo "  (exit status 2 expected; target: within 20 s)"
