#!/usr/bin/env python3
"""realdec.py: a decision log of about BYTES bytes shaped like a real
harness's, made by replicating the engine panel's decisions the way
bench/realshape.py replicates games.

usage: realdec.py BYTES OUT_LOG

The panel's two replications (examples/engine-panel/decisions-r*.jsonl.gz)
are copied again and again, each copy's decision_ids its own
("c00017-r1-stockfish-..."), and each record made to look like what
harnesses write: latency_ms with 17 significant digits, a nested unknown
field with escapes and non-ASCII text, the keys of every record in an
order of their own, and realshape.py's mix of separators and escaping.
The log freezes against examples/engine-panel/spec-r1.json and
candidates.jsonl.  Seeded: the same bytes on every run.
"""
import gzip
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import realshape  # noqa: E402  (its shapes, one rule for both)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def shaped(rec, copy, rng):
    r = dict(rec)
    r["decision_id"] = "c%05d-%s" % (copy, r["decision_id"])
    r["latency_ms"] = r["latency_ms"] + rng.random() / 7  # repr: up to 17 digits
    r["harness"] = realshape.harness(copy, rng)
    return realshape.own_order(r, rng)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: realdec.py BYTES OUT_LOG")
    want = int(sys.argv[1])
    rng = random.Random(20261206)
    recs = []
    for rep in ("r1", "r2"):
        path = os.path.join(ROOT, "examples/engine-panel", "decisions-%s.jsonl.gz" % rep)
        recs += [json.loads(l) for l in gzip.open(path, "rt", encoding="utf-8")]
    written = copy = 0
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        while written < want:
            for rec in recs:
                if written >= want:
                    break
                line = json.dumps(shaped(rec, copy, rng), ensure_ascii=copy % 2 == 0,
                                  separators=(",", ":") if copy % 3 else (", ", ": ")) + "\n"
                out.write(line)
                written += len(line.encode("utf-8"))
            copy += 1


if __name__ == "__main__":
    main()
