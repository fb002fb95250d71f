# report.test.sh: cohort report and the page a bundle holds: every part a
# reviewer needs, read back from the page by an independent parser
# (tests/reportcheck.py) against the documents themselves; the page in the
# bag derived again by verify, and an edited or missing one found; the
# gate's refusal page; the same bytes on any run, time zone and locale.
PY=/usr/bin/python3
mkdir -p b
cp "$ROOT/examples/luna/spec.json" "$ROOT/examples/luna/ledger.jsonl" b/
"$COHORT" freeze --spec b/spec.json --store b/store -o b/freeze.json b/ledger.jsonl >/dev/null 2>&1
"$COHORT" fit -o b/fit.json b/freeze.json
"$COHORT" bound -o b/bound.json b/freeze.json
cat >b/bundle.json <<'J'
{"kind": "cohort.bundle-spec/1", "name": "luna-review", "as_of": "2026-07-20T00:00:00Z",
 "require": ["freeze", "fit"],
 "items": [{"role": "spec", "path": "spec.json"}, {"role": "ledger", "path": "ledger.jsonl"},
  {"role": "freeze", "path": "freeze.json", "store": "store", "derived_from": ["spec", "ledger"]},
  {"role": "fit", "path": "fit.json", "derived_from": ["freeze"]},
  {"role": "bound", "path": "bound.json", "derived_from": ["freeze"]}]}
J
"$COHORT" bundle --spec b/bundle.json -o luna.tar >/dev/null
mkdir -p x && tar -xf luna.tar -C x
BAG=x/luna-review

expect_status "report: an archive that verifies (exit 0)" 0 "$COHORT" report -o page.html luna.tar
"$COHORT" verify luna.tar >verify.json 2>/dev/null
check "report: the tuple, ratings, figures, every check and identity, nothing from elsewhere" \
	$PY "$ROOT/tests/reportcheck.py" archive page.html "$BAG/data/bundle.json" verify.json b/fit.json
grep -q '<span class="held">It verifies</span>' page.html && ok "report: says the archive verifies" ||
	notok "report: the verdict" "$(grep -o '<span class="[a-z]*">[^<]*' page.html | head -1)"
id=$(sha256sum luna.tar | cut -d' ' -f1)
grep -q "identity <code>sha256:$id</code>" page.html && ok "report: the archive's identity (sha256sum)" ||
	notok "report: the archive's identity" "sha256:$id not on the page"
"$COHORT" report luna.tar >stdout.html
same_bytes "report: standard output without -o" stdout.html page.html
TZ=Pacific/Chatham LC_ALL=de_DE.UTF-8 LANG=de_DE.UTF-8 "$COHORT" report -o again.html luna.tar
same_bytes "report: same bytes in another time zone and locale" again.html page.html
expect_status "report: an extracted bag folder" 0 "$COHORT" report -o folder.html "$BAG"
grep -q 'Archive <code>luna-review</code>; cut' folder.html && ok "report: a bag folder has no one identity" ||
	notok "report: a bag folder" "$(grep -o 'Archive <code>[^;]*' folder.html)"

# the page the bag holds: the same parts without the verification, and
# derived again by verify
[ -f "$BAG/data/report.html" ] && ok "bundle: the bag holds data/report.html" || notok "bundle: data/report.html" "absent"
check "the bag's page: the tuple, ratings, figures, identities" \
	$PY "$ROOT/tests/reportcheck.py" bag "$BAG/data/report.html" "$BAG/data/bundle.json" b/fit.json
grep -q '"report":"report.html"' "$BAG/data/bundle.json" && ok "bundle.json names its page" || notok "bundle.json names its page" "no \"report\""
grep -q '"check":"report","detail":"derived again from bundle.json and the documents: the same bytes","ok":true' verify.json &&
	ok "verify: the bag's page derived again, the same bytes" || notok "verify: the page's check" "$(grep -o '"check":"report"[^}]*' verify.json)"
# edited in a consistent bag (manifests made again): verify finds it
rebag() { (cd "$1" && find data -type f | LC_ALL=C sort | xargs sha256sum >manifest-sha256.txt &&
	oxum=$(find data -type f | wc -l) && bytes=$(find data -type f -exec cat {} + | wc -c) &&
	sed -i "s/^Payload-Oxum: .*/Payload-Oxum: $bytes.$oxum/" bag-info.txt &&
	sha256sum bag-info.txt bagit.txt manifest-sha256.txt >tagmanifest-sha256.txt); }
cp -r "$BAG" edited
sed -i 's|<h1>Review of luna-review</h1>|<h1>Review of luna-review: all holds</h1>|' edited/data/report.html
rebag edited
"$COHORT" verify edited >edited.json 2>edited.err
rc=$?
[ $rc = 1 ] && grep -q '"check":"report","detail":"derived again from bundle.json and the documents: the bytes differ","ok":false' edited.json &&
	ok "verify: an edited page in a consistent bag is a finding (exit 1)" || notok "verify: an edited page" "exit $rc: $(grep -o '"check":"report"[^}]*' edited.json)"
grep -q '"check":"manifest","detail":"[^"]*","ok":true' edited.json && ok "the edited bag's manifests hold (only the page check finds it)" ||
	notok "the edited bag's manifests" "$(grep -o '"check":"[a-z]*","detail":"[^"]*","ok":false' edited.json | head -3)"
expect_status "report: an archive that does not verify (exit 1)" 1 "$COHORT" report -o edited.html edited
grep -q '<span class="finding">It does not verify</span>' edited.html && grep -q '<td class="finding">finding</td><td>report</td>' edited.html &&
	ok "report: the page says it does not verify and which check" || notok "report: a failed check on the page" "$(grep -o '<span class="[a-z]*">[^<]*' edited.html | head -1)"
cp -r "$BAG" nopage
rm nopage/data/report.html
rebag nopage
"$COHORT" verify nopage >nopage.json 2>/dev/null
rc=$?
[ $rc = 1 ] && grep -q '"check":"report","detail":"the bundle document names the page, the bag does not hold it","ok":false' nopage.json &&
	ok "verify: a bag without the page bundle.json names is a finding" || notok "verify: a missing page" "exit $rc: $(grep -o '"check":"report"[^}]*' nopage.json)"

# the gate's answer for a spec: a refusal's every finding, or the items
cp -r "$ROOT/examples/deepseek" ds
"$COHORT" freeze --spec ds/spec.json --store ds/store -o ds/freeze.json ds/ledger.jsonl >/dev/null 2>&1
expect_status "report --spec: a refused spec (exit 1)" 1 "$COHORT" report --spec ds/bundle.json -o refusal.html
"$COHORT" bundle --spec ds/bundle.json --check >refusal.json 2>/dev/null
check "report --spec: every finding of the refusal, with its check, path and detail" \
	$PY "$ROOT/tests/reportcheck.py" refusal refusal.html refusal.json
expect_status "report --spec: a spec the gate passes (exit 0)" 0 "$COHORT" report --spec b/bundle.json -o gate.html
grep -q 'The gate holds' gate.html && [ "$(grep -c '<tr><td>' gate.html)" = 5 ] &&
	ok "report --spec: the five items it would bundle" || notok "report --spec: a passing spec" "$(grep -c '<tr><td>' gate.html) rows"

# usage and input errors: exit 2, nothing written
expect_fail2 "report: no BUNDLE" 'expected one BUNDLE, or --spec BUNDLE_SPEC' "$COHORT" report
expect_fail2 "report: --spec and BUNDLE" '--spec and BUNDLE cannot go together' "$COHORT" report --spec b/bundle.json luna.tar
expect_fail2 "report: not an archive" 'spec.json' "$COHORT" report -o bad.html b/spec.json
[ -e bad.html ] && notok "report: no page on an input error" "bad.html written" || ok "report: no page on an input error"
cp -r b named
sed -i 's|"path": "bound.json"|"path": "report.html"|' named/bundle.json
mv named/bound.json named/report.html
expect_fail2 "bundle: an item named report.html" 'report.html is the bundle.s own page in the bag' "$COHORT" bundle --spec named/bundle.json -o named.tar

# the page checker must see planted faults
sed 's|<td class="num">0-5-5</td>|<td class="num">0-5-4</td>|' page.html >wrong.html
if cmp -s wrong.html page.html; then notok "a planted W-D-L" "the plant did not take"
else $PY "$ROOT/tests/reportcheck.py" archive wrong.html "$BAG/data/bundle.json" verify.json b/fit.json >/dev/null &&
	notok "reportcheck: a wrong W-D-L fails" "it passed" || ok "reportcheck: a wrong W-D-L fails"; fi
sed 's|</body>|<img src="http://example.invalid/p.png"></body>|' page.html >fetch.html
$PY "$ROOT/tests/reportcheck.py" archive fetch.html "$BAG/data/bundle.json" verify.json b/fit.json >/dev/null &&
	notok "reportcheck: a reference outside the page fails" "it passed" || ok "reportcheck: a reference outside the page fails"
