#!/usr/bin/env python3
"""make.py: the paired toy: a small candidate manifest with hand-set
values (a fake engine digest), a spec, and decision logs of two families
over every condition, written as canonical JSON Lines.  Values are chosen
so each statistic has a closed form the tests compute again."""
import json

def canon(o):
    return json.dumps(o, separators=(",", ":"), sort_keys=True, ensure_ascii=False)

head = {"kind": "cohort.candidates/1", "name": "fixture",
        "engine": {"name": "Fixture 1", "binary_sha256": "ab" * 32,
                   "options": {"Hash": 16, "Threads": 1}, "nodes": 1000, "multipv": 5}}
P = [
 ("o1-p1", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "explore", "o1", "opening", "quiet",
  [("e2e4", 30), ("d2d4", 25), ("g1f3", 20), ("c2c4", 15), ("e2e3", 10)], {"a2a3": -12, "h2h4": -40}),
 ("o1-p2", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", "explore", "o1", "opening", "ambiguous",
  [("c7c5", 20), ("e7e5", 18), ("e7e6", 10), ("c7c6", 5), ("d7d6", 0)], {"a7a6": -30}),
 ("o2-p1", "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2", "heldout", "o2", "middlegame", "quiet",
  [("c2c4", 35), ("g1f3", 30), ("c1f4", 25), ("e2e3", 20), ("b1c3", 15)], {}),
 ("o2-p2", "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2", "heldout", "o2", "endgame", "tactical",
  [("d8h4", {"mate": 1}), ("b8c6", 60), ("g8f6", 50), ("d7d5", 40), ("f8c5", 30)], {"a7a6": -100}),
]
lines = [canon(head)]
for pid, fen, split, op, phase, kind, cands, evals in P:
    side = fen.split()[1]
    cl = []
    for u, v in cands:
        c = {"uci": u, "pv": [u]}
        c.update({"mate": v["mate"]} if isinstance(v, dict) else {"cp": v})
        cl.append(c)
    rec = {"position_id": pid, "fen": fen, "split": split, "opening": op,
           "stratum": {"phase": phase, "kind": kind, "to_move": "white" if side == "w" else "black"},
           "candidates": cl}
    if evals:
        rec["evals"] = evals
    lines.append(canon(rec))
open("candidates.jsonl", "w").write("".join(l + "\n" for l in lines))

spec = {"kind": "cohort.spec/1", "name": "paired-fixture", "as_of": "2026-09-01T00:00:00Z",
        "families": ["alpha", "beta"], "conditions": ["none", "top2", "top5"],
        "black_penalty": 0,
        "ladder": {"block_games": 10, "start": 1350, "max": 2850, "promote": [[0.9, 400]],
                   "stop_below": 0.35, "max_repeats": 1},
        "protocol": {"estimator": "davidson-joint/1"}}
open("spec.json", "w").write(canon(spec))

cands = {p[0]: [u for u, _ in p[6]] for p in P}
def dec(i, fam, rep, cond, budget, pid, seed, shown, chosen, status="ok", failure=None,
        proposed=None, ts="2026-08-01T10:00:00Z", context="fresh"):
    d = {"decision_id": "d%04d" % i, "family": fam, "model": {"requested": fam + "-1", "returned": fam + "-1"},
         "replication": rep, "condition": cond, "budget": budget, "context": context,
         "position_id": pid, "order_seed": seed, "shown": shown, "chosen": chosen,
         "status": status, "failure": failure, "retries": 0,
         "tokens": {"input": 100, "output": 20 + i % 7, "reasoning": 50, "cached": 0},
         "latency_ms": 1000 + 10 * (i % 5), "ts": ts}
    if proposed is not None:
        d["proposed"] = proposed
    return d

def rot(a, s):
    s %= len(a)
    return a[s:] + a[:s]

out, i = [], 0
# alpha: always picks the first move shown (so order matters); beta: always the best shown.
for fam in ("alpha", "beta"):
    for pid in cands:
        c = cands[pid]
        for budget in ("low", "high"):
            i += 1; out.append(dec(i, fam, "r1", "none", budget, pid, 0, [], c[1] if fam == "alpha" else c[0]))
            for k in (2, 5):
                for seed in (1, 2, 3):
                    shown = rot(c[:k], seed)
                    ch = shown[0] if fam == "alpha" else c[0]
                    i += 1; out.append(dec(i, fam, "r1", "top%d" % k, budget, pid, seed, shown, ch))
            shown = rot(c[1:4], 1)
            i += 1; out.append(dec(i, fam, "r1", "top3-omit-best", budget, pid, 1, shown, shown[0] if fam == "alpha" else c[1]))
            prop = [c[2], c[0], c[3]] if fam == "beta" else [c[2], c[3], c[4]]
            i += 1; out.append(dec(i, fam, "r1", "propose", budget, pid, 0, [], prop[0], proposed=prop))
            best = min(prop, key=c.index)
            i += 1; out.append(dec(i, fam, "r1", "engine-selects", budget, pid, 0, [], best, proposed=prop))
# failures and exclusions
i += 1; out.append(dec(i, "alpha", "r1", "top2", "low", "o1-p1", 9, rot(cands["o1-p1"][:2], 9), None, status="illegal", failure="interface"))
i += 1; out.append(dec(i, "alpha", "r1", "top2", "low", "o1-p1", 8, rot(cands["o1-p1"][:2], 8), None, status="provider_error"))
i += 1; out.append(dec(i, "gamma", "r1", "none", "low", "o1-p1", 0, [], "e2e4"))
i += 1; out.append(dec(i, "alpha", "r1", "none", "low", "o1-p1", 0, [], "e2e4", ts="2026-09-02T00:00:00Z"))
i += 1; out.append(dec(i, "alpha", "r1", "top2", "low", "o1-p1", 7, ["e2e4", "g1f3"], "e2e4"))
i += 1; out.append(dec(i, "alpha", "r1", "none", "low", "o9-p9", 0, [], "e2e4"))
i += 1; out.append(dec(i, "alpha", "r1", "top2", "low", "o1-p1", 6, ["e2e4", "d2d4"], "g1f3"))
i += 1; out.append(dec(i, "beta", "r1", "none", "low", "o1-p1", 0, [], "a2a3"))
i += 1; out.append(dec(i, "beta", "r1", "none", "low", "o1-p1", 0, [], "b2b3"))
open("decisions.jsonl", "w").write("".join(canon(d) + "\n" for d in out))

# the preregistration of the toy analysis, dated before its first decision
import hashlib
prereg = {"kind": "cohort.prereg/1", "name": "paired-fixture",
          "registered_at": "2026-07-25T00:00:00Z",
          "candidates": "sha256:" + hashlib.sha256(open("candidates.jsonl", "rb").read()).hexdigest(),
          "widths": [0, 2, 5],
          "allocation": {"splits": {"explore": 2, "heldout": 2}, "order_seeds": 3,
                         "budgets": ["high", "low"]},
          "exclusions": ["family", "after_cut", "provider_error", "invalid"],
          "features": ["unaided", "delta_r", "k_star", "coverage", "order_change", "tokens_per_decision"],
          "distance": {"lambda": 0.1, "population": "panel"},
          "bootstrap": {"replicates": 200, "unit": "opening", "seed": 1},
          "blunder_cp": 300,
          "predictions": [
              {"id": "assist-5", "kind": "heldout_assistance", "target": "delta_r[5]",
               "predictors": ["delta_r[2]", "order_change"], "baseline": ["unaided"]},
              {"id": "beta-gains-more", "kind": "architectural", "family": "beta",
               "feature": "delta_r[5]", "relation": ">", "family2": "alpha"}]}
open("prereg.json", "w").write(json.dumps(prereg, indent=1) + "\n")
