#!/usr/bin/env python3
"""realshape.py: a ledger of N games shaped like a real harness's, made by
replicating the example cohorts' records.

usage: realshape.py N OUT_SPEC OUT_LEDGER

The Luna and DeepSeek records are copied again and again, each copy a
family of its own ("luna-00017"), so every block keeps its ten games and
the ladder its rules.  Each copy is made to look like what harnesses
write rather than what bench/genledger.c writes: real engine games' UCI
move lists (from the engine-panel example, when it is there), millisecond
time stamps, `worker_hours` printed as `wall_s / 3600` with 17 significant
digits, strings with escapes and non-ASCII text, nested unknown fields,
and the keys of every record in an order of their own.  Seeded: the same
bytes on every run.
"""
import json
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = ["examples/luna", "examples/deepseek"]
NAMES = ["Łódź harness", "Zürich rig", "東京 runner", "São Paulo box", "Ærøskøbing"]


def moves_pool():
    pool = []
    for name in ("ledger-r1.jsonl", "ledger-r2.jsonl"):
        path = os.path.join(ROOT, "examples/engine-panel", name)
        if os.path.exists(path):
            for line in open(path, encoding="utf-8"):
                moves = json.loads(line).get("moves")
                if moves:
                    pool.append(moves)
    if not pool:  # the opening of a real game, when the panel is absent
        pool.append(["e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4", "g8f6", "b1c3", "a7a6"])
    return pool


def ms(ts, rng):
    # "2026-06-22T08:03:48Z" -> "2026-06-22T08:03:48.517Z"
    return ts[:-1] + ".%03dZ" % rng.randrange(1000) if ts.endswith("Z") and "." not in ts else ts


def shaped(rec, fam, copy, rng, pool):
    r = dict(rec)
    old = r["family"]
    r["family"] = fam
    r["game_id"] = r["game_id"].replace(old, fam, 1)
    if "requests" in r:
        r["requests"] = [q.replace(old, fam, 1) for q in r["requests"]]
    for k in ("started_at", "ended_at"):
        if k in r:
            r[k] = ms(r[k], rng)
    if "wall_s" in r:
        r["wall_s"] = r["wall_s"] + rng.randrange(1000) / 1000.0
        r["worker_hours"] = r["wall_s"] / 3600  # repr: up to 17 digits
    r.setdefault("moves", pool[copy % len(pool)][: r.get("plies", 40)])
    r["harness"] = harness(copy, rng)
    return own_order(r, rng)


def harness(copy, rng):
    """A nested field no reader knows: escapes, non-ASCII text, a float."""
    return {"name": NAMES[copy % len(NAMES)], "note": "run \"%d\"\n\tok \\ done" % copy,
            "cfg": {"seed": copy, "temperature": rng.random(), "tags": ["a", "b\u00e9"]}}


def own_order(r, rng):
    """r with its keys in an order of its own."""
    keys = list(r)
    rng.shuffle(keys)
    return {k: r[k] for k in keys}


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: realshape.py N OUT_SPEC OUT_LEDGER")
    n = int(sys.argv[1])
    rng = random.Random(20261202)
    pool = moves_pool()
    sets = []
    for src in SOURCES:
        spec = json.load(open(os.path.join(ROOT, src, "spec.json"), encoding="utf-8"))
        recs = [json.loads(l) for l in open(os.path.join(ROOT, src, "ledger.jsonl"), encoding="utf-8")]
        sets.append((spec, recs))
    spec = dict(sets[0][0])
    spec["name"] = "real-shaped"
    spec["families"] = []
    out = open(sys.argv[3], "w", encoding="utf-8")
    written = copy = 0
    while written < n:
        base, recs = sets[copy % len(sets)]
        fam = "%s-%05d" % (base["families"][0], copy)
        spec["families"].append(fam)
        for rec in recs:
            if written == n:
                break
            out.write(json.dumps(shaped(rec, fam, copy, rng, pool), ensure_ascii=copy % 2 == 0,
                                 separators=(",", ":") if copy % 3 else (", ", ": ")) + "\n")
            written += 1
        copy += 1
    out.close()
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(spec, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
