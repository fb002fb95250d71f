#!/usr/bin/env python3
"""netlog.py LOG: the requests a page made, from Chromium's net-log JSON
(mk/shot.sh --net).  A request the page made is a URL request whose
network isolation key is the page's own file:// origin; the browser's own
background requests (updates, sign-in) have another key and are left out.
Prints each request the page made to somewhere other than file: or data:,
and exits 1 when there is any; exits 2 when the log holds no event at all
(nothing was logged, so nothing was checked).  The tests plant a request
to show that one is seen."""
import json
import sys

if len(sys.argv) != 2:
    raise SystemExit(__doc__)
d = json.load(open(sys.argv[1]))
names = {v: k for k, v in d['constants']['logEventTypes'].items()}
seen, out = 0, []
for e in d['events']:
    seen += 1
    if names.get(e['type']) != 'URL_REQUEST_START_JOB':
        continue
    p = e.get('params', {})
    url = p.get('url', '')
    if 'file://' in p.get('network_isolation_key', '') and not url.startswith(('file:', 'data:')):
        out.append(url)
for u in out:
    print('the page requested', u)
if seen == 0:
    print('no event in the log: nothing was checked')
    sys.exit(2)
sys.exit(1 if out else 0)
