# tables.test.sh: tables for people say what they mean.  A verify failure
# names the field that differs and both values; counts agree with their
# nouns; a table's shorthand is explained under it.
cp -r "$ROOT/examples/luna" luna
"$COHORT" freeze --spec luna/spec.json --store luna/store -o luna/freeze.json luna/ledger.jsonl
sed 's/"totals":{"d":54/"totals":{"d":55/' luna/freeze.json >edited.json
"$COHORT" verify --store luna/store --format table edited.json >v.txt
rc=$?
if [ $rc = 1 ] && grep -q '^FAIL derivation *totals *"totals.d": the manifest has 55, the records give 54$' v.txt &&
	tail -n 1 v.txt | grep -q '^7 checks hold, 1 finding$'; then
	ok "verify: the field that differs, both values, \"1 finding\""
else
	notok "verify: the field that differs, both values, \"1 finding\"" "exit $rc: $(grep -v '^ok' v.txt)"
fi
# a flipped result changes a block, its condition and the totals: each
# names its first field and how many differ
"$COHORT" verify --store luna/store --format json edited.json >v.json
/usr/bin/python3 - v.json <<'P' && ok "verify json: the detail names the field" || notok "verify json: the detail names the field" "$(head -c 300 v.json)"
import json, sys
c = [x for x in json.load(open(sys.argv[1]))["checks"] if not x["ok"]]
assert len(c) == 1 and c[0]["subject"] == "totals", c
assert c[0]["detail"] == '"totals.d": the manifest has 55, the records give 54', c
P
"$COHORT" bound --format table luna/freeze.json >b.txt
grep -q '^~1687: a condition.s games pooled, at their mean anchor$' b.txt &&
	grep -q 'or more  saturated$' b.txt && ! grep -q '\.\.-' b.txt &&
	ok "bound table: ~ and > explained, an open interval in words" || notok "bound table: shorthand explained" "$(tail -4 b.txt)"
"$COHORT" ladder simulate --spec luna/spec.json --truth 1500:1500:100 --starts 1320 --reps 4 --seed 1 \
	--format table >s.txt 2>s.err
grep -q '^sat: share of blocks saturated' s.txt && grep -q 'undef j/d/l:' s.txt &&
	ok "ladder audit table: sat and undef explained" || notok "ladder audit table: sat and undef explained" "$(head -5 s.txt; cat s.err)"
