#!/usr/bin/env python3
"""pairs_make.py: a cohort of colour-reversed pairs with known truth.

usage: pairs_make.py DIR [--seed N] [--pairs N] [--rho R] [--nu NU] [--pen P]
                         [--families F,...] [--conditions c=ELO,...] [--anchors A,...]

Writes DIR/suite.jsonl (a cohort.openings/1 suite of move-list openings),
DIR/spec.json (naming it) and DIR/ledger.jsonl: for each family, condition
and anchor, N pairs, each two games from one opening, the model White in
one and Black in the other.  A game's outcome follows the Davidson model
at its condition's true rating (x = 10^((R - anchor -/+ p)/400), Black
minus), and the two games of a pair are coupled: with chance rho the
second game's uniform draw is the first one's, else its own, so each game
is exactly Davidson and the pair's scores are positively correlated.
"""
import hashlib
import json
import math
import random
import sys

OPENINGS = [
    ["e2e4", "e7e5", "g1f3", "b8c6"],
    ["d2d4", "d7d5", "c2c4", "e7e6"],
    ["c2c4", "e7e5", "b1c3", "g8f6"],
    ["g1f3", "g8f6", "g2g3", "g7g6"],
    ["e2e4", "c7c5", "g1f3", "d7d6"],
    ["d2d4", "g8f6", "c2c4", "g7g6"],
    ["e2e4", "e7e6", "d2d4", "d7d5"],
    ["e2e4", "c7c6", "d2d4", "d7d5"],
]


def canon(o):
    return json.dumps(o, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def probs(r, anchor, pen, black, nu):
    s = (r - anchor - (pen if black else -pen)) * math.log(10) / 400
    x = math.exp(s)
    dd = x + 1 + nu * math.sqrt(x)
    return x / dd, nu * math.sqrt(x) / dd, 1 / dd  # win, draw, loss


def outcome(u, p):
    # the model's loss first, then draw, then win: a larger u is better
    if u < p[2]:
        return "loss"
    if u < p[2] + p[1]:
        return "draw"
    return "win"


def main():
    args = sys.argv[1:]
    d = args.pop(0)
    opt = {"seed": "1", "pairs": "20", "rho": "0.6", "nu": "0.8", "pen": "40",
           "families": "m", "conditions": "none=1400,top5=1700,top2=2000",
           "anchors": "1500,1800"}
    while args:
        k = args.pop(0)
        opt[k[2:]] = args.pop(0)
    rng = random.Random(int(opt["seed"]))
    rho, nu, pen = float(opt["rho"]), float(opt["nu"]), float(opt["pen"])
    fams = opt["families"].split(",")
    conds = [(c.split("=")[0], float(c.split("=")[1])) for c in opt["conditions"].split(",")]
    anchors = [float(a) for a in opt["anchors"].split(",")]
    suite = [canon({"kind": "cohort.openings/1", "name": "test-suite"})]
    for i, mv in enumerate(OPENINGS):
        suite.append(canon({"opening": "o%d" % (i + 1), "moves": mv}))
    text = "".join(line + "\n" for line in suite)
    with open(d + "/suite.jsonl", "w") as f:
        f.write(text)
    sid = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    spec = {"kind": "cohort.spec/1", "name": "pairs-test", "as_of": "2026-08-01T00:00:00Z",
            "families": fams, "conditions": [c for c, _ in conds], "black_penalty": pen,
            "opening_suite": sid,
            "ladder": {"block_games": 10, "start": 1500, "max": 3000,
                       "promote": [[0.9, 400], [0.8, 300], [0.65, 200]],
                       "stop_below": 0.35, "max_repeats": 1},
            "protocol": {"openings": "suite.jsonl", "estimator": "davidson-joint/1"}}
    with open(d + "/spec.json", "w") as f:
        f.write(canon(spec))
    out = []
    t = 0
    for fam in fams:
        for c, r in conds:
            for ai, a in enumerate(anchors):
                for k in range(int(opt["pairs"])):
                    op = k % len(OPENINGS)
                    u1 = rng.random()
                    u2 = u1 if rng.random() < rho else rng.random()
                    ids = ["%s-%s-a%d-p%03d-%s" % (fam, c, ai + 1, k + 1, col) for col in ("w", "b")]
                    for j, (col, u) in enumerate((("white", u1), ("black", u2))):
                        t += 1
                        res = outcome(u, probs(r, a, pen, col == "black", nu))
                        mv = OPENINGS[op]
                        out.append({
                            "game_id": ids[j], "pair": ids[1 - j], "family": fam,
                            "model": {"requested": fam, "returned": fam}, "condition": c,
                            "color": col,
                            "anchor": {"engine": "sf", "elo": a, "nodes": 1000},
                            "opening": "o%d" % (op + 1), "block": ai + 1, "status": "terminal",
                            "result": res, "termination": "adjudicated", "plies": len(mv),
                            "moves": mv,
                            "started_at": "2026-07-01T00:00:%02dZ" % (t % 60),
                            "ended_at": "2026-07-01T01:00:00Z",
                            "tokens": {"input": 1, "output": 1, "reasoning": 0, "cached": 0},
                            "wall_s": 1, "worker_hours": 0.001, "requests": []})
    with open(d + "/ledger.jsonl", "w") as f:
        for rec in out:
            f.write(canon(rec) + "\n")


main()
