# verify.test.sh: derived documents are computed again from the input they
# name; a changed byte, a missing input, or a different input is a finding.
check "unit: a freeze's games held flat are the tree's (tests/unit/freeze_games.c)" \
	"$BUILD/tests/unit/freeze_games"
cp -r "$ROOT/examples/luna" luna
"$COHORT" freeze --spec luna/spec.json --store luna/store -o luna/freeze.json luna/ledger.jsonl
"$COHORT" fit -o fit.json luna/freeze.json
"$COHORT" bound -o bound.json luna/freeze.json
"$COHORT" bound --level 0.9 --one-sided -o bound90.json luna/freeze.json
expect_status "freeze, fit and bound verify together" 0 "$COHORT" verify --store luna/store luna/freeze.json fit.json bound.json bound90.json
[ "$(grep -o '"check":"refit","detail":"[^"]*","ok":true' "$TMP/out" | wc -l)" = 3 ] && ok "three refits hold" || notok "three refits" "$(head -c 300 "$TMP/out")"
sed 's/"rating":1830.06,/"rating":1830.07,/' fit.json >fit-edit.json
expect_status "an edited fit is a finding" 1 "$COHORT" verify --store luna/store luna/freeze.json fit-edit.json
grep -q '"check":"refit","detail":"computed again from its input: different bytes","ok":false' "$TMP/out" &&
	ok "the finding says the refit differs" || notok "refit finding" "$(head -c 300 "$TMP/out")"
expect_status "a fit without its input is a finding" 1 "$COHORT" verify fit.json
grep -q '"check":"input-present"' "$TMP/out" && ok "input-present named" || notok "input-present" "$(head -c 300 "$TMP/out")"
"$COHORT" fit --black-penalty 70 -o fit70.json luna/freeze.json
expect_status "a fit with other options still refits from what it records" 0 "$COHORT" verify --store luna/store luna/freeze.json fit70.json
# A fit or bound of a blocks document verifies against that document, given
# in either order; the blocks document itself is an input, read as bound
# and fit read it ("cannot verify a cohort.blocks/1 document" before).
LB=$ROOT/examples/luna-blocks.json
"$COHORT" fit -o bfit.json "$LB"
"$COHORT" bound -o bbound.json "$LB"
expect_status "blocks, fit and bound of the blocks verify together" 0 "$COHORT" verify "$LB" bfit.json bbound.json
[ "$(grep -o '"check":"refit","detail":"computed again from its input: the same bytes","ok":true' "$TMP/out" | wc -l)" = 2 ] &&
	grep -q '"check":"input","detail":"a cohort.blocks/1 document of 22 blocks: an input, nothing of its own to compute again","ok":true,"subject":"luna-blocks.json"' "$TMP/out" &&
	ok "two refits from the blocks, and the blocks read as an input" || notok "refits from blocks" "$(head -c 400 "$TMP/out")"
expect_status "the fit before its blocks" 0 "$COHORT" verify bfit.json "$LB"
expect_status "a blocks document alone" 0 "$COHORT" verify "$LB"
sed 's/"rating":1830.06,/"rating":1830.07,/' bfit.json >bfit-edit.json
expect_status "an edited fit of blocks is a finding" 1 "$COHORT" verify "$LB" bfit-edit.json
grep -q '"check":"refit","detail":"computed again from its input: different bytes","ok":false' "$TMP/out" &&
	ok "the finding says the refit from blocks differs" || notok "refit from blocks finding" "$(head -c 300 "$TMP/out")"
printf '%s' '{"kind":"cohort.blocks/1","blocks":[{"condition":"a","anchor":1320,"color":"black","w":-1,"d":0,"l":3}]}' >badblocks.json
expect_status "a blocks document the readers refuse is a finding" 1 "$COHORT" verify badblocks.json
grep -q '"check":"input","detail":"badblocks.json: \\"blocks\\"\[0\]: \\"w\\": expected a whole number' "$TMP/out" &&
	ok "the finding names the field" || notok "bad blocks finding" "$(head -c 300 "$TMP/out")"
expect_fail2 "verify of a file that is not JSON" "luna/ledger.jsonl:2:1: trailing data" "$COHORT" verify luna/ledger.jsonl
echo '{"kind":"cohort.other/1"}' >other.json
expect_fail2 "verify of an unknown kind" 'cannot verify a cohort.other/1 document' "$COHORT" verify other.json
expect_fail2 "verify of a missing file" 'nope.json: No such file' "$COHORT" verify nope.json
expect_fail2 "verify without files" 'expected at least one FILE' "$COHORT" verify

# "-" is standard input: a freeze, or a derived document, read from it
# verifies as the file does (the subject is named "-").
"$COHORT" verify --store luna/store luna/freeze.json >file.json
expect_status "a freeze on standard input" 0 sh -c '"$COHORT" verify --store luna/store - <luna/freeze.json'
sed 's/"name":"-"/"name":"freeze.json"/' "$TMP/out" >stdin.json
same_bytes "a freeze on standard input: the report of its file" stdin.json file.json
expect_status "a fit on standard input, its freeze a file" 0 sh -c '"$COHORT" verify --store luna/store luna/freeze.json - <fit.json'
expect_status "a freeze on standard input as a fit's input" 0 sh -c '"$COHORT" verify --store luna/store - fit.json <luna/freeze.json'
expect_status "an edited fit on standard input is a finding" 1 sh -c '"$COHORT" verify --store luna/store luna/freeze.json - <fit-edit.json'
sed "s/\"w\":41,/\"w\":40,/" luna/freeze.json >freeze-edit.json
expect_status "an edited freeze on standard input is a finding" 1 sh -c '"$COHORT" verify --store luna/store - <freeze-edit.json'
gzip -c fit.json >fit.json.gz
expect_fail2 "an archive on standard input is refused" '^cohort verify: <stdin>: an archive is read from its file' sh -c '"$COHORT" verify - <fit.json.gz'
expect_fail2 "standard input twice" '^cohort verify: only one input can be standard input' sh -c '"$COHORT" verify - - <fit.json'
