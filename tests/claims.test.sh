# claims.test.sh: a bundle spec's "claims" need their gates (cumulative:
# descriptive-curve A; candidate-curve A, B; fingerprint A to C;
# architectural A to D) in the bundle, passing and computed again from the
# bundled documents they name, else the bundle is refused; a reviewer's
# verify of the archive checks the same.
PY=/usr/bin/python3
mkdir -p lu
cp "$ROOT/examples/luna/spec.json" "$ROOT/examples/luna/ledger.jsonl" lu/
(
	cd lu || exit 1
	"$COHORT" freeze --spec spec.json --store store -o freeze.json ledger.jsonl &&
		"$COHORT" fit -o fit.json freeze.json
) >/dev/null 2>&1
LID=$("$COHORT" canon --id lu/freeze.json)
# Luna has no request log: its reconciliation is made by hand
printf '{"kind":"cohort.reconcile/1","inputs":{"freeze":{"id":"%s","name":"freeze.json"}},"reconciled":true,"totals":{"provider_error_games":0},"findings":[]}' "$LID" |
	"$COHORT" canon >lu/reconcile.json
"$COHORT" gate A -o lu/gate-a.json lu/freeze.json lu/reconcile.json lu/fit.json
"$COHORT" gate A -o lu/gate-a-short.json lu/freeze.json lu/fit.json 2>/dev/null
# spec CLAIMS GATE-ITEMS: the bundle spec with those claims and items
spec() {
	cat >lu/bundle.json <<J
{"kind": "cohort.bundle-spec/1", "name": "luna-claims", "as_of": "2026-07-20T00:00:00Z",
 "claims": $1,
 "items": [
  {"role": "spec", "path": "spec.json"},
  {"role": "ledger", "path": "ledger.jsonl"},
  {"role": "freeze", "path": "freeze.json", "store": "store", "derived_from": ["spec", "ledger"]},
  {"role": "fit", "path": "fit.json", "derived_from": ["freeze"]},
  {"role": "reconcile", "path": "reconcile.json", "derived_from": ["freeze"]}$2]}
J
}
refused() { # NAME CHECK PATTERN: bundle --check refuses with a finding of CHECK matching PATTERN
	"$COHORT" bundle --check --spec lu/bundle.json >ref.json 2>ref.err
	_rc=$?
	if [ $_rc != 1 ]; then notok "$1" "exit $_rc: $(head -c 300 ref.err)"
	elif ! $PY - ref.json "$2" "$3" <<'PYEOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
sys.exit(not any(f["check"] == sys.argv[2] and re.search(sys.argv[3], f["detail"]) for f in d["findings"]))
PYEOF
	then notok "$1" "no $2 finding /$3/: $(head -c 500 ref.json)"
	elif ! $PY "$ROOT/tests/validate.py" "$ROOT/schemas/refusal.schema.json" ref.json >ref.val; then
		notok "$1" "refusal does not validate: $(cat ref.val)"
	else ok "$1"; fi
}
spec '["descriptive-curve"]' ''
refused "a claim without its gate is refused (missing)" missing 'the claim "descriptive-curve" needs gate A'
spec '["descriptive-curve"]' ',
  {"role": "gate-a", "path": "gate-a-short.json", "derived_from": ["freeze", "fit"]}'
refused "a claim whose gate is insufficient is refused (invalid)" invalid 'needs gate A to pass: gate A: insufficient \(A2 insufficient, A3 insufficient\)'
spec '["descriptive-curve"]' ',
  {"role": "gate-a", "path": "gate-a.json", "derived_from": ["freeze", "reconcile", "fit"]}'
expect_status "a claim whose gate passes bundles" 0 "$COHORT" bundle --spec lu/bundle.json -o claims.tar
"$COHORT" bundle --check --spec lu/bundle.json >bdoc.json 2>/dev/null
check "bundle.json with claims validates against schemas/bundle.schema.json" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/bundle.schema.json" bdoc.json
$PY -c 'import json,sys; d=json.load(open("bdoc.json")); sys.exit(not (d["claims"] == ["descriptive-curve"] and d["checks"][0] == "claims"))' &&
	ok "bundle.json records the claims and the check" || notok "bundle.json records the claims and the check" "$(head -c 300 bdoc.json)"
check "the bundle spec with claims validates against schemas/bundle-spec.schema.json" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/bundle-spec.schema.json" lu/bundle.json
expect_status "verify of the archive: the gate computed again, the claim's gate passes" 0 "$COHORT" verify claims.tar
grep -q '"check":"claims","detail":"gate A is in the bag and passes","ok":true,"subject":"descriptive-curve"' "$TMP/out" &&
	ok "verify of the archive reports the claim" || notok "verify of the archive reports the claim" "$(head -c 400 "$TMP/out")"
grep -q '"check":"refit","detail":"computed again from its inputs: the same bytes","ok":true,"subject":"gate-a.json"' "$TMP/out" &&
	ok "verify of the archive computes the gate again" || notok "verify of the archive computes the gate again" "$(grep -o '"check":"refit[^}]*' "$TMP/out" | head -3)"
spec '["candidate-curve"]' ',
  {"role": "gate-a", "path": "gate-a.json", "derived_from": ["freeze", "reconcile", "fit"]}'
refused "claims are cumulative: candidate-curve needs gate B too" missing 'the claim "candidate-curve" needs gate B'
spec '["architectural"]' ',
  {"role": "gate-a", "path": "gate-a.json", "derived_from": ["freeze", "reconcile", "fit"]}'
"$COHORT" bundle --check --spec lu/bundle.json >ref.json 2>/dev/null
$PY -c 'import json,sys; d=json.load(open("ref.json")); g=sorted(f["detail"].split("needs gate ")[1][0] for f in d["findings"] if f["check"] == "missing"); sys.exit(g != ["B","C","D"])' &&
	ok "architectural needs gates B, C and D beside A" || notok "architectural needs gates B, C and D beside A" "$(head -c 500 ref.json)"
# a gate edited after it was judged does not compute again: stale
$PY -c 'import json; d=json.load(open("lu/gate-a.json")); d["criteria"][0]["detail"]="all good"; open("lu/gate-a.json","w").write(json.dumps(d))'
spec '["descriptive-curve"]' ',
  {"role": "gate-a", "path": "gate-a.json", "derived_from": ["freeze", "reconcile", "fit"]}'
refused "a gate that does not compute again from the bundled documents is stale" stale 'does not reproduce it byte for byte'
"$COHORT" gate A -o lu/gate-a.json lu/freeze.json lu/reconcile.json lu/fit.json
# a gate resting on a document the bundle lacks
spec '["descriptive-curve"]' ',
  {"role": "gate-a", "path": "gate-a.json", "derived_from": ["freeze", "fit"]}'
$PY -c '
import json; d=json.load(open("lu/bundle.json")); d["items"]=[i for i in d["items"] if i["role"] != "reconcile"]; open("lu/bundle.json","w").write(json.dumps(d))'
refused "a gate naming a document not in the bundle is refused" missing 'names input sha256:'
spec '["descriptive-curve", "fingerprints"]' ''
expect_fail2 "an unknown claim is an input error" '"claims": expected descriptive-curve' "$COHORT" bundle --check --spec lu/bundle.json
spec '["descriptive-curve", "descriptive-curve"]' ''
expect_fail2 "a claim named twice is an input error" '"claims": claim "descriptive-curve" is named twice' "$COHORT" bundle --check --spec lu/bundle.json
