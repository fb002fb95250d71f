#!/usr/bin/env python3
"""svgcheck.py: what a reader of cohort's figures must be able to rely on,
read from the SVG itself.

  svgcheck.py style SVG         a figure for a journal column: viewBox 340
                                wide, a generic font family, no text under
                                11 units (8 pt at 3.5 in), no id, no
                                external reference, numbers of at most two
                                decimals in coordinates
  svgcheck.py curve SVG FIT...  each condition of the fits that has a width
                                is drawn: a finite one as one point marker
                                (class "point"), a saturated one (all wins,
                                all losses) as one arrow (class
                                "bound-arrow") from its bound, with the
                                bound's value, and no point marker
  svgcheck.py distance SVG DOC  the heat map of a cohort.distance/1: a
                                cell per family and family, the diagonal
                                each family's test_retest d2, off it the
                                separation's between-distance (both ways),
                                outlined as "exceeds" exactly where
                                separation says exceeds, an interval only
                                where one pair of fingerprints makes it
                                and then the pair's lo and hi
Prints one line per fault and exits 1 when there is any."""
import json
import re
import sys
import xml.etree.ElementTree as ET

NS = '{http://www.w3.org/2000/svg}'
bad = []


def classes(el):
    return (el.get('class') or '').split()


def load(path):
    try:
        return ET.parse(path).getroot()
    except ET.ParseError as x:
        raise SystemExit(f'{path}: not well-formed XML: {x}')


def style(path):
    root = load(path)
    text = open(path, encoding='utf-8').read()
    vb = (root.get('viewBox') or '').split()
    if len(vb) != 4 or vb[:3] != ['0', '0', '340']:
        bad.append(f'{path}: viewBox {root.get("viewBox")}: not 340 wide')
    if root.get('font-family') not in ('sans-serif', 'serif', 'monospace'):
        bad.append(f'{path}: font-family {root.get("font-family")}: not a generic family')
    for el in root.iter():
        if el.get('id') is not None:
            bad.append(f'{path}: an id ({el.get("id")}): ids are not needed and may clash')
        fs = el.get('font-size')
        if fs is not None and float(fs) < 11:
            bad.append(f'{path}: font-size {fs} under 11')
        ff = el.get('font-family')
        if ff is not None and ff not in ('sans-serif', 'serif', 'monospace'):
            bad.append(f'{path}: font-family {ff}')
        for k, v in el.attrib.items():
            if k in ('href', '{http://www.w3.org/1999/xlink}href', 'src'):
                bad.append(f'{path}: {k}={v}: a reference')
            if k in ('d', 'x', 'y', 'cx', 'cy', 'r', 'width', 'height', 'transform') and \
                    re.search(r'\d\.\d{3,}', v):
                bad.append(f'{path}: {k}="{v[:40]}": more than two decimals')
    if re.search(r'https?://(?!www\.w3\.org/2000/svg")', text):
        bad.append(f'{path}: names a URL other than the SVG namespace')


def curve(path, fits):
    root = load(path)
    marks = {}
    for el in root.iter():
        c = classes(el)
        if 'point' in c or 'bound-arrow' in c:
            key = (el.get('data-family') or '', el.get('data-condition'))
            marks.setdefault(key, []).append((c, el))
    width = re.compile(r'^(none|top[1-9][0-9]{0,2})$')
    for f in fits:
        d = json.load(open(f))
        for c in d['conditions']:
            if not width.match(c['condition']):
                continue
            key = (c.get('family') or '', c['condition'])
            got = marks.get(key, [])
            points = [e for cl, e in got if 'point' in cl]
            arrows = [e for cl, e in got if 'bound-arrow' in cl]
            name = f'{f}: {key[0] + " " if key[0] else ""}{c["condition"]}'
            if c['status'] in ('all_wins', 'all_losses'):
                side = 'lower' if c['status'] == 'all_wins' else 'upper'
                if points:
                    bad.append(f'{name}: saturated ({c["status"]}) but drawn with a point marker')
                if len(arrows) != 1:
                    bad.append(f'{name}: saturated ({c["status"]}): {len(arrows)} arrows, want 1')
                for a in arrows:
                    if a.get('data-side') != side:
                        bad.append(f'{name}: arrow of side {a.get("data-side")}, want {side}')
                    want = c['bound']['value']
                    if abs(float(a.get('data-value')) - want) > 0.005:
                        bad.append(f'{name}: arrow from {a.get("data-value")}, the bound is {want}')
                    shown = ''.join(t.text or '' for t in a.iter(NS + 'text')) + \
                        ''.join(t.text or '' for t in a.iter('text'))
                    if str(round(want)) not in shown:
                        bad.append(f'{name}: the arrow does not show the bound {round(want)}: {shown!r}')
            elif c['status'] == 'finite':
                if len(points) != 1 or arrows:
                    bad.append(f'{name}: finite: {len(points)} point markers and {len(arrows)} arrows, want 1 and 0')
                for p in points:
                    if abs(float(p.get('data-rating')) - c['rating']) > 0.005:
                        bad.append(f'{name}: point at {p.get("data-rating")}, the rating is {c["rating"]}')
            elif got:
                bad.append(f'{name}: no games, but {len(got)} marks')


def distance(path, doc):
    root = load(path)
    d = json.load(open(doc))
    cells = {}
    for el in root.iter():
        if 'cell' in classes(el):
            key = (el.get('data-a'), el.get('data-b'))
            if key in cells:
                bad.append(f'{path}: cell {key} twice')
            cells[key] = el
    fams = []
    for r in d['test_retest']:
        fams.append(r['family'])
    for s in d['separation']:
        for f in (s['a'], s['b']):
            if f not in fams:
                fams.append(f)
    if len(cells) != len(fams) ** 2:
        bad.append(f'{path}: {len(cells)} cells for {len(fams)} families')

    def same(el, key, want, name):
        got = el.get(key)
        if want is None:
            if got is not None:
                bad.append(f'{name}: {key}={got}, the document has none')
        elif got is None or abs(float(got) - want) > 5e-7:
            bad.append(f'{name}: {key}={got}, the document says {want}')

    for r in d['test_retest']:
        el = cells.get((r['family'], r['family']))
        name = f'{path}: test-retest {r["family"]}'
        if el is None:
            bad.append(f'{name}: no cell')
            continue
        if 'within' not in classes(el):
            bad.append(f'{name}: not drawn as a within cell')
        same(el, 'data-d2', r['d2'], name)
        both = r['d2'] is not None and r['lo'] is not None and r['hi'] is not None
        same(el, 'data-lo', r['lo'] if both else None, name)
        same(el, 'data-hi', r['hi'] if both else None, name)
    pairs = {}
    for p in d['pairs']:
        k = tuple(sorted((p['a']['family'], p['b']['family'])))
        pairs.setdefault(k, []).append(p)
    for s in d['separation']:
        one = pairs.get(tuple(sorted((s['a'], s['b']))), [])
        for key in ((s['a'], s['b']), (s['b'], s['a'])):
            el = cells.get(key)
            name = f'{path}: separation {key[0]}, {key[1]}'
            if el is None:
                bad.append(f'{name}: no cell')
                continue
            same(el, 'data-d2', s['between'], name)
            flagged = 'exceeds' in classes(el)
            if flagged != (s['exceeds'] is True):
                bad.append(f'{name}: exceeds {s["exceeds"]}, outlined {flagged}')
            if ('not-exceeds' in classes(el)) != (s['exceeds'] is False):
                bad.append(f'{name}: exceeds {s["exceeds"]}, class {el.get("class")}')
            iv = len(one) == 1 and one[0]['lo'] is not None and one[0]['hi'] is not None
            same(el, 'data-lo', one[0]['lo'] if iv else None, name)
            same(el, 'data-hi', one[0]['hi'] if iv else None, name)


if len(sys.argv) < 3 or sys.argv[1] not in ('style', 'curve', 'distance'):
    raise SystemExit(__doc__)
if sys.argv[1] == 'style':
    for p in sys.argv[2:]:
        style(p)
elif sys.argv[1] == 'distance':
    distance(sys.argv[2], sys.argv[3])
else:
    curve(sys.argv[2], sys.argv[3:])
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
