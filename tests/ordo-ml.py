#!/usr/bin/python3
import csv, math, re, sys
# Ordo's maximum-likelihood ratings (ordo -M) done again: the logistic with
# 76% at 202 Elo, a draw half a point, a fixed white advantage, players
# fixed from a file of anchors (else the pool's mean held), and a player
# who only won or only lost left out, as Ordo purges them, until none is
# (--keep: kept).
# ordo-ml.py PGN WHITE_ADV (--anchors FILE | --mean M) [--keep]
pgn, wadv, how, arg = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
keep = "--keep" in sys.argv
k = math.log(0.76 / 0.24) / 202
games, tags = [], {}
for line in open(pgn, encoding="utf-8"):
    m = re.match(r'\[(\w+) "(.*)"\]', line)
    if m:
        tags[m[1]] = m[2]
        if m[1] == "Result":
            s = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[m[2]]
            games.append((tags["White"], tags["Black"], s))
            tags = {}
fixed = {}
if how == "--anchors":
    fixed = {r[0]: float(r[1]) for r in csv.reader(open(arg))}
def tally(games):
    score, n = {}, {}
    for w, b, s in games:
        for p, x in ((w, s), (b, 1 - s)):
            score[p] = score.get(p, 0) + x
            n[p] = n.get(p, 0) + 1
    return score, n
score, n = tally(games)
while not keep:
    out = [p for p in n if score[p] in (0, n[p])]
    if not out:
        break
    games = [g for g in games if g[0] not in out and g[1] not in out]
    score, n = tally(games)
free = sorted(p for p in n if p not in fixed)
r = {p: fixed.get(p, float(arg) if how == "--mean" else 2000.0) for p in n}
def expect(p):
    t = 0.0
    for w, b, s in games:
        if p == w:
            t += 1 / (1 + math.exp(-k * (r[w] + wadv - r[b])))
        elif p == b:
            t += 1 / (1 + math.exp(-k * (r[b] - r[w] - wadv)))
    return t
for sweep in range(2000):
    moved = 0.0
    for p in free:
        old, lo, hi = r[p], r[p] - 4000, r[p] + 4000
        for _ in range(100):
            r[p] = (lo + hi) / 2
            if expect(p) < score[p]:
                lo = r[p]
            else:
                hi = r[p]
        moved = max(moved, abs(r[p] - old))
    if how == "--mean":
        shift = float(arg) - sum(r.values()) / len(r)
        for p in r:
            r[p] += shift
        moved = max(moved, abs(shift))
    if moved < 1e-9:
        break
for p in free:
    print("%s\t%.1f" % (p, r[p]))
