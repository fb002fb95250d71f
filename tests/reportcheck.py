#!/usr/bin/env python3
"""reportcheck.py: what a reviewer must find on cohort's HTML page, read
from the page with Python's own HTML parser.

  reportcheck.py archive PAGE BUNDLE_JSON VERIFY_JSON FIT...
      self-contained (no script, no reference outside the page, no
      stylesheet or font from elsewhere); the nine fields of the protocol
      tuple; one ratings row per condition of each fit with its games,
      W-D-L, anchors, rating, interval and saturation; the figures inline
      (a ladder per freeze, a curve and a sensitivity per fit); every
      check of the verify report with its outcome; every item's identity
  reportcheck.py bag PAGE BUNDLE_JSON FIT...
      the same without the verification (the page an archive holds)
  reportcheck.py refusal PAGE REFUSAL_JSON
      self-contained; every finding of the refusal, check, path and detail
Prints one line per fault and exits 1 when there is any."""
import html.parser
import json
import re
import sys

bad = []
TUPLE = ['model snapshot', 'harness version', 'assistance condition',
         'opponent binary and limiter', 'openings', "colours (the model's)",
         'inference budget', 'stopping and adjudication (terminations)', 'ladder state', 'estimator',
         'date (first start to last end)']


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.rows, self.row, self.cell = [], [], None, None
        self.tables, self.svgs, self.ids, self.text = [], [], set(), []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ('script', 'link', 'img', 'iframe', 'object', 'embed', 'base'):
            bad.append(f'a <{tag}> element: the page must stand alone')
        for k in ('src', 'href', 'xlink:href', 'action', 'srcset'):
            v = a.get(k)
            if v is not None and not v.startswith('#'):
                bad.append(f'<{tag} {k}="{v}">: a reference outside the page')
        for k in a:
            if k.startswith('on'):
                bad.append(f'<{tag} {k}>: a script handler')
        if 'id' in a:
            self.ids.add(a['id'])
        if tag == 'table':
            self.tables.append((a.get('class'), []))
        elif tag == 'tr':
            self.row = (a, [])
        elif tag in ('td', 'th') and self.row is not None:
            self.cell = []
        elif tag == 'svg':
            self.svgs.append(a.get('data-kind'))

    def handle_endtag(self, tag):
        if tag in ('td', 'th') and self.cell is not None and self.row is not None:
            self.row[1].append(' '.join(''.join(self.cell).split()))
            self.cell = None
        elif tag == 'tr' and self.row is not None:
            if self.tables:
                self.tables[-1][1].append(self.row)
            self.row = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)
        self.text.append(data)


def read(path):
    raw = open(path, encoding='utf-8').read()
    p = Page()
    p.feed(raw)
    if re.search(r'url\(|@import|https?://', raw.replace('http://www.w3.org/2000/svg', '')):
        bad.append(f'{path}: names a URL (url(), @import or http)')
    return p


def table(p, cls):
    return [rows for c, rows in p.tables if c == cls]


def num(v):
    if v is None:
        return '\u2014'
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return str(v)


def tuple_rows(p):
    for rows in table(p, 'tuple'):
        heads = [cells[0] for _, cells in rows[1:]]
        if heads != TUPLE:
            bad.append(f'tuple rows {heads}, want {TUPLE}')
    if not table(p, 'tuple'):
        bad.append('no protocol tuple')


def ratings(p, fits):
    tabs = table(p, 'ratings')
    if len(tabs) != len(fits):
        bad.append(f'{len(tabs)} ratings tables for {len(fits)} fits')
    for rows, f in zip(tabs, fits):
        conds = json.load(open(f))['conditions']
        body = rows[1:]
        if len(body) != len(conds):
            bad.append(f'{f}: {len(body)} rows for {len(conds)} conditions')
        for (attrs, cells), c in zip(body, conds):
            iv = c.get('interval')
            want = [c.get('family') or '\u2014', c['condition'], num(c['games']),
                    f'{num(c["w"])}-{num(c["d"])}-{num(c["l"])}',
                    ', '.join(num(a) for a in c['anchors']), num(c.get('rating')),
                    f'{num(iv[0])} to {num(iv[1])}' if iv else '\u2014']
            if c['status'] in ('all_wins', 'all_losses'):
                want.append(f'{c["status"]}: exact {c["bound"]["side"]} bound {num(c["bound"]["value"])}, no finite rating')
            else:
                want.append('no' if c['status'] == 'finite' else c['status'])
            if cells != want:
                bad.append(f'{f} {c["condition"]}: row {cells}, want {want}')


def items(p, bundle):
    text = ' '.join(p.text)
    rows = table(p, 'items')
    if len(rows) != 1 or len(rows[0]) - 1 != len(bundle['items']):
        bad.append(f'items table: {[len(r) - 1 for r in rows]} rows for {len(bundle["items"])} items')
    for it in bundle['items']:
        for k in ('id', 'document'):
            if k in it and it[k] not in text:
                bad.append(f'item {it["path"]}: its identity {it[k]} is not on the page')


def figures(p, bundle, fits, extra=()):
    kinds = [it.get('kind') for it in bundle['items']]
    want = sorted(['ladder'] * kinds.count('cohort.freeze/1') +
                  ['curve', 'sensitivity'] * kinds.count('cohort.fit/1') + list(extra) +
                  (['curve'] if kinds.count('cohort.fit/1') > 1 else []))
    if sorted(p.svgs) != want:
        bad.append(f'figures {sorted(p.svgs)}, want {want}')


def checks(p, verify):
    rows = table(p, 'checks')
    want = [['holds' if c['ok'] else 'finding', c['check'], c['subject']] for c in verify['checks']]
    got = [cells[:3] for _, cells in (rows[0][1:] if rows else [])]
    if got != want:
        bad.append(f'verification: {len(got)} rows, want the {len(want)} checks of the report'
                   + (f'; first difference {next((g, w) for g, w in zip(got, want) if g != w)}' if got and want and got != want and any(g != w for g, w in zip(got, want)) else ''))


mode = sys.argv[1] if len(sys.argv) > 1 else ''
if mode == 'archive' and len(sys.argv) >= 5:
    page, bundle, verify = read(sys.argv[2]), json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
    fits = sys.argv[5:]
    for s in ('tuple', 'ratings', 'figures', 'verification', 'items'):
        if s not in page.ids:
            bad.append(f'no section "{s}"')
    tuple_rows(page), ratings(page, fits), items(page, bundle), figures(page, bundle, fits)
    checks(page, verify)
elif mode == 'bag' and len(sys.argv) >= 4:
    page, bundle = read(sys.argv[2]), json.load(open(sys.argv[3]))
    fits = sys.argv[4:]
    if 'verification' in page.ids:
        bad.append('the page a bag holds cannot hold its own verification')
    tuple_rows(page), ratings(page, fits), items(page, bundle), figures(page, bundle, fits)
elif mode == 'refusal' and len(sys.argv) == 4:
    page, doc = read(sys.argv[2]), json.load(open(sys.argv[3]))
    rows = table(page, 'findings')
    got = [cells[0::3][:2] + [cells[2]] for _, cells in (rows[0][1:] if rows else [])]
    want = [[f['check'], f['detail'], f.get('path', '') + (f':{f["line"]}' if 'line' in f else '')]
            for f in doc['findings']]
    if got != want:
        bad.append(f'findings {got}, want {want}')
else:
    raise SystemExit(__doc__)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
