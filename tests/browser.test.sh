# browser.test.sh: the figures and the report as a reader sees them, in
# headless Chromium (networking off, a fresh profile; mk/shot.sh): each
# rendered to PNG and not blank; the laid-out boxes of every element
# inside the canvas, no two texts overlapping, no text under 11 units, an
# arrow and no point marker for each saturated condition (tests/boxes.js);
# checks that must fail on a planted fault.
PY=/usr/bin/python3
SHOT="sh $ROOT/mk/shot.sh"
if ! command -v chromium >/dev/null 2>&1; then
	notok "chromium for the browser tests" "not installed (make test installs it; apt-get install -y chromium)"
	return 0 2>/dev/null || exit 0
fi
cp -r "$ROOT/examples/luna" "$ROOT/examples/deepseek" .
"$COHORT" freeze --spec luna/spec.json --store luna/store -o luna/freeze.json luna/ledger.jsonl >/dev/null 2>&1
"$COHORT" freeze --spec deepseek/spec.json --store deepseek/store -o deepseek/freeze.json deepseek/ledger.jsonl >/dev/null 2>&1
"$COHORT" fit -o luna/fit.json luna/freeze.json
"$COHORT" fit -o sat.fit.json "$ROOT/tests/data/plot/saturated-blocks.json"
"$COHORT" plot curve -o luna-curve.svg luna/fit.json
"$COHORT" plot ladder -o deepseek-ladder.svg deepseek/freeze.json
"$COHORT" plot curve -o sat.svg sat.fit.json luna/fit.json

# page FILE.html SVG...: the figures inline on a page that runs boxes.js
page() {
	_p=$1
	shift
	{
		printf '<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{margin:0}</style></head><body>\n'
		for _s in "$@"; do sed '1{/^<?xml/d}' "$_s"; done
		printf '<script>\n'
		cat "$ROOT/tests/boxes.js"
		printf '</script></body></html>\n'
	} >"$_p"
}
# boxes NAME PAGE: the page's own verdict, from the DOM after its script ran
boxes() {
	$SHOT --dom "$2" >"$2.dom"
	$PY -c 'import html, re, sys
t = open(sys.argv[1]).read()
m = re.findall(r"<pre id=\"boxes\">(.*?)</pre>", t, re.S)
print(html.unescape(m[-1]) if m else "no verdict: the script did not run")' "$2.dom" >"$2.verdict"
	if grep -q '^ok [0-9]' "$2.verdict"; then ok "$1 ($(cat "$2.verdict") elements)"; else notok "$1" "$(head -c 600 "$2.verdict")"; fi
}

for f in luna-curve deepseek-ladder sat; do
	if $SHOT $f.svg $f.png; then
		check "$f: rendered, not blank" $PY "$ROOT/tests/pngcheck.py" $f.png 0.02
	else
		notok "$f: rendered" "chromium wrote no PNG"
	fi
	page $f.html $f.svg
	boxes "$f: every box inside the canvas, no text overlapping, no arrow with a point" $f.html
done
check "luna curve: the series' colour (Okabe-Ito blue) is on the picture" $PY "$ROOT/tests/pngcheck.py" luna-curve.png 0.02 0072B2 200

# planted faults: the checks must see them
sed 's|<g class="bound-arrow" data-condition="top3" data-width="3" data-family="sat"|<g class="point" data-condition="top3" data-width="3" data-family="sat"><circle cx="150" cy="100" r="3.5"/></g>&|' sat.svg >planted.svg
page planted.html planted.svg
$SHOT --dom planted.html >planted.dom
grep -q 'sat top3 is saturated but has a point marker' planted.dom &&
	ok "browser check: a planted point marker on a saturated condition fails" ||
	notok "browser check: a planted point marker fails" "$(grep -o '<pre id="boxes">[^<]*' planted.dom | tail -1)"
sed 's|</svg>|<text class="caption" x="300" y="40">a label running off the canvas</text></svg>|' luna-curve.svg >overflow.svg
page overflow.html overflow.svg
$SHOT --dom overflow.html >overflow.dom
grep -q 'caption "a label running off the canvas" outside the canvas' overflow.dom &&
	ok "browser check: a text running off the canvas fails" ||
	notok "browser check: a text running off the canvas fails" "$(grep -o '<pre id="boxes">[^<]*' overflow.dom | tail -1)"

# the paired k curves and the distance heat map, as a reader sees them
cp -r "$ROOT/examples/paired-toy" toy
"$COHORT" freeze --spec toy/spec.json --candidates toy/candidates.jsonl --decisions toy/decisions.jsonl \
	--store toy/store -o toy/freeze.json >/dev/null 2>&1
"$COHORT" paired --store toy/store -o toy/paired.json toy/freeze.json
"$COHORT" plot paired -o toy-paired.svg toy/paired.json
"$COHORT" plot distance -o distance.svg "$ROOT/tests/data/plot/distance.json"
"$COHORT" plot sensitivity -o luna-sensitivity.svg luna/fit.json
for f in toy-paired distance luna-sensitivity; do
	if $SHOT $f.svg $f.png; then
		check "$f: rendered, not blank" $PY "$ROOT/tests/pngcheck.py" $f.png 0.02
	else
		notok "$f: rendered" "chromium wrote no PNG"
	fi
	page $f.html $f.svg
	boxes "$f: every box inside the canvas, no text overlapping" $f.html
done
check "distance: the far end of the scale (cividis' dark blue) is on the picture" \
	$PY "$ROOT/tests/pngcheck.py" distance.png 0.02 00224E 200

# the reviewer's page: rendered, its figures laid out right, and no
# network request (the page's own requests in Chromium's network log)
mkdir -p b
cp luna/spec.json luna/ledger.jsonl luna/freeze.json luna/fit.json b/
cp -r luna/store b/store
printf '%s\n' '{"kind": "cohort.bundle-spec/1", "name": "luna-review", "as_of": "2026-07-20T00:00:00Z",' \
	' "items": [{"role": "spec", "path": "spec.json"}, {"role": "ledger", "path": "ledger.jsonl"},' \
	'  {"role": "freeze", "path": "freeze.json", "store": "store", "derived_from": ["spec", "ledger"]},' \
	'  {"role": "fit", "path": "fit.json", "derived_from": ["freeze"]}]}' >b/bundle.json
"$COHORT" bundle --spec b/bundle.json -o luna.tar >/dev/null
"$COHORT" report -o luna-report.html luna.tar
if $SHOT luna-report.html luna-report.png 1000 1400; then
	check "luna report: rendered, not blank" $PY "$ROOT/tests/pngcheck.py" luna-report.png 0.02
else
	notok "luna report: rendered" "chromium wrote no PNG"
fi
{ sed 's|</body>||; s|</html>||' luna-report.html; printf '<script>\n'; cat "$ROOT/tests/boxes.js"; printf '</script></body></html>\n'; } >report-boxes.html
boxes "luna report: the inline figures' boxes inside their canvases, no text overlapping" report-boxes.html
if $SHOT --net luna-report.html report.net.json; then
	check "luna report: no network request (Chromium's network log)" $PY "$ROOT/tests/netlog.py" report.net.json
else
	notok "luna report: network log" "chromium wrote none"
fi
sed 's|</body>|<img src="http://example.invalid/pixel.png" alt=""></body>|' luna-report.html >fetching.html
$SHOT --net fetching.html fetching.net.json
$PY "$ROOT/tests/netlog.py" fetching.net.json >fetching.out 2>&1
[ $? = 1 ] && grep -q 'requested http://example.invalid/pixel.png' fetching.out &&
	ok "browser check: a planted image fetch on the report is seen" || notok "browser check: a planted fetch" "$(cat fetching.out)"
