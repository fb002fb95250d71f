#!/usr/bin/env python3
"""layers.py [ROOT]: check that every quoted #include of the library and
the shells follows mk/layers.txt: a file includes only headers of its own
folder or of the folders its folder's line names, every folder with C
sources has a line, and the lines form no circle.  Prints one line per
violation as FILE:LINE: what, and exits 1 when there is any."""
import os
import re
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..'))
table = os.path.join(root, 'mk', 'layers.txt')
bad = []
uses, order = {}, []
for n, line in enumerate(open(table), 1):
    line = line.split('#', 1)[0].strip()
    if not line:
        continue
    name, _, deps = line.partition(':')
    name = name.strip()
    if name in uses:
        bad.append(f'mk/layers.txt:{n}: {name}: named twice')
    for d in deps.split():
        if d not in uses:
            bad.append(f'mk/layers.txt:{n}: {name} uses {d}, which is not on a line above: a circle or an upward use')
    uses[name] = set(deps.split())
    order.append(name)

skip = {'tests', 'bench', 'build', 'examples', 'docs', 'golden', 'schemas', 'mk'}
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
seen_edges = {}
for top in sorted(os.listdir(root)):
    path = os.path.join(root, top)
    if top.startswith('.') or top in skip or not os.path.isdir(path):
        continue
    sources = [f for f in sorted(os.listdir(path)) if f.endswith(('.c', '.h'))]
    if sources and top not in uses:
        bad.append(f'{top}/: C sources in a folder mk/layers.txt does not place')
        continue
    for f in sources:
        rel = f'{top}/{f}'
        for n, line in enumerate(open(os.path.join(path, f), errors='replace'), 1):
            m = inc.match(line)
            if not m:
                continue
            target = os.path.normpath(os.path.join(top, m.group(1)))
            parts = target.split(os.sep)
            if target.startswith('..') or os.path.isabs(m.group(1)):
                bad.append(f'{rel}:{n}: includes {m.group(1)}, outside the project')
                continue
            if not os.path.exists(os.path.join(root, target)):
                bad.append(f'{rel}:{n}: includes {m.group(1)}, which does not exist')
                continue
            there = parts[0] if len(parts) > 1 else ''
            if there == top:
                continue
            seen_edges.setdefault(top, set()).add(there)
            if there not in uses.get(top, set()):
                kind = 'a higher layer' if there in order and order.index(there) > order.index(top) else \
                    'a folder its line does not name'
                bad.append(f'{rel}:{n}: includes {m.group(1)}: {there}/ is {kind} (mk/layers.txt)')

# A circle among the includes actually made (also caught above, but say it plainly).
def circle(start):
    stack, on = [(start, iter(sorted(seen_edges.get(start, ()))))], [start]
    while stack:
        node, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            stack.pop(); on.pop(); continue
        if nxt == start:
            return on + [start]
        if nxt not in on and len(on) < 64:
            stack.append((nxt, iter(sorted(seen_edges.get(nxt, ()))))); on.append(nxt)
    return None
for f in sorted(seen_edges):
    c = circle(f)
    if c:
        bad.append('circle: ' + ' -> '.join(c))
        break

for b in bad:
    print(b)
sys.exit(1 if bad else 0)
