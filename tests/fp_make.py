#!/usr/bin/env python3
"""fp_make.py DIR [DECISIONS_PER_CELL_SCALE]: a fingerprint panel with every
kind of evidence: a ten-candidate manifest of twelve positions in six
openings, a spec, decision logs of families alpha and beta in two
replications each (every condition, both budgets, three order seeds,
statuses and failure labels) and a game ledger per family and replication
(widths 0, 2, 5 and 10 at two anchors, both colours, draws), plus family
gamma with a closed-form strength curve: no draws, one anchor, White only,
so R = anchor + 400 log10(w / l), and width 10 all won (a bound).  Also a
prereg registering every feature.  Standard library only, fixed seeds.
With a third argument "by-opening", each opening's positions lie in one
split (o1 explore, o2 confirm, o3 heldout, o4 explore, ...), so a split's
fingerprint has the games of its openings; without it, every opening has
positions in two splits."""
import hashlib
import json
import random
import sys

out = sys.argv[1]
BY_OPENING = len(sys.argv) > 3 and sys.argv[3] == "by-opening"


def canon(o):
    return json.dumps(o, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


WHITE = ["a2a3", "b2b3", "c2c3", "d2d3", "e2e3", "f2f3", "g2g3", "h2h3", "b1c3", "g1f3",
         "a2a4", "b2b4", "c2c4", "d2d4", "e2e4", "f2f4", "g2g4", "h2h4", "b1a3", "g1h3"]
BLACK = [m.replace("2", "7").replace("3", "6").replace("4", "5").replace("1", "8") for m in WHITE]
FIRST = {"a2a3": "rnbqkbnr/pppppppp/8/8/8/P7/1PPPPPPP/RNBQKBNR b KQkq - 0 1",
         "b2b3": "rnbqkbnr/pppppppp/8/8/8/1P6/P1PPPPPP/RNBQKBNR b KQkq - 0 1",
         "c2c3": "rnbqkbnr/pppppppp/8/8/8/2P5/PP1PPPPP/RNBQKBNR b KQkq - 0 1",
         "d2d3": "rnbqkbnr/pppppppp/8/8/8/3P4/PPP1PPPP/RNBQKBNR b KQkq - 0 1",
         "e2e3": "rnbqkbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
         "f2f3": "rnbqkbnr/pppppppp/8/8/8/5P2/PPPPP1PP/RNBQKBNR b KQkq - 0 1",
         "g2g3": "rnbqkbnr/pppppppp/8/8/8/6P1/PPPPPP1P/RNBQKBNR b KQkq - 0 1",
         "h2h3": "rnbqkbnr/pppppppp/8/8/8/7P/PPPPPPP1/RNBQKBNR b KQkq - 0 1",
         "b1c3": "rnbqkbnr/pppppppp/8/8/8/2N5/PPPPPPPP/R1BQKBNR b KQkq - 1 1",
         "g1f3": "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1",
         "c2c4": "rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - 0 1"}
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
rng = random.Random(17)
FENS = [START] + list(FIRST.values())
PHASES = ["opening", "middlegame", "endgame"]
KINDS = ["quiet", "ambiguous", "tactical"]
positions = []
for i, fen in enumerate(FENS):
    moves = (WHITE if " w " in fen else BLACK)[:]
    rng.shuffle(moves)
    cps = sorted(rng.sample(range(-60, 80), 12), reverse=True)
    cands = []
    for j, (u, v) in enumerate(zip(moves[:10], cps[:10])):
        c = {"uci": u, "pv": [u]}
        if i == 11 and j == 0:
            c["mate"] = 3
        else:
            c["cp"] = v
        cands.append(c)
    rec = {"position_id": "p%02d" % (i + 1), "fen": fen,
           "split": ["explore", "confirm", "heldout"][(i // 2) % 3 if BY_OPENING else i % 3],
           "opening": "o%d" % (i // 2 + 1),
           "stratum": {"phase": PHASES[i % 3], "kind": KINDS[(i // 3) % 3],
                       "to_move": "white" if " w " in fen else "black"},
           "candidates": cands, "evals": {moves[10]: cps[10]}}
    positions.append(rec)
head = {"kind": "cohort.candidates/1", "name": "fp-panel",
        "engine": {"name": "Fixture 1", "binary_sha256": "cd" * 32,
                   "options": {"Hash": 16, "Threads": 1}, "nodes": 1000, "multipv": 10}}
manifest = "".join(canon(x) + "\n" for x in [head] + positions)
open(out + "/candidates.jsonl", "w").write(manifest)
cand_id = "sha256:" + hashlib.sha256(manifest.encode()).hexdigest()

FAMS = ["alpha", "beta", "gamma"]
spec = {"kind": "cohort.spec/1", "name": "fp-panel", "as_of": "2026-09-01T00:00:00Z",
        "families": FAMS, "conditions": ["none", "top2", "top5", "top10"],
        "black_penalty": 35,
        "ladder": {"block_games": 10, "start": 1400, "max": 2800, "promote": [[0.9, 400]],
                   "stop_below": 0.05, "max_repeats": 9},
        "protocol": {"estimator": "davidson-joint/1"}}
open(out + "/spec.json", "w").write(canon(spec))


def rot(a, s):
    s %= len(a)
    return a[s:] + a[:s]


FAIL = ["state", "tactic", "value", "plan", "memory", "interface"]
decs = []


def dec(fam, rep, cond, budget, p, seed, shown, chosen, proposed=None, context="fresh"):
    i = len(decs) + 1
    status, failure = "ok", None
    r = rng.random()
    if cond.startswith("top") and r < 0.04:
        status, chosen = "illegal", p["evals"] and list(p["evals"])[0]
    elif r < 0.07:
        status, chosen = "tool_error", None
    v = {c["uci"]: c.get("cp", 500) for c in p["candidates"]}
    if status != "ok" or (chosen in v and v[p["candidates"][0]["uci"]] - v[chosen] > 40):
        failure = FAIL[rng.randrange(6) if fam == "beta" else rng.randrange(3)]
    hi = budget == "high"
    d = {"decision_id": "d%05d" % i, "family": fam,
         "model": {"requested": fam + "-1", "returned": fam + "-1"},
         "replication": rep, "condition": cond, "budget": budget, "context": context,
         "position_id": p["position_id"], "order_seed": seed, "shown": shown, "chosen": chosen,
         "status": status, "failure": failure, "retries": rng.randrange(3),
         "tokens": {"input": 100 + rng.randrange(50), "output": 20 + rng.randrange(20) + 30 * hi,
                    "reasoning": (50 if fam == "alpha" else 150) * (1 + 2 * hi) + rng.randrange(40),
                    "cached": 0},
         "latency_ms": (800 if fam == "alpha" else 1500) + rng.randrange(400) + 500 * hi,
         "ts": "2026-08-01T10:00:00Z"}
    if proposed is not None:
        d["proposed"] = proposed
    decs.append(d)


def pick(fam, rep, shown, p, hi):
    """alpha favours the first move shown; beta the best, less so with more shown."""
    order = [c["uci"] for c in p["candidates"]]
    best = min(shown, key=order.index)
    skill = (0.55 if fam == "alpha" else 0.8 - 0.03 * len(shown)) + 0.1 * hi + (0.03 if rep == "r2" else 0)
    if rng.random() < skill:
        return best
    return shown[0] if fam == "alpha" else rng.choice(shown)


for fam in ("alpha", "beta"):
    for rep in ("r1", "r2"):
        for p in positions:
            c = [x["uci"] for x in p["candidates"]]
            for budget in ("low", "high"):
                hi = budget == "high"
                for ctx in ("fresh", "history"):
                    dec(fam, rep, "none", budget, p, 0, [], pick(fam, rep, c[:6], p, hi), context=ctx)
                for k in (2, 5, 10):
                    for seed in (1, 2, 3):
                        shown = rot(c[:k], seed + (fam == "beta"))
                        dec(fam, rep, "top%d" % k, budget, p, seed, shown, pick(fam, rep, shown, p, hi),
                            context="history" if seed == 3 else "fresh")
                shown = rot(c[1:4], 1)
                dec(fam, rep, "top3-omit-best", budget, p, 1, shown, pick(fam, rep, shown, p, hi))
                prop = rng.sample(c[:6], 3)
                dec(fam, rep, "propose", budget, p, 0, [], prop[0], proposed=prop)
                prop = rng.sample(c[:6], 3)
                dec(fam, rep, "engine-selects", budget, p, 0, [], min(prop, key=c.index), proposed=prop)
open(out + "/decisions.jsonl", "w").write("".join(canon(d) + "\n" for d in decs))

games = []


def game(fam, rep, cond, block, anchor, color, result, n):
    gid = "%s-%s-%s-b%02d-g%02d" % (fam, rep, cond, block, n)
    tok = {"input": 1000 + rng.randrange(500), "output": 200 + rng.randrange(100),
           "reasoning": (500 if fam == "alpha" else 900) + rng.randrange(300) + 40 * (int(cond[3:]) if cond != "none" else 0),
           "cached": 0}
    g = {"game_id": gid, "family": fam, "model": {"requested": fam + "-1", "returned": fam + "-1"},
         "replication": rep, "condition": cond, "color": color,
         "anchor": {"engine": "stockfish", "elo": anchor, "limiter": "UCI_Elo", "nodes": 1000},
         "opening": "o%d" % (1 + (n + block) % 6), "block": block, "status": "terminal",
         "result": result, "termination": "checkmate" if result != "draw" else "repetition",
         "plies": 60 + n, "started_at": "2026-08-02T10:%02d:00Z" % (n % 60),
         "ended_at": "2026-08-02T11:%02d:00Z" % (n % 60), "tokens": tok,
         "wall_s": 600 + 10 * n + rng.randrange(100), "worker_hours": round(0.2 + 0.01 * n, 6),
         "requests": [gid + "-r1"]}
    games.append(g)


TRUE = {"alpha": {"none": 1400, "top2": 1750, "top5": 1600, "top10": 1450},
        "beta": {"none": 1550, "top2": 1650, "top5": 1720, "top10": 1700}}
for fam in ("alpha", "beta"):
    for ri, rep in enumerate(("r1", "r2")):
        for cond, R in TRUE[fam].items():
            for b, anchor in ((1 + 2 * ri, 1400), (2 + 2 * ri, 1700)):
                for n in range(1, 11):
                    color = "white" if n % 2 else "black"
                    s = R - anchor + (35 if color == "black" else 0) * -1
                    pw = 1 / (1 + 10 ** (-s / 400))
                    u = rng.random()
                    res = "win" if u < pw * 0.85 else "draw" if u < pw * 0.85 + 0.2 else "loss"
                    game(fam, rep, cond, b, anchor, color, res, n)
# gamma: closed form; none 5-0-5, top2 15-0-5, top5 6-0-14, top10 10-0-0, all White at 1500
for cond, w, l in (("none", 5, 5), ("top2", 15, 5), ("top5", 6, 14), ("top10", 10, 0)):
    for n in range(1, w + l + 1):
        game("gamma", "r1", cond, 1 + (n - 1) // 10, 1500, "white", "win" if n <= w else "loss", n)
open(out + "/games.jsonl", "w").write("".join(canon(g) + "\n" for g in games))

ALL = ["unaided", "r_k", "delta_r", "k_star", "p_k_star", "overload_2_10", "slope", "curvature",
       "reversals", "auc", "recall_unaided", "coverage", "oracle_regret", "chosen_rank", "value_loss",
       "omit_best", "engine_selects", "calibration", "order_change", "regret_var_seeds",
       "illegal_rate", "tool_failure_rate", "blunder_hazard", "history_vs_fresh", "failure_labels",
       "tokens_per_decision", "latency_per_decision", "tokens_per_game", "wall_per_game",
       "worker_hours_per_game", "gain_per_1k_tokens", "width_x_budget", "retries_per_legal", "pareto"]
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 100
prereg = {"kind": "cohort.prereg/1", "name": "fp-panel", "registered_at": "2026-07-25T00:00:00Z",
          "candidates": cand_id, "widths": [0, 2, 5, 10],
          "allocation": {"splits": {"explore": 4, "confirm": 4, "heldout": 4}, "order_seeds": 3,
                         "budgets": ["low", "high"]},
          "exclusions": ["family", "after_cut", "provider_error", "invalid"],
          "features": ALL, "distance": {"lambda": 0.1, "population": "panel"},
          "bootstrap": {"replicates": reps, "unit": "opening", "seed": 5},
          "blunder_cp": 60, "predictions": []}
open(out + "/prereg.json", "w").write(canon(prereg))
