#!/usr/bin/env python3
"""figures.py: the figures of README.md, from the data (standard library
only; generate.sh runs it after check.sh, from this folder).

  figures.py README.md

Each figure stands between a line `<!-- figures:NAME -->` and a line
`<!-- /figures -->` (or, the first time, in place of a line `@@NAME@@`)
and is written again from the files beside README.md: SIZES (the files
and their sizes), GAMES (the ledgers), DECISIONS (the decision logs, and
the paired tables of check.sh in build/engine-panel/check), CHECK (the
check's verdicts) and TIME (run-log.txt)."""
import collections
import gzip
import json
import os
import re
import sys

FAMILIES = ["stockfish", "fairy-stockfish", "glaurung"]
CONDITIONS = ["none", "top10", "top5", "top3", "top2"]
CHECK = os.path.join("..", "..", "build", "engine-panel", "check")


def lines(name):
    """The records of NAME or of NAME.gz."""
    if os.path.exists(name):
        f = open(name, encoding="utf-8")
    else:
        f = gzip.open(name + ".gz", "rt", encoding="utf-8")
    with f:
        return [json.loads(l) for l in f if l.strip()]


def sizes():
    rows = ["| file | bytes | lines |", "| --- | ---: | ---: |"]
    total = 0
    for name in sorted(os.listdir(".")):
        if not os.path.isfile(name) or name.endswith(".tmp") or name == "README.md":
            continue
        size = os.path.getsize(name)
        total += size
        opener = gzip.open if name.endswith(".gz") else open
        with opener(name, "rb") as f:
            n = sum(1 for _ in f)
        rows.append("| `%s` | %s | %s |" % (name, format(size, ","), format(n, ",")))
    rows.append("| total | %s | |" % format(total, ","))
    return "\n".join(rows)


def games():
    out = []
    for r in ("r1", "r2"):
        led = lines("ledger-%s.jsonl" % r)
        cell = collections.defaultdict(list)
        for g in led:
            cell[(g["family"], g["condition"])].append(g)
        ends = collections.Counter(g["termination"] for g in led)
        out.append("**%s**: %d games, %d blocks; endings: %s." % (
            r, len(led), len({(g["family"], g["condition"], g["block"]) for g in led}),
            ", ".join("%s %d" % kv for kv in sorted(ends.items(), key=lambda kv: -kv[1]))))
        out.append("")
        out.append("| family | condition | blocks | games | W-D-L | score | anchors |")
        out.append("| --- | --- | ---: | ---: | --- | ---: | --- |")
        for f in FAMILIES:
            for c in CONDITIONS:
                gs = cell[(f, c)]
                if not gs:
                    continue
                res = collections.Counter(g["result"] for g in gs)
                score = (res["win"] + 0.5 * res["draw"]) / len(gs)
                anchors = []
                for g in sorted(gs, key=lambda g: g["block"]):
                    if not anchors or anchors[-1] != g["anchor"]["elo"]:
                        anchors.append(g["anchor"]["elo"])
                out.append("| %s | %s | %d | %d | %d-%d-%d | %.3f | %s |" % (
                    f, c, len({g["block"] for g in gs}), len(gs), res["win"], res["draw"],
                    res["loss"], score, " ".join(map(str, anchors))))
        out.append("")
    return "\n".join(out).rstrip()


def paired_table(r):
    path = os.path.join(CHECK, r, "paired.txt")
    if os.path.exists(path):
        return open(path, encoding="utf-8").read()
    return ""


def decisions():
    out = []
    logs = {r: lines("decisions-%s.jsonl" % r) for r in ("r1", "r2")}
    out.append("| replication | family | decisions | retried | attempts | mean latency (ms) | mean nodes |")
    out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for r, log in logs.items():
        for f in FAMILIES:
            ds = [d for d in log if d["family"] == f]
            if not ds:
                continue
            out.append("| %s | %s | %d | %d | %d | %.2f | %.0f |" % (
                r, f, len(ds), sum(1 for d in ds if d["retries"]),
                sum(1 + d["retries"] for d in ds),
                sum(d["latency_ms"] for d in ds) / len(ds),
                sum(d["tokens"]["reasoning"] for d in ds) / len(ds)))
    # r1 against r2: the same (family, position, condition, budget, context,
    # seed rank) chose the same move?
    def key(d):
        seeds = {"r1": [1, 2, 3], "r2": [4, 5, 6]}[d["replication"]]
        rank = seeds.index(d["order_seed"]) if d["order_seed"] in seeds else 0
        return (d["family"], d["position_id"], d["condition"], d["budget"], d["context"], rank)
    a = {key(d): d["chosen"] for d in logs["r1"]}
    same = collections.Counter()
    n = collections.Counter()
    for d in logs["r2"]:
        k = key(d)
        if k in a:
            n[d["family"]] += 1
            same[d["family"]] += a[k] == d["chosen"]
    out.append("")
    out.append("The same move in r1 and r2 (same family, position, condition, budget, "
               "context and seed rank): " + "; ".join(
                   "%s %d of %d (%.1f%%)" % (f, same[f], n[f], 100.0 * same[f] / n[f])
                   for f in FAMILIES if n[f]) + ".")
    for r in ("r1", "r2"):
        t = paired_table(r)
        if t:
            out.append("")
            out.append("`cohort paired --format table` of %s (check.sh's freeze; budgets in "
                       "name order, `medium` none and top3 hold the `history` decisions too):" % r)
            out.append("")
            out.extend("    " + l if l else "" for l in t.rstrip("\n").split("\n"))
    return "\n".join(out)


def check():
    out = []
    p = os.path.join(CHECK, "verify-engine.txt")
    if os.path.exists(p):
        out.append("`cohort candidates verify --engine /usr/games/stockfish --sample 3 --seed 1`, "
                   "its last lines:")
        out.append("")
        out.extend("    " + l for l in open(p, encoding="utf-8").read().rstrip("\n").split("\n")[-3:])
    log = open("run-log.txt", encoding="utf-8").read().splitlines()
    runs = [l for l in log if "check.sh" in l and " $ " in l]
    last = runs[-1] if runs else ""
    m = re.search(r"exit (\d+)", last)
    if m:
        verdict = "exit %s" % m.group(1)
    elif runs and any("generate.sh done" in l for l in log[log.index(last):]):
        verdict = "exit 0 (generate.sh stops at a check that fails)"
    else:
        verdict = "not run"
    out.append("")
    out.append("The last run of check.sh (run-log.txt): %s%s." % (
        verdict, ", everything holds" if verdict.startswith("exit 0") else ""))
    return "\n".join(out).strip()


def time_():
    out = ["From run-log.txt (2 cores shared with other work, so wall times are long):", ""]
    keep = re.compile(r"\(\d+(\.\d)? s\)$|decisions: \d+ in|games: \d+ in|engine work done|"
                      r"CPU time|generate.sh (at|done|--resume)|stopped")
    for l in open("run-log.txt", encoding="utf-8"):
        l = l.rstrip("\n")
        if keep.search(l) or (" $ " in l and " round " not in l):
            out.append("    " + (l if len(l) <= 110 else l[:106] + " ..."))
    return "\n".join(out)


def main():
    readme = sys.argv[1]
    figs = {"SIZES": sizes, "GAMES": games, "DECISIONS": decisions,
            "CHECK": check, "TIME": time_}
    text = open(readme, encoding="utf-8").read()
    for name, fn in figs.items():
        body = "<!-- figures:%s -->\n%s\n<!-- /figures -->" % (name, fn())
        pat = re.compile(r"<!-- figures:%s -->\n.*?<!-- /figures -->" % name, re.S)
        if pat.search(text):
            text = pat.sub(lambda _: body, text)
        else:
            text = text.replace("@@%s@@" % name, body)
    tmp = readme + ".tmp"
    open(tmp, "w", encoding="utf-8").write(text)
    os.replace(tmp, readme)


main()
