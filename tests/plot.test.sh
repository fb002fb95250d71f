# plot.test.sh: cohort plot: the figures of the examples are well-formed,
# fit a journal column, draw every condition as its status says (a point
# for a finite rating, an arrow from the bound for a saturated one, never
# a point), and are the same bytes on any run, time zone and locale.
PY=/usr/bin/python3
cp -r "$ROOT/examples/luna" "$ROOT/examples/deepseek" .
"$COHORT" freeze --spec luna/spec.json --store luna/store -o luna/freeze.json luna/ledger.jsonl >/dev/null 2>&1
"$COHORT" freeze --spec deepseek/spec.json --store deepseek/store -o deepseek/freeze.json deepseek/ledger.jsonl >/dev/null 2>&1
"$COHORT" fit -o luna/fit.json luna/freeze.json
"$COHORT" fit -o deepseek/fit.json deepseek/freeze.json
"$COHORT" fit -o sat.fit.json "$ROOT/tests/data/plot/saturated-blocks.json"
"$COHORT" fit --black-penalty estimate --sensitivity 0,35 -o colors.fit.json "$ROOT/tests/data/fit/colors-blocks.json"

# the words of a figure, its lines joined as a reader reads them
words() { tr '\n' ' ' <"$1" | sed -e 's/<[^>]*>/ /g' | tr -s ' '; }
expect_status "plot curve luna" 0 "$COHORT" plot curve -o luna-curve.svg luna/fit.json
expect_status "plot curve: two fits overlaid" 0 "$COHORT" plot curve -o two.svg luna/fit.json deepseek/fit.json sat.fit.json
expect_status "plot curve: saturated conditions" 0 "$COHORT" plot curve -o sat.svg sat.fit.json
expect_status "plot curve: an estimated penalty" 0 "$COHORT" plot curve -o colors.svg colors.fit.json
expect_status "plot ladder deepseek" 0 "$COHORT" plot ladder -o deepseek-ladder.svg deepseek/freeze.json
expect_status "plot ladder luna" 0 "$COHORT" plot ladder -o luna-ladder.svg luna/freeze.json
expect_status "plot sensitivity" 0 "$COHORT" plot sensitivity -o sens.svg luna/fit.json
expect_status "plot sensitivity: null ratings" 0 "$COHORT" plot sensitivity -o sens-colors.svg colors.fit.json
"$COHORT" plot curve luna/fit.json >stdout.svg
same_bytes "plot writes to standard output without -o" stdout.svg luna-curve.svg

for f in luna-curve two sat colors deepseek-ladder luna-ladder sens sens-colors; do
	check "$f.svg: a journal column's figure (svgcheck style)" $PY "$ROOT/tests/svgcheck.py" style $f.svg
done
check "luna curve: a point per condition, an arrow per bound" $PY "$ROOT/tests/svgcheck.py" curve luna-curve.svg luna/fit.json
check "saturated curve: arrows and no point for all wins, all losses" $PY "$ROOT/tests/svgcheck.py" curve sat.svg sat.fit.json
check "overlaid curves: every fit's conditions" $PY "$ROOT/tests/svgcheck.py" curve two.svg luna/fit.json deepseek/fit.json sat.fit.json
check "estimated penalty: arrows for top2 (all wins)" $PY "$ROOT/tests/svgcheck.py" curve colors.svg colors.fit.json
n=$(grep -c 'class="bound-arrow"' sat.svg)
[ "$n" = 2 ] && ok "saturated curve: two arrows" || notok "saturated curve: two arrows" "$n"
grep -q 'data-condition="top3"[^>]*data-side="lower"' sat.svg && grep -q '&#8805;2190\|≥2190' sat.svg &&
	ok "all wins: a lower bound, its value shown" || notok "all wins: a lower bound, its value shown" "$(grep bound-arrow sat.svg | head -2)"
words sat.svg | grep -q 'Not drawn (no candidate width): sat top3-omit-best' && ok "a condition without a width is named, not drawn" ||
	notok "a condition without a width is named, not drawn" "$(grep -o 'Not drawn[^<]*' sat.svg)"
words luna-curve.svg | grep -q 'Black penalty assumed: 35 Elo; estimator davidson-joint/1' &&
	ok "caption: assumed penalty and estimator" || notok "caption: assumed penalty and estimator" "$(grep -o 'Black penalty[^<]*' luna-curve.svg)"
words colors.svg | grep -q 'Black penalty estimated: 101 Elo \[-25, 233\]' && ok "caption: an estimated penalty with its interval" ||
	notok "caption: an estimated penalty" "$(grep -o 'Black penalty[^<]*' colors.svg)"
for wdl in 0-5-5 2-2-6 28-14-18 43-22-15 41-11-8; do
	grep -q ">$wdl</text>" luna-curve.svg || notok "luna curve: W-D-L $wdl under its width" "absent"
done
ok "luna curve: raw W-D-L under each width"

# a planted point marker for a saturated condition must fail the check
sed 's|<g class="bound-arrow" data-condition="top3" data-width="3" data-family="sat"|<g class="point" data-condition="top3" data-width="3" data-family="sat" data-rating="2400"><circle cx="1" cy="1" r="3"/></g>&|' sat.svg >planted.svg
if cmp -s planted.svg sat.svg; then notok "planted point marker" "the plant did not take"
elif $PY "$ROOT/tests/svgcheck.py" curve planted.svg sat.fit.json >planted.out 2>&1; then
	notok "a point marker planted on a saturated condition fails the check" "it passed"
else grep -q 'saturated (all_wins) but drawn with a point marker' planted.out &&
	ok "a point marker planted on a saturated condition fails the check" ||
	notok "a point marker planted on a saturated condition fails the check" "$(cat planted.out)"; fi
sed 's|data-side="lower" data-value="2190.26"|data-side="lower" data-value="2290.26"|' sat.svg >moved.svg
$PY "$ROOT/tests/svgcheck.py" curve moved.svg sat.fit.json >/dev/null 2>&1 &&
	notok "an arrow drawn from another value fails the check" "it passed" ||
	ok "an arrow drawn from another value fails the check"

# ladder: each panel takes its own blocks from the list read once, in
# list order: the list reversed draws the same panels (its blocks' sums
# and anchors do not depend on the order), and a bad block is named by its
# place wherever it stands.
$PY - deepseek/freeze.json rev.json bad.json <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
d["blocks"].reverse()
json.dump(d, open(sys.argv[2], "w"))
d["blocks"][-1]["w"] = -1
json.dump(d, open(sys.argv[3], "w"))
P
"$COHORT" plot ladder -o rev-ladder.svg rev.json 2>/dev/null
same_bytes "ladder: the block list reversed draws the same panels" deepseek-ladder.svg rev-ladder.svg
nb=$($PY -c 'import json; print(len(json.load(open("bad.json"))["blocks"]) - 1)')
expect_fail2 "ladder: a bad block named by its place in the list" "bad.json: blocks\\[$nb\\]" \
	"$COHORT" plot ladder -o bad-ladder.svg bad.json
# ladder: one panel per condition, the next anchor of active ones, rules
n=$(grep -c 'class="ladder-panel"' deepseek-ladder.svg)
[ "$n" = 5 ] && ok "deepseek ladder: a panel per condition" || notok "deepseek ladder: a panel per condition" "$n"
n=$(grep -c '<g class="next" data-anchor="1720"' deepseek-ladder.svg)
[ "$n" = 1 ] && ok "deepseek ladder: top2's next anchor 1720" || notok "deepseek ladder: next anchor" "$n"
grep -q 'data-block="1" data-anchor="1320" data-rule="promote"' deepseek-ladder.svg &&
	ok "deepseek ladder: top2 block 1 promoted" || notok "deepseek ladder: the rule after a block" "absent"
n=$(grep -c 'data-rule="repeats_exhausted"' luna-ladder.svg)
[ "$n" = 3 ] && ok "luna ladder: three conditions stopped with repeats exhausted" || notok "luna ladder: rules" "$n"
# a deviation: block 2 of top10 played 300 above where the policy went
cp -r luna dev
$PY - dev/ledger.jsonl <<'P'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
for r in recs:
    if r["condition"] == "top5" and r["block"] == 2:
        r["anchor"]["elo"] = 1820
open(sys.argv[1], "w").write("".join(json.dumps(r) + "\n" for r in recs))
P
"$COHORT" freeze --spec dev/spec.json --store dev/store -o dev/freeze.json dev/ledger.jsonl >/dev/null 2>&1
"$COHORT" plot ladder -o dev-ladder.svg dev/freeze.json
grep -q 'class="block deviation" data-block="2" data-anchor="1820"' dev-ladder.svg && words dev-ladder.svg | grep -q 'Deviation at block 2: played 1820, the policy chose 1520' &&
	ok "ladder: a deviation is marked and explained" || notok "ladder: a deviation is marked" "$(grep -o 'Deviation[^<]*' dev-ladder.svg | head -2)"

# the same bytes on another run, time zone and locale
TZ=Pacific/Kiritimati LC_ALL=de_DE.UTF-8 LANG=de_DE.UTF-8 "$COHORT" plot curve -o again.svg luna/fit.json deepseek/fit.json sat.fit.json
same_bytes "plot curve: same bytes in another time zone and locale" again.svg two.svg
TZ=America/St_Johns LC_NUMERIC=fr_FR.UTF-8 "$COHORT" plot ladder -o again.svg deepseek/freeze.json
same_bytes "plot ladder: same bytes in another time zone and locale" again.svg deepseek-ladder.svg

# usage and input errors
expect_fail2 "plot: no kind" 'expected a KIND' "$COHORT" plot
expect_fail2 "plot: unknown kind" "unknown KIND 'histogram'" "$COHORT" plot histogram luna/fit.json
expect_fail2 "plot: no document" 'plot curve: expected a DOCUMENT' "$COHORT" plot curve
expect_fail2 "plot ladder: one document" 'plot ladder: expected one DOCUMENT' "$COHORT" plot ladder luna/freeze.json deepseek/freeze.json
expect_fail2 "plot curve: a freeze is not a fit" 'luna/freeze.json: "kind": expected cohort.fit/1, got cohort.freeze/1' "$COHORT" plot curve luna/freeze.json
expect_fail2 "plot ladder: a fit is not a freeze" '"kind": expected cohort.freeze/1, got cohort.fit/1' "$COHORT" plot ladder luna/fit.json
$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); d["conditions"][2]["rating"]="high"; json.dump(d, open(sys.argv[2],"w"))' luna/fit.json badfit.json
expect_fail2 "plot curve: a field of the wrong type is named" 'badfit.json: conditions\[2\] "rating": expected a number' "$COHORT" plot curve -o bad.svg badfit.json
[ -e bad.svg ] && notok "no output file on an input error" "bad.svg written" || ok "no output file on an input error"
$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); d["conditions"][3]["bound"]=None; json.dump(d, open(sys.argv[2],"w"))' sat.fit.json nobound.json
expect_fail2 "plot curve: a saturated condition without its bound" 'conditions\[3\] "bound": expected \{side, value\} for status all_wins' "$COHORT" plot curve nobound.json

# paired: the toy's k curves, a series per (family, budget), bands
cp -r "$ROOT/examples/paired-toy" toy
"$COHORT" freeze --spec toy/spec.json --candidates toy/candidates.jsonl --decisions toy/decisions.jsonl \
	--store toy/store -o toy/freeze.json >/dev/null 2>&1
"$COHORT" paired --store toy/store -o toy/paired.json toy/freeze.json
expect_status "plot paired: the toy" 0 "$COHORT" plot paired -o paired.svg toy/paired.json
check "paired.svg: a journal column's figure (svgcheck style)" $PY "$ROOT/tests/svgcheck.py" style paired.svg
$PY - toy/paired.json paired.svg <<'P' && ok "plot paired: every width cell's recall and regret drawn where the document has them" || notok "plot paired: the cells drawn" "see above"
import json, re, sys
import xml.etree.ElementTree as ET
d = json.load(open(sys.argv[1]))
root = ET.parse(sys.argv[2]).getroot()
got = {}
for g in root.iter('{http://www.w3.org/2000/svg}g'):
    if 'series' in (g.get('class') or '').split():
        for el in g:
            if el.get('class') == 'point':
                got[(g.get('data-series'), g.get('data-figure'), int(el.get('data-width')))] = float(el.get('data-value'))
want = {}
for c in d['cells']:
    m = re.fullmatch(r'none|top([1-9][0-9]*)', c['condition'])
    if not m:
        continue
    w = int(m.group(1) or 0)
    label = c['family'] + ' ' + c['budget']
    for fig, key, est in (('recall', 'recall', 'estimate'), ('regret', 'regret', 'mean')):
        if c[key] and c[key][est] is not None:
            want[(label, fig, w)] = c[key][est]
bad = [k for k in want if k not in got or abs(got[k] - want[k]) > 5e-7] + [k for k in got if k not in want]
for k in bad:
    print('plot paired:', k, got.get(k), want.get(k))
sys.exit(1 if bad or not want else 0)
P
n=$(grep -c 'class="band"' paired.svg)
[ "$n" -gt 0 ] && ok "plot paired: intervals drawn as bands ($n)" || notok "plot paired: bands" "none"

# distance: the heat map of a hand-made cohort.distance/1
DIST=$ROOT/tests/data/plot/distance.json
expect_status "plot distance" 0 "$COHORT" plot distance -o distance.svg "$DIST"
check "distance.svg: a journal column's figure (svgcheck style)" $PY "$ROOT/tests/svgcheck.py" style distance.svg
check "plot distance: every cell as the document says (an independent reading)" \
	$PY "$ROOT/tests/svgcheck.py" distance distance.svg "$DIST"
if [ -f "$ROOT/schemas/distance.schema.json" ]; then
	check "the hand-made distance document validates against its schema" \
		$PY "$ROOT/tests/validate.py" "$ROOT/schemas/distance.schema.json" "$DIST"
fi
n=$(grep -c 'class="cell between exceeds"' distance.svg)
[ "$n" = 2 ] && ok "plot distance: alpha, beta exceeds both within-distances (both cells)" || notok "plot distance: exceeds" "$n cells"
grep -q 'class="cell within" data-a="gamma" data-b="gamma">' distance.svg && words distance.svg | grep -q ' n/a ' &&
	ok "plot distance: a family with one replication has no test-retest number" || notok "plot distance: gamma's diagonal" "$(grep 'data-a="gamma" data-b="gamma"' distance.svg)"
# a flag moved must fail the independent reading
sed 's/class="cell between not-exceeds" data-a="alpha" data-b="delta"/class="cell between exceeds" data-a="alpha" data-b="delta"/' distance.svg >flag.svg
if cmp -s flag.svg distance.svg; then notok "a planted exceeds flag" "the plant did not take"
else $PY "$ROOT/tests/svgcheck.py" distance flag.svg "$DIST" >/dev/null 2>&1 &&
	notok "a planted exceeds flag fails the check" "it passed" || ok "a planted exceeds flag fails the check"; fi
TZ=Asia/Kathmandu LC_ALL=de_DE.UTF-8 "$COHORT" plot distance -o again.svg "$DIST"
same_bytes "plot distance: same bytes in another time zone and locale" again.svg distance.svg
TZ=Asia/Kathmandu LC_ALL=fr_FR.UTF-8 "$COHORT" plot paired -o again.svg toy/paired.json
same_bytes "plot paired: same bytes in another time zone and locale" again.svg paired.svg
$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); d["separation"][1]["exceeds"]="yes"; json.dump(d, open(sys.argv[2],"w"))' "$DIST" baddist.json
expect_fail2 "plot distance: a field of the wrong type is named" 'baddist.json: separation\[1\] "exceeds": expected true, false or null' "$COHORT" plot distance baddist.json
$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); d["test_retest"].append(d["test_retest"][0]); json.dump(d, open(sys.argv[2],"w"))' "$DIST" twice.json
expect_fail2 "plot distance: a family twice" 'test_retest\[4\]: family alpha twice' "$COHORT" plot distance twice.json
expect_fail2 "plot distance: a fit is not a distance" '"kind": expected cohort.distance/1, got cohort.fit/1' "$COHORT" plot distance luna/fit.json
