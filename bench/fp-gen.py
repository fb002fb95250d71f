#!/usr/bin/env python3
"""fp-gen.py DIR POSITIONS REPLICATES: a fingerprint panel for the bench:
six families in two replications each, POSITIONS positions in pairs per
opening (cycling twelve legal positions), every condition under three
budgets, two contexts and five order seeds (114 decisions a position and
fingerprint: POSITIONS 730 gives about a million), 160 games a
fingerprint, and a prereg registering every feature.  Fixed seeds; the
records are written from templates, canonical as they stand."""
import hashlib
import json
import random
import sys

out, npos, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(1)
WHITE = ["a2a3", "b2b3", "c2c3", "d2d3", "e2e3", "f2f3", "g2g3", "h2h3", "b1c3", "g1f3",
         "a2a4", "b2b4", "c2c4", "d2d4", "e2e4", "f2f4", "g2g4", "h2h4", "b1a3", "g1h3"]
BLACK = [m.replace("2", "7").replace("3", "6").replace("4", "5").replace("1", "8") for m in WHITE]
FENS = ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"] + [
    "rnbqkbnr/pppppppp/8/8/8/%s b KQkq - 0 1" % x for x in
    ("P7/1PPPPPPP/RNBQKBNR", "1P6/P1PPPPPP/RNBQKBNR", "2P5/PP1PPPPP/RNBQKBNR", "3P4/PPP1PPPP/RNBQKBNR",
     "4P3/PPPP1PPP/RNBQKBNR", "5P2/PPPPP1PP/RNBQKBNR", "6P1/PPPPPP1P/RNBQKBNR", "7P/PPPPPPP1/RNBQKBNR")]
canon = lambda o: json.dumps(o, separators=(",", ":"), sort_keys=True)
pos = []
lines = [canon({"kind": "cohort.candidates/1", "name": "bench",
                "engine": {"name": "Fixture 1", "binary_sha256": "ab" * 32,
                           "options": {"Hash": 16, "Threads": 1}, "nodes": 1000, "multipv": 10}})]
for i in range(npos):
    fen = FENS[i % len(FENS)]
    mv = (WHITE if " w " in fen else BLACK)[:]
    rng.shuffle(mv)
    cps = sorted(rng.sample(range(-80, 80), 11), reverse=True)
    pid = "p%05d" % (i + 1)
    pos.append((pid, mv[:10], cps))
    lines.append(canon({"position_id": pid, "fen": fen, "split": "explore", "opening": "o%04d" % (i // 2 + 1),
                        "stratum": {"phase": ["opening", "middlegame", "endgame"][i % 3], "kind": "quiet",
                                    "to_move": "white" if " w " in fen else "black"},
                        "candidates": [{"uci": u, "cp": c, "pv": [u]} for u, c in zip(mv[:10], cps)],
                        "evals": {mv[10]: cps[10]}}))
man = "".join(l + "\n" for l in lines)
open(out + "/candidates.jsonl", "w").write(man)
FAMS = ["f%d" % i for i in range(1, 7)]
open(out + "/spec.json", "w").write(canon({
    "kind": "cohort.spec/1", "name": "bench", "as_of": "2026-09-01T00:00:00Z", "families": FAMS,
    "conditions": ["none", "top2", "top5", "top10"], "black_penalty": 35,
    "ladder": {"block_games": 10, "start": 1400, "max": 2800, "promote": [[0.9, 400]],
               "stop_below": 0.05, "max_repeats": 9}, "protocol": {"estimator": "davidson-joint/1"}}))
T = ('{"budget":"%s","chosen":"%s","condition":"%s","context":"%s","decision_id":"d%07d",'
     '"failure":%s,"family":"%s","latency_ms":%d,"model":{"requested":"%s","returned":"%s"},'
     '"order_seed":%d,"position_id":"%s",%s"replication":"%s","retries":%d,"shown":[%s],"status":"ok",'
     '"tokens":{"cached":0,"input":%d,"output":%d,"reasoning":%d},"ts":"2026-08-01T10:00:00Z"}\n')
FAIL = ["null", '"state"', '"tactic"', '"value"', '"plan"']
q = lambda l: ",".join('"%s"' % u for u in l)
n = 0
with open(out + "/decisions.jsonl", "w") as f:
    for fi, fam in enumerate(FAMS):
        for rep in ("r1", "r2"):
            buf = []
            for pid, c, cps in pos:
                for bi, budget in enumerate(("low", "medium", "high")):
                    for ctx in ("fresh", "history"):
                        def d(cond, seed, shown, chosen, prop=None):
                            global n
                            n += 1
                            buf.append(T % (budget, chosen, cond, ctx, n, FAIL[rng.randrange(5)], fam,
                                            800 + 100 * fi + rng.randrange(300) + 200 * bi, fam, fam, seed, pid,
                                            '"proposed":[%s],' % q(prop) if prop else "", rep, rng.randrange(2),
                                            q(shown), 100 + rng.randrange(50), 20 + rng.randrange(20),
                                            100 * (fi + 1) * (bi + 1) + rng.randrange(50)))
                        d("none", 0, [], c[rng.randrange(1 + fi)])
                        for k in (2, 5, 10):
                            for s in range(1, 6):
                                sh = c[s % k:k] + c[:s % k]
                                d("top%d" % k, s, sh, sh[0] if rng.random() < 0.1 * fi else c[0])
                        d("top3-omit-best", 1, c[1:4], c[1 + rng.randrange(3)])
                        p = rng.sample(c[:6], 3)
                        d("propose", 0, [], p[0], p)
                        p = rng.sample(c[:6], 3)
                        d("engine-selects", 0, [], min(p, key=c.index), p)
            f.write("".join(buf))
G = ('{"anchor":{"elo":%d,"engine":"stockfish","limiter":"UCI_Elo","nodes":1000},"block":%d,"color":"%s",'
     '"condition":"%s","ended_at":"2026-08-02T11:00:00Z","family":"%s","game_id":"%s-%s-%s-%d-%d",'
     '"model":{"requested":"%s","returned":"%s"},"opening":"o%04d","plies":60,"replication":"%s",'
     '"requests":["x"],"result":"%s","started_at":"2026-08-02T10:00:00Z","status":"terminal",'
     '"termination":"checkmate","tokens":{"cached":0,"input":1000,"output":200,"reasoning":%d},'
     '"wall_s":%d,"worker_hours":0.25}\n')
with open(out + "/games.jsonl", "w") as f:
    for fi, fam in enumerate(FAMS):
        for ri, rep in enumerate(("r1", "r2")):
            for cond in ("none", "top2", "top5", "top10"):
                for b in range(4):
                    for g in range(10):
                        res = ["win", "draw", "loss"][rng.randrange(3)]
                        f.write(G % (1400 + 100 * (b % 2), 1 + b + 4 * ri, "white" if g % 2 else "black", cond, fam,
                                     fam, rep, cond, b, g, fam, fam, 1 + rng.randrange(npos // 2), rep, res,
                                     500 + rng.randrange(500), 600 + rng.randrange(100)))
ALL = ["unaided", "r_k", "delta_r", "k_star", "p_k_star", "overload_2_10", "slope", "curvature",
       "reversals", "auc", "recall_unaided", "coverage", "oracle_regret", "chosen_rank", "value_loss",
       "omit_best", "engine_selects", "calibration", "order_change", "regret_var_seeds",
       "illegal_rate", "tool_failure_rate", "blunder_hazard", "history_vs_fresh", "failure_labels",
       "tokens_per_decision", "latency_per_decision", "tokens_per_game", "wall_per_game",
       "worker_hours_per_game", "gain_per_1k_tokens", "width_x_budget", "retries_per_legal", "pareto"]
open(out + "/prereg.json", "w").write(canon({
    "kind": "cohort.prereg/1", "name": "bench", "registered_at": "2026-07-25T00:00:00Z",
    "candidates": "sha256:" + hashlib.sha256(man.encode()).hexdigest(), "widths": [0, 2, 5, 10],
    "allocation": {"splits": {"explore": npos}, "order_seeds": 5, "budgets": ["low", "medium", "high"]},
    "exclusions": ["family", "after_cut", "provider_error", "invalid"], "features": ALL,
    "distance": {"lambda": 0.1, "population": "panel"},
    "bootstrap": {"replicates": reps, "unit": "opening", "seed": 1}, "blunder_cp": 100, "predictions": []}))
print(n)
