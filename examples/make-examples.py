#!/usr/bin/env python3
"""Write the two example cohorts of examples/ (Luna pilot, DeepSeek snapshot).

Run by hand from the repository root:  python3 examples/make-examples.py
It rewrites every data file under examples/luna and examples/deepseek byte
for byte (fixed random seeds, no clock, no locale, standard library only)
and checks the figures the examples must reproduce before writing anything.
"""

import csv
import hashlib
import io
import json
import os
import random
import sys
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))

LADDER = {"block_games": 10, "start": 1320, "max": 3190,
          "promote": [[0.9, 400], [0.8, 300], [0.65, 200]],
          "stop_below": 0.35, "max_repeats": 1}
CONDITIONS = ["none", "top10", "top5", "top3", "top2"]
ENGINE_SHA = hashlib.sha256(b"stockfish-18 linux x86-64-avx2 release").hexdigest()

# Luna pilot: (anchor, w, d, l) per 10-game block, in ladder order.
LUNA_BLOCKS = {
    "none": [(1320, 0, 5, 5)],
    "top10": [(1320, 2, 2, 6)],
    "top5": [(1320, 6, 3, 1), (1520, 6, 2, 2), (1720, 5, 2, 3),
             (1720, 5, 3, 2), (1920, 3, 2, 5), (1920, 3, 2, 5)],
    "top3": [(1320, 10, 0, 0), (1720, 6, 3, 1), (1920, 6, 3, 1),
             (2120, 6, 3, 1), (2320, 4, 4, 2), (2320, 5, 3, 2),
             (2520, 3, 3, 4), (2520, 3, 3, 4)],
    "top2": [(1320, 10, 0, 0), (1720, 9, 1, 0), (2120, 7, 3, 0),
             (2420, 10, 0, 0), (2820, 2, 4, 4), (2820, 3, 3, 4)],
}
LUNA_TOTALS = {"none": (0, 5, 5), "top10": (2, 2, 6), "top5": (28, 14, 18),
               "top3": (43, 22, 15), "top2": (41, 11, 8)}
# Mean recorded tokens per game (input + output + reasoning): top2 lowest.
LUNA_TOKENS = {"none": 1010000, "top10": 1190000, "top5": 870000,
               "top3": 650000, "top2": 470000}

# DeepSeek snapshot: terminal games per (condition, block): (anchor, w, d, l).
DS_BLOCKS = {
    "none": [(1320, 0, 2, 8)],
    "top10": [(1320, 3, 0, 5)],
    "top5": [(1320, 3, 1, 2)],
    "top3": [(1320, 6, 0, 2)],
    "top2": [(1320, 10, 0, 0), (1720, 0, 0, 1)],
}
DS_TOKENS_PER_GAME = {"none": 759723, "top10": 610880, "top5": 924349,
                      "top3": 368829, "top2": 313651}
DS_TOTAL_TOKENS = 24431157
DS_WORKER_MICROHOURS = 157550000          # 157.55 h in 1e-6 h units
DS_CUT = "2026-08-04T21:10:33Z"
DS_MODEL = "deepseek-reasoner"
LUNA_MODEL = "luna-2026-06-30"

# DeepSeek list prices in USD per token (cache miss, cache hit, output).
PRICE_IN, PRICE_CACHED, PRICE_OUT = 0.28e-6, 0.028e-6, 0.42e-6


# ---------------------------------------------------------------- helpers

def parse_ts(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


def fmt_s(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def fmt_ms(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)


def num_ms(ms):
    """Milliseconds as a JSON number of seconds (integer when whole)."""
    return ms // 1000 if ms % 1000 == 0 else ms / 1000


def split_int(total, weights, minimum=0):
    """Split integer total into len(weights) integers >= minimum, in
    proportion to weights (largest remainder, ties to the lower index)."""
    n = len(weights)
    rest = total - minimum * n
    assert rest >= 0, (total, n, minimum)
    iw = [max(1, int(w * 1e6)) for w in weights]
    s = sum(iw)
    parts = [rest * w // s for w in iw]
    rems = sorted(range(n), key=lambda i: (-(rest * iw[i] % s), i))
    for i in rems[:rest - sum(parts)]:
        parts[i] += 1
    return [p + minimum for p in parts]


def dump_jsonl(path, records):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for r in records:
            f.write(json.dumps(r, sort_keys=True, separators=(",", ":"),
                               ensure_ascii=False) + "\n")


def dump_json(path, doc):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def dump_spec(path, doc):
    """One top-level key per line, nested values on that line, except the
    protocol's fields, one per line."""
    def one(v):
        return json.dumps(v, ensure_ascii=False, separators=(", ", ": "))
    lines = []
    for k, v in doc.items():
        if k == "protocol":
            inner = ",\n".join("    %s: %s" % (one(a), one(b)) for a, b in v.items())
            lines.append("  %s: {\n%s\n  }" % (one(k), inner))
        else:
            lines.append("  %s: %s" % (one(k), one(v)))
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("{\n" + ",\n".join(lines) + "\n}\n")


def write_text(path, text, newline="\n"):
    with open(path, "w", encoding="utf-8", newline=newline) as f:
        f.write(text)


# ---------------------------------------------------------- game details

def termination_for(rng, result, draw_admin_p):
    """A termination word and a ply count consistent with the result.
    The model plays Black: its own moves are the even plies."""
    if result == "draw":
        if rng.random() < draw_admin_p:
            return "administrative_draw_200_plies", 200
        word = rng.choice(["threefold_repetition", "threefold_repetition",
                           "stalemate", "fifty_move_rule",
                           "insufficient_material"])
        lo, hi = {"threefold_repetition": (38, 150), "stalemate": (90, 190),
                  "fifty_move_rule": (120, 196),
                  "insufficient_material": (100, 190)}[word]
        return word, rng.randint(lo, hi)
    word = "checkmate" if rng.random() < 0.8 else "resignation"
    if result == "win":
        plies = rng.randint(26, 80) * 2          # Black delivers the last move
    else:
        plies = rng.randint(15, 70) * 2 + 1      # White's move ends it
    return word, plies


def make_requests(rng, game_id, plies, recorded, max_requests=None):
    """Per-request token classes for one game whose recorded tokens
    (input + output + reasoning) total `recorded`.  Returns a list of dicts
    with id, input, output, reasoning, cached, gen (output + reasoning)."""
    moves = max(plies // 2, 1)
    n = moves + sum(1 for _ in range(moves) if rng.random() < 0.18)
    if max_requests is not None:
        n = max(20, min(n, max_requests))
    r_frac = rng.uniform(0.20, 0.30)
    o_frac = rng.uniform(0.04, 0.07)
    reasoning = int(recorded * r_frac)
    output = int(recorded * o_frac)
    inp = recorded - reasoning - output
    w_in = [(1.0 + 1.6 * i / n) * rng.uniform(0.9, 1.1) for i in range(n)]
    w_out = [rng.lognormvariate(0, 0.35) for _ in range(n)]
    w_rea = [rng.lognormvariate(0, 0.55) for _ in range(n)]
    ins = split_int(inp, w_in, 1)
    outs = split_int(output, w_out, 1)
    reas = split_int(reasoning, w_rea, 1)
    reqs = []
    for i in range(n):
        if i == 0:
            c = min(ins[0], 1800) * rng.uniform(0.5, 0.9)
        else:
            c = min(ins[i - 1], ins[i]) * rng.uniform(0.80, 0.98)
        cached = int(c) // 64 * 64
        assert cached <= ins[i]
        reqs.append({"id": "%s-r%03d" % (game_id, i + 1), "input": ins[i],
                     "output": outs[i], "reasoning": reas[i], "cached": cached,
                     "gen": outs[i] + reas[i]})
    return reqs


def request_times(rng, reqs, wall_ms, tok_per_s):
    """Latencies and send offsets (ms from game start) inside wall_ms."""
    n = len(reqs)
    raw = [600 + r["gen"] * 1000 / tok_per_s * rng.uniform(0.85, 1.2)
           + r["input"] * 0.01 for r in reqs]
    target = int(wall_ms * rng.uniform(0.55, 0.8))
    lat = split_int(target, raw, 300)
    gaps = split_int(wall_ms - sum(lat), [rng.uniform(0.3, 1.7)
                                         for _ in range(n + 1)], 200)
    t, offs = 0, []
    for i in range(n):
        t += gaps[i]
        offs.append(t)
        t += lat[i]
    assert t + gaps[n] == wall_ms
    return lat, offs


def schedule(games, workers, first_start, rng, gap_s=(40, 600)):
    """Assign start times: each game goes to the earliest free worker; a
    block's first game waits until the previous block has ended (the ladder
    needs its score).  games: list of dicts with cond, block, wall_ms."""
    free = [first_start] * workers
    block_end, prev_block, last_start = first_start, None, None
    for g in games:
        if prev_block is not None and g["block"] != prev_block:
            free = [max(f, block_end) for f in free]
        k = min(range(workers), key=lambda i: (free[i], i))
        start = free[k] + timedelta(seconds=rng.randint(*gap_s))
        start = start.replace(microsecond=0)
        if last_start is not None:
            start = max(start, last_start + timedelta(seconds=1))
        last_start = start
        g["start"] = start
        end = start + timedelta(milliseconds=g["wall_ms"])
        g["end"] = end
        free[k] = end
        block_end = max(block_end, end) if g["block"] == prev_block else end
        prev_block = g["block"]


def anchor(elo):
    return {"engine": "stockfish-18", "elo": elo, "limiter": "UCI_LimitStrength",
            "time_s": 0.1, "binary_sha256": ENGINE_SHA}


def end_second(t):
    """Round an end time up to the whole second."""
    return t.replace(microsecond=0) + (timedelta(seconds=1) if t.microsecond else timedelta(0))


def record(g, family, model):
    r = {"game_id": g["game_id"], "family": family,
         "model": {"requested": model, "returned": model},
         "condition": g["cond"], "color": "black", "anchor": anchor(g["anchor"]),
         "opening": "startpos", "block": g["block"], "status": g["status"],
         "plies": g["plies"], "started_at": fmt_s(g["start"]),
         "tokens": {k: sum(q[k] for q in g["reqs"])
                    for k in ("input", "output", "reasoning", "cached")},
         "wall_s": num_ms(g["wall_ms"]), "worker_hours": g["wh_u"] / 1e6,
         "requests": [q["id"] for q in g["reqs"]]}
    if g["status"] == "terminal":
        r["result"] = g["result"]
        r["termination"] = g["termination"]
        r["ended_at"] = fmt_s(end_second(g["end"]))
    return r


def microhours(wall_ms):
    return (wall_ms * 10 + 18) // 36       # round(wall_ms / 3.6)


def ladder_state(blocks):
    """Replay the spec's ladder over (anchor, games, w, d) blocks in order:
    ("terminal", None) or ("active", next anchor).  Asserts that every
    block was played at the anchor the policy chose."""
    expect, repeats = LADDER["start"], 0
    for i, (elo, games, w, d) in enumerate(blocks):
        assert elo == expect, (i + 1, elo, expect)
        if games < LADDER["block_games"]:
            assert i == len(blocks) - 1
            return "active", elo
        score = (w + d / 2) / games
        up = [step for at, step in LADDER["promote"] if score >= at]
        if up:
            if elo >= LADDER["max"]:
                return "terminal", None
            expect, repeats = min(elo + up[0], LADDER["max"]), 0
        elif score < LADDER["stop_below"] or repeats >= LADDER["max_repeats"]:
            assert i == len(blocks) - 1
            return "terminal", None
        else:
            repeats += 1
    return "active", expect


def results_for(rng, w, d, l):
    res = ["win"] * w + ["draw"] * d + ["loss"] * l
    rng.shuffle(res)
    return res


# ---------------------------------------------------------------- Luna

def build_luna():
    rng = random.Random(20260720)
    as_of = parse_ts("2026-07-20T00:00:00Z")
    games_by_cond = {}
    for ci, cond in enumerate(CONDITIONS):
        games = []
        for b, (elo, w, d, l) in enumerate(LUNA_BLOCKS[cond], 1):
            admin_p = min(0.75, max(0.1, (elo - 1300) / 1800))
            for gi, res in enumerate(results_for(rng, w, d, l), 1):
                word, plies = termination_for(rng, res, admin_p)
                games.append({"game_id": "luna-%s-b%02d-g%02d" % (cond, b, gi),
                              "cond": cond, "block": b, "anchor": elo,
                              "status": "terminal", "result": res,
                              "termination": word, "plies": plies})
        mean_plies = sum(g["plies"] for g in games) / len(games)
        for g in games:
            rec = int(LUNA_TOKENS[cond] * (g["plies"] / mean_plies) ** 0.7
                      * rng.lognormvariate(0, 0.12))
            g["reqs"] = make_requests(rng, g["game_id"], g["plies"], rec)
            lat_s = sum(600 / 1000 + q["gen"] / 55 for q in g["reqs"])
            wall_ms = int(lat_s * 1000 / rng.uniform(0.55, 0.8))
            g["wall_ms"] = wall_ms
            g["wh_u"] = microhours(wall_ms)
        start = parse_ts("2026-06-22T08:00:00Z") + timedelta(minutes=17 * ci)
        schedule(games, 1, start, rng)
        games_by_cond[cond] = games
    allg = [g for c in CONDITIONS for g in games_by_cond[c]]
    recs = [record(g, "luna", LUNA_MODEL) for g in allg]
    recs.sort(key=lambda r: (r["started_at"], r["game_id"]))

    # checks
    assert len(recs) == 220
    assert len({r["game_id"] for r in recs}) == 220
    for cond in CONDITIONS:
        rs = [r for r in recs if r["condition"] == cond]
        wdl = tuple(sum(r["result"] == x for r in rs) for x in ("win", "draw", "loss"))
        assert wdl == LUNA_TOTALS[cond], (cond, wdl)
        for b, (elo, w, d, l) in enumerate(LUNA_BLOCKS[cond], 1):
            br = [r for r in rs if r["block"] == b]
            assert len(br) == 10 and all(r["anchor"]["elo"] == elo for r in br)
            assert tuple(sum(r["result"] == x for r in br)
                         for x in ("win", "draw", "loss")) == (w, d, l)
    per_game = {}
    for cond in CONDITIONS:
        rs = [r for r in recs if r["condition"] == cond]
        per_game[cond] = sum(r["tokens"]["input"] + r["tokens"]["output"]
                             + r["tokens"]["reasoning"] for r in rs) / len(rs)
    assert min(per_game, key=per_game.get) == "top2", per_game
    for cond in CONDITIONS:
        st = ladder_state([(elo, w + d + l, w, d)
                           for elo, w, d, l in LUNA_BLOCKS[cond]])
        assert st == ("terminal", None), (cond, st)
    check_games(recs, as_of)
    return recs, per_game


def check_games(recs, as_of):
    """Field-level consistency of terminal and live records."""
    for r in recs:
        t = r["tokens"]
        assert t["cached"] <= t["input"]
        assert r["worker_hours"] == microhours(round(r["wall_s"] * 1000)) / 1e6
        if r["status"] == "terminal":
            res, word, p = r["result"], r["termination"], r["plies"]
            if word == "administrative_draw_200_plies":
                assert res == "draw" and p == 200
            elif word in ("checkmate", "resignation"):
                assert res != "draw" and p % 2 == (0 if res == "win" else 1)
            else:
                assert res == "draw" and p < 200
            st, en = parse_ts(r["started_at"]), parse_ts(r["ended_at"])
            assert en - st >= timedelta(seconds=r["wall_s"])
            assert en - st < timedelta(seconds=r["wall_s"] + 1)
    by = {}
    for r in recs:
        by.setdefault(r["condition"], []).append(r)
    for rs in by.values():
        rs = sorted(rs, key=lambda r: (r["block"], r["game_id"]))
        starts = [r["started_at"] for r in rs]
        assert starts == sorted(starts) and len(set(starts)) == len(starts)


# ---------------------------------------------------------------- DeepSeek

def build_deepseek():
    rng = random.Random(20260804)
    cut = parse_ts(DS_CUT)
    games_by_cond = {}
    clean = []
    for cond in CONDITIONS:
        games = []
        for b, (elo, w, d, l) in enumerate(DS_BLOCKS[cond], 1):
            for gi, res in enumerate(results_for(rng, w, d, l), 1):
                word, plies = termination_for(rng, res, 0.0)
                # 20-45 requests per game: keep plies within 40..89
                while not 40 <= plies <= 89:
                    word, plies = termination_for(rng, res, 0.0)
                games.append({"game_id": "deepseek-%s-b%02d-g%02d" % (cond, b, gi),
                              "cond": cond, "block": b, "anchor": elo,
                              "status": "terminal", "result": res,
                              "termination": word, "plies": plies})
        weights = [g["plies"] ** 0.6 * rng.lognormvariate(0, 0.15) for g in games]
        totals = split_int(DS_TOKENS_PER_GAME[cond] * len(games), weights, 1)
        for g, tot in zip(games, totals):
            g["reqs"] = make_requests(rng, g["game_id"], g["plies"], tot, 45)
        for g in games:
            g["clean"] = True
        games_by_cond[cond] = games
        clean.extend(games)

    # Worker-hours: 157.55 h split over the 43 clean games in micro-hours,
    # roughly in proportion to tokens; wall_s is whole milliseconds with
    # round(wall_ms / 3.6) == micro-hours.
    gtok = [sum(q["input"] + q["gen"] for q in g["reqs"]) for g in clean]
    wh = split_int(DS_WORKER_MICROHOURS,
                   [t * rng.uniform(0.85, 1.15) for t in gtok], 1)
    for g, u in zip(clean, wh):
        g["wh_u"] = u
        g["wall_ms"] = (u * 36 + 5) // 10          # round(u * 3.6)
        assert microhours(g["wall_ms"]) == u
        tok_s = rng.uniform(24, 34)
        g["lat"], g["offs"] = request_times(rng, g["reqs"], g["wall_ms"], tok_s)

    # Live games (one in each active suite's current block, requests so far)
    # and one top10 game started after the cut join the suites' schedules.
    live_spec = {"top10": (1, 9, 1320), "top5": (1, 7, 1320),
                 "top3": (1, 9, 1320), "top2": (2, 2, 1720)}
    live = []
    for cond, (b, gi, elo) in live_spec.items():
        g = {"game_id": "deepseek-%s-b%02d-g%02d" % (cond, b, gi), "cond": cond,
             "block": b, "anchor": elo, "status": "live", "wall_ms": 36000000}
        games_by_cond[cond].append(g)
        live.append(g)
    after = {"game_id": "deepseek-top10-b01-g10", "cond": "top10", "block": 1,
             "anchor": 1320, "status": "terminal", "result": "loss",
             "termination": "checkmate", "plies": 67, "wall_ms": 36000000}
    games_by_cond["top10"].append(after)

    # Schedule: two workers per suite.  Shift each suite so its last clean
    # game ends at a chosen time before the cut.
    last_end_before_cut = {"none": timedelta(hours=9, minutes=41),
                           "top10": timedelta(minutes=9, seconds=12),
                           "top5": timedelta(minutes=47),
                           "top3": timedelta(hours=1, minutes=18),
                           "top2": timedelta(minutes=26)}
    base = parse_ts("2026-08-01T00:00:00Z")
    for cond in CONDITIONS:
        games = games_by_cond[cond]
        srng = random.Random("schedule-" + cond)
        schedule(games, 2, base, srng, (40, 240))
        last = max(g["end"] for g in games if g.get("clean"))
        shift = (cut - last_end_before_cut[cond]) - last
        shift = timedelta(seconds=int(shift.total_seconds()))
        for g in games:
            g["start"] += shift
            g["end"] += shift

    for g in live:
        cond = g["cond"]
        assert g["start"] < cut
        elapsed_ms = int((cut - g["start"]).total_seconds() * 1000) - rng.randint(20000, 90000)
        n_so_far = min(44, max(3, int(elapsed_ms / 1000 / 290)))
        g["plies"] = 2 * n_so_far - rng.randint(0, 1)
        per_req = DS_TOKENS_PER_GAME[cond] / 45
        reqs = make_requests(rng, g["game_id"], 2 * n_so_far,
                             int(per_req * n_so_far * rng.uniform(0.8, 1.1)))
        g["reqs"] = reqs[:n_so_far]
        # ledger tokens are the sums of the requests so far; wall time so far
        g["wall_ms"] = elapsed_ms
        g["wh_u"] = microhours(elapsed_ms)
        g["lat"], g["offs"] = request_times(rng, g["reqs"], elapsed_ms, 29)

    # The after-cut game starts on the worker that ended the last clean top10
    # game, shortly after the cut.
    last10 = max(g["end"] for g in games_by_cond["top10"] if g.get("clean"))
    after["start"] = cut + timedelta(minutes=8, seconds=41)
    assert after["start"] - last10 < timedelta(minutes=20)
    after["reqs"] = make_requests(rng, after["game_id"], 67, 598211, 45)
    after["wh_u"] = 3511807
    after["wall_ms"] = (after["wh_u"] * 36 + 5) // 10
    after["end"] = after["start"] + timedelta(milliseconds=after["wall_ms"])
    after["lat"], after["offs"] = request_times(rng, after["reqs"], after["wall_ms"], 28)

    allg = clean + live + [after]
    recs = [record(g, "deepseek", DS_MODEL) for g in allg]
    recs.sort(key=lambda r: (r["started_at"], r["game_id"]))

    requests = []
    for g in allg:
        for q, lat, off in zip(g["reqs"], g["lat"], g["offs"]):
            ts = g["start"] + timedelta(milliseconds=off)
            requests.append({"request_id": q["id"], "game_id": g["game_id"],
                             "ts": fmt_ms(ts),
                             "model": {"requested": DS_MODEL, "returned": DS_MODEL},
                             "tokens": {"input": q["input"], "output": q["output"],
                                        "reasoning": q["reasoning"],
                                        "cached": q["cached"]},
                             "latency_ms": lat, "attempt": 1, "status": "ok"})
    requests.sort(key=lambda r: (r["ts"], r["request_id"]))

    check_deepseek(recs, requests, cut)
    check_games(recs, cut)
    return recs, requests


def check_deepseek(recs, requests, cut):
    ids = [r["game_id"] for r in recs]
    assert len(ids) == len(set(ids)) == 48
    rids = [q["request_id"] for q in requests]
    assert len(rids) == len(set(rids))
    clean = [r for r in recs if r["status"] == "terminal"
             and parse_ts(r["ended_at"]) <= cut and parse_ts(r["started_at"]) <= cut]
    assert len(clean) == 43
    live = [r for r in recs if r["status"] == "live"]
    assert sorted(r["condition"] for r in live) == ["top10", "top2", "top3", "top5"]
    for r in live:
        assert parse_ts(r["started_at"]) < cut and "ended_at" not in r
        assert "result" not in r
    after = [r for r in recs if parse_ts(r["started_at"]) > cut]
    assert [r["game_id"] for r in after] == ["deepseek-top10-b01-g10"]
    assert all(r["status"] == "terminal" for r in after)
    total = 0
    for cond in CONDITIONS:
        rs = [r for r in clean if r["condition"] == cond]
        exp = DS_BLOCKS[cond]
        assert len(rs) == sum(w + d + l for _, w, d, l in exp)
        for b, (elo, w, d, l) in enumerate(exp, 1):
            br = [r for r in rs if r["block"] == b]
            assert all(r["anchor"]["elo"] == elo for r in br)
            assert tuple(sum(r["result"] == x for r in br)
                         for x in ("win", "draw", "loss")) == (w, d, l)
        s = sum(r["tokens"]["input"] + r["tokens"]["output"]
                + r["tokens"]["reasoning"] for r in rs)
        assert s == DS_TOKENS_PER_GAME[cond] * len(rs), cond
        total += s
    assert total == DS_TOTAL_TOKENS
    states = {c: ladder_state([(elo, w + d + l, w, d)
                               for elo, w, d, l in DS_BLOCKS[c]])
              for c in CONDITIONS}
    assert states == {"none": ("terminal", None), "top10": ("active", 1320),
                      "top5": ("active", 1320), "top3": ("active", 1320),
                      "top2": ("active", 1720)}, states
    assert sum(round(r["worker_hours"] * 1e6) for r in clean) == DS_WORKER_MICROHOURS
    assert round(sum(r["worker_hours"] for r in clean), 6) == 157.55
    by_game = {}
    for q in requests:
        assert q["attempt"] == 1 and q["status"] == "ok"
        assert q["model"]["requested"] == q["model"]["returned"]
        assert q["tokens"]["cached"] <= q["tokens"]["input"]
        by_game.setdefault(q["game_id"], []).append(q)
    assert set(by_game) == set(ids)
    for r in recs:
        qs = by_game[r["game_id"]]
        assert sorted(r["requests"]) == sorted(q["request_id"] for q in qs)
        assert r["requests"] == sorted(r["requests"])
        for k in ("input", "output", "reasoning", "cached"):
            assert r["tokens"][k] == sum(q["tokens"][k] for q in qs), (r["game_id"], k)
        assert sum(q["latency_ms"] for q in qs) <= r["wall_s"] * 1000
        st = parse_ts(r["started_at"])
        for q in qs:
            ts = datetime.strptime(q["ts"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
            assert ts >= st
            if r["status"] == "terminal":
                assert ts <= parse_ts(r["ended_at"])
            if r["status"] == "live":
                assert ts + timedelta(milliseconds=q["latency_ms"]) <= cut
            assert (ts <= cut) == (st <= cut)
        if 20 > len(qs) or len(qs) > 45:
            assert r["status"] == "live", (r["game_id"], len(qs))


# ------------------------------------------------------------- billing

def billing_rows(requests):
    rows = []
    for q in requests:
        t = q["tokens"]
        cost = ((t["input"] - t["cached"]) * PRICE_IN + t["cached"] * PRICE_CACHED
                + (t["output"] + t["reasoning"]) * PRICE_OUT)
        rows.append({"request_id": q["request_id"], "ts": q["ts"],
                     "model": q["model"]["returned"],
                     "input_tokens": t["input"], "output_tokens": t["output"],
                     "reasoning_tokens": t["reasoning"],
                     "cached_tokens": t["cached"], "cost": round(cost, 6)})
    return rows


BILLING_COLS = ["request_id", "ts", "model", "input_tokens", "output_tokens",
                "reasoning_tokens", "cached_tokens", "cost"]
PROVIDER_MAP = {"request_id": "Request ID", "ts": "Timestamp (UTC)",
                "model": "Model", "input_tokens": "Prompt tokens",
                "output_tokens": "Completion tokens",
                "reasoning_tokens": "Reasoning tokens",
                "cached_tokens": "Cache hit tokens", "cost": "Cost (USD)"}


def billing_csv(rows):
    s = io.StringIO()
    w = csv.writer(s, lineterminator="\n")
    w.writerow(BILLING_COLS)
    for r in rows:
        w.writerow([r[c] if c != "cost" else "%.6f" % r[c] for c in BILLING_COLS])
    return s.getvalue()


def provider_csv(rows):
    """The provider's own export: its column names, every field quoted,
    CRLF line ends, a UTF-8 byte-order mark, an extra free-text column
    (with commas, quotes and the odd line break) the map does not name."""
    s = io.StringIO()
    w = csv.writer(s, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
    cols = [PROVIDER_MAP[c] for c in BILLING_COLS]
    w.writerow(cols[:3] + ["Description"] + cols[3:])
    for i, r in enumerate(rows):
        if r["cached_tokens"] == 0 or i % 97 == 5:
            desc = 'chat completion, thinking mode\n(cache miss)'
        elif r["request_id"].endswith("-r001"):
            desc = 'chat completion, thinking mode; tools "get_legal_moves", "make_move"'
        else:
            desc = "chat completion, thinking mode"
        ts = r["ts"]
        w.writerow([r["request_id"], ts, r["model"], desc,
                    r["input_tokens"], r["output_tokens"], r["reasoning_tokens"],
                    r["cached_tokens"], "%.6f" % r["cost"]])
    return "\ufeff" + s.getvalue()


def check_billing(requests, rows, text_csv, text_provider):
    assert [r["request_id"] for r in rows] == [q["request_id"] for q in requests]
    for q, r in zip(requests, rows):
        t = q["tokens"]
        assert (r["input_tokens"], r["output_tokens"], r["reasoning_tokens"],
                r["cached_tokens"]) == (t["input"], t["output"], t["reasoning"],
                                        t["cached"])
    back = list(csv.DictReader(io.StringIO(text_csv)))
    assert len(back) == len(rows)
    for b, r in zip(back, rows):
        assert all(b[c] == (str(r[c]) if c != "cost" else "%.6f" % r[c])
                   for c in BILLING_COLS)
    assert text_provider.startswith("\ufeff")
    prov = list(csv.DictReader(io.StringIO(text_provider[1:], newline="")))
    assert len(prov) == len(rows)
    for p, r in zip(prov, rows):
        for ours, theirs in PROVIDER_MAP.items():
            v = r[ours] if ours != "cost" else "%.6f" % r[ours]
            assert p[theirs] == str(v), (ours, p[theirs], v)


# ---------------------------------------------------------------- specs

LUNA_PROTOCOL = {
    "model_snapshot": LUNA_MODEL + " (requested and returned on every request)",
    "harness": "chess agent harness with get_legal_moves and make_move tools; "
               "assisted variants saw randomized, unranked UCI and SAN "
               "candidates from a 0.1 s Stockfish 18 MultiPV search",
    "opponent": "Stockfish 18, UCI_LimitStrength, 0.1 s per move",
    "openings": "initial position",
    "inference": "reasoning effort high",
    "stopping": "200 plies: administrative draw",
    "estimator": "davidson-joint/1",
}

DS_PROTOCOL = dict(LUNA_PROTOCOL)
DS_PROTOCOL.update({
    "model_snapshot": DS_MODEL + " (requested and returned on every request)",
    "inference": "thinking mode, default reasoning budget",
})


def spec(name, as_of, family, protocol):
    return {"kind": "cohort.spec/1", "name": name, "as_of": as_of,
            "families": [family], "conditions": list(CONDITIONS),
            "color": "black", "black_penalty": 35, "ladder": LADDER,
            "protocol": protocol}


SYSTEM_PROMPT = """\
You are playing a game of chess as Black against a chess engine.

Each turn you receive the current position as FEN, the moves played so far
in SAN, and, in assisted variants, a short unranked list of candidate moves
in UCI and SAN. Candidates are suggestions: you may play any legal move.

Use the tools to act:
- get_legal_moves returns every legal move in the current position.
- make_move plays one move, given in UCI notation (for example e7e5).

Think about threats, captures and king safety before you move. Play exactly
one move per turn by calling make_move. An illegal move is rejected and you
may try again. The game ends by checkmate, stalemate, repetition, the
fifty-move rule, insufficient material, or after 200 plies as a draw.
"""

TOOLS = [
    {"type": "function",
     "function": {
         "name": "get_legal_moves",
         "description": "List every legal move in the current position.",
         "parameters": {"type": "object", "properties": {},
                        "additionalProperties": False}}},
    {"type": "function",
     "function": {
         "name": "make_move",
         "description": "Play one legal move for Black in the current position.",
         "parameters": {
             "type": "object",
             "properties": {
                 "move": {"type": "string",
                          "description": "the move in UCI notation, e.g. e7e5 or e7e8q",
                          "pattern": "^[a-h][1-8][a-h][1-8][qrbn]?$"}},
             "required": ["move"],
             "additionalProperties": False}}},
]


# ------------------------------------------------------- paired positions

# Five positions for `cohort candidates build`: the start, perft's
# Kiwipete and rook endgame, a back-rank mate in one, Black after 1. e4.
PAIRED = [
    ("p01-start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     "explore", "start", "opening", "quiet"),
    ("p02-kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
     "explore", "perft-2", "middlegame", "ambiguous"),
    ("p03-rook-endgame", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
     "confirm", "perft-3", "endgame", "tactical"),
    ("p04-after-e4", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
     "confirm", "start", "opening", "quiet"),
    ("p05-back-rank", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
     "heldout", "mates", "endgame", "tactical"),
]


def write_paired(folder):
    """positions.jsonl and the same positions as EPD with cohort's opcodes."""
    jl, epd = [], ["# The same five positions as positions.jsonl, as EPD with cohort's opcodes.\n"]
    for pid, fen, split, opening, phase, kind in PAIRED:
        side = "white" if fen.split()[1] == "w" else "black"
        jl.append(json.dumps({"position_id": pid, "fen": fen, "split": split,
                              "opening": opening, "stratum": {"phase": phase, "kind": kind,
                                                              "to_move": side}}) + "\n")
        epd.append('%s id "%s"; split %s; opening "%s"; phase %s; kind %s;\n'
                   % (" ".join(fen.split()[:4]), pid, split, opening, phase, kind))
    write_text(os.path.join(folder, "positions.jsonl"), "".join(jl))
    write_text(os.path.join(folder, "positions.epd"), "".join(epd))


def main():
    luna, luna_tokens = build_luna()
    ds, ds_requests = build_deepseek()
    rows = billing_rows(ds_requests)
    text_csv = billing_csv(rows)
    text_provider = provider_csv(rows)
    check_billing(ds_requests, rows, text_csv, text_provider)

    ld = os.path.join(HERE, "luna")
    dd = os.path.join(HERE, "deepseek")
    os.makedirs(os.path.join(ld, "prompts"), exist_ok=True)
    os.makedirs(dd, exist_ok=True)
    dump_spec(os.path.join(ld, "spec.json"),
              spec("luna-pilot", "2026-07-20T00:00:00Z", "luna", LUNA_PROTOCOL))
    dump_jsonl(os.path.join(ld, "ledger.jsonl"), luna)
    write_text(os.path.join(ld, "prompts", "system.txt"), SYSTEM_PROMPT)
    dump_json(os.path.join(ld, "prompts", "tools.json"), TOOLS)
    dump_spec(os.path.join(dd, "spec.json"),
              spec("deepseek-snapshot", DS_CUT, "deepseek", DS_PROTOCOL))
    dump_jsonl(os.path.join(dd, "ledger.jsonl"), ds)
    dump_jsonl(os.path.join(dd, "requests.jsonl"), ds_requests)
    write_text(os.path.join(dd, "billing.csv"), text_csv)
    dump_jsonl(os.path.join(dd, "billing.jsonl"), rows)
    write_text(os.path.join(dd, "provider-billing.csv"), text_provider, newline="")
    dump_json(os.path.join(dd, "billing-map.json"), PROVIDER_MAP)
    os.makedirs(os.path.join(HERE, "paired"), exist_ok=True)
    write_paired(os.path.join(HERE, "paired"))
    for c in CONDITIONS:
        print("luna %-5s recorded tokens per clean game %.0f" % (c, luna_tokens[c]),
              file=sys.stderr)
    print("deepseek: %d games, %d requests" % (len(ds), len(ds_requests)),
          file=sys.stderr)


if __name__ == "__main__":
    main()
