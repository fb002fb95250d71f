#!/usr/bin/env python3
"""check.py: the engine panel's decision logs, request logs and billing
exports against the candidate manifest and the preregistration (standard
library only; check.sh runs it).

  check.py --legal LEGAL.jsonl CANDIDATES POSITIONS PREREG
           DECISIONS... REQUESTS... BILLING... LEDGERS...
  check.py --reconcile REPORT REQUESTS EXIT_STATUS LABEL
  check.py --billing-subset REQUESTS BILLING OUT

LEGAL.jsonl is `panel legal CANDIDATES`: each position's legal moves, from
cohort's chess core.  Files are told apart by name: decisions-*, requests-*,
billing-*, ledger-*.  Every problem is printed; exit 1 if there is any.
"""
import csv
import collections
import datetime
import hashlib
import json
import sys

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
WIDTHS = {"top2": 2, "top3": 3, "top5": 5, "top10": 10}
CONDITIONS = ["none", "top2", "top3", "top5", "top10", "top5-omit-best", "propose",
              "engine-selects"]
FAMILIES = ["stockfish", "fairy-stockfish", "glaurung"]
PRICE_PER_CPU_HOUR = 0.045

problems = []


def problem(msg):
    if len(problems) < 50:
        print("problem:", msg)
    problems.append(msg)


def splitmix64(state):
    state = (state + GOLDEN) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return state, z ^ (z >> 31)


def fnv1a64(s):
    h = 0xCBF29CE484222325
    for b in s.encode():
        h = ((h ^ b) * 0x100000001B3) & M64
    return h


def permutation(seed, position_id, n):
    """The order of n shown moves: panel.c's permutation(), bit for bit."""
    state = fnv1a64(position_id) ^ ((seed * GOLDEN) & M64)
    perm = list(range(n))
    for i in range(n, 1, -1):
        state, z = splitmix64(state)
        j = z % i
        perm[i - 1], perm[j] = perm[j], perm[i - 1]
    return perm


def value(score):
    """A candidate's or an eval's value in centipawns (mate n: 100000 - 100 n)."""
    if isinstance(score, dict):
        if "cp" in score:
            return score["cp"]
        m = score["mate"]
        return 100000 - 100 * m if m > 0 else -(100000 + 100 * m)
    return score


def when(ts):
    return datetime.datetime.fromisoformat(ts.replace("Z", "+00:00"))


def jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def canonical(doc):
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def billing_subset(req_path, bill_path, out_path):
    """The billing rows of the games' requests (game_id not null)."""
    games = {r["request_id"] for r in jsonl(req_path) if r["game_id"] is not None}
    with open(bill_path, newline="") as f, open(out_path, "w", newline="") as out:
        rows = list(csv.reader(f))
        w = csv.writer(out, lineterminator="\n")
        w.writerow(rows[0])
        for row in rows[1:]:
            if row[0] in games:
                w.writerow(row)
    return 0


def reconcile_findings(report_path, req_path, rc, label):
    """A cohort.reconcile/1 report's findings are exactly those its request
    log implies: request_without_game for each request with game_id null
    (a decision's), failed_request for each with status error, retry for
    each attempt above 1; and the exit status says whether there are any."""
    rep = json.load(open(report_path, encoding="utf-8"))
    want = set()
    for q in jsonl(req_path):
        if q["game_id"] is None:
            want.add(("request_without_game", q["request_id"]))
        if q["status"] == "error":
            want.add(("failed_request", q["request_id"]))
        if q["attempt"] > 1:
            want.add(("retry", q["request_id"]))
    got = {(f["kind"], f["request_id"]) for f in rep["findings"]}
    ok = got == want and len(got) == len(rep["findings"]) and \
        rc == (1 if want else 0) and rep["reconciled"] == (not want)
    kinds = collections.Counter(k for k, _ in got)
    print("%s: reconcile exit %d, findings %s: %s" % (
        label, rc, dict(sorted(kinds.items())) or "none",
        "exactly those the request log implies" if ok else "UNEXPECTED"))
    return 0 if ok else 1


def main(argv):
    if len(argv) == 4 and argv[0] == "--billing-subset":
        return billing_subset(*argv[1:])
    if len(argv) == 5 and argv[0] == "--reconcile":
        return reconcile_findings(argv[1], argv[2], int(argv[3]), argv[4])
    if len(argv) < 3 or argv[0] != "--legal":
        sys.exit(__doc__)
    legal = {r["position_id"]: set(r["legal"]) for r in jsonl(argv[1])}
    cand_path, pos_path, prereg_path = argv[2:5]
    rest = argv[5:]
    dec_paths = [p for p in rest if "decisions-" in p]
    req_paths = [p for p in rest if "requests-" in p]
    bill_paths = [p for p in rest if "billing-" in p]

    # ---- the manifest against the positions and the chess core ----
    manifest = jsonl(cand_path)
    head, lines = manifest[0], manifest[1:]
    raw = open(cand_path, "rb").read()
    ident = "sha256:" + hashlib.sha256(raw).hexdigest()
    if raw != b"".join((canonical(l) + "\n").encode() for l in manifest):
        problem("candidates.jsonl is not its canonical lines")
    eng = head["engine"]
    if (eng["nodes"], eng["multipv"], eng["options"]) != (200000, 10, {"Hash": 16, "Threads": 1}):
        problem("manifest engine settings: %s" % eng)
    positions = {p["position_id"]: p for p in jsonl(pos_path)}
    cands = {}
    for l in lines:
        pid = l["position_id"]
        p = positions.get(pid)
        if p is None or any(p[k] != l[k] for k in ("fen", "split", "opening", "stratum")):
            problem("%s: manifest line differs from positions.jsonl" % pid)
        scored = [c["uci"] for c in l["candidates"]] + list(l.get("evals", {}))
        if set(scored) != legal[pid] or len(scored) != len(legal[pid]):
            problem("%s: candidates and evals are not exactly the legal moves" % pid)
        vals = {c["uci"]: value(c) for c in l["candidates"]}
        vals.update({u: value(v) for u, v in l.get("evals", {}).items()})
        cands[pid] = (l, vals)
    if set(cands) != set(positions):
        problem("manifest positions differ from positions.jsonl")

    # ---- the preregistration ----
    prereg = json.load(open(prereg_path, encoding="utf-8"))
    if prereg["candidates"] != ident:
        problem("prereg candidates %s, manifest %s" % (prereg["candidates"], ident))
    splits = collections.Counter(p["split"] for p in positions.values())
    if prereg["allocation"]["splits"] != dict(splits):
        problem("prereg splits %s, positions %s" % (prereg["allocation"]["splits"], dict(splits)))
    by_opening = collections.defaultdict(set)
    for p in positions.values():
        by_opening[p["opening"]].add(p["split"])
    for o, s in by_opening.items():
        if len(s) != 1:
            problem("opening %s spans splits %s" % (o, sorted(s)))
    registered = when(prereg["registered_at"])
    for path in [p for p in rest if "ledger-" in p]:
        for g in jsonl(path):
            if when(g["started_at"]) < registered:
                problem("game %s started at %s, before registered_at" % (g["game_id"], g["started_at"]))

    # ---- requests and billing ----
    requests = {}
    for path in req_paths:
        for r in jsonl(path):
            if r["request_id"] in requests:
                problem("request %s given twice" % r["request_id"])
            requests[r["request_id"]] = r
            if when(r["ts"]) < registered:
                problem("request %s at %s, before registered_at" % (r["request_id"], r["ts"]))
            if r["status"] not in ("ok", "error") or r["attempt"] < 1:
                problem("request %s: attempt %s status %s" % (r["request_id"], r["attempt"], r["status"]))
    billed = {}
    for path in bill_paths:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        for row in rows:
            rid = row["request_id"]
            if rid in billed:
                problem("billing row %s twice" % rid)
            billed[rid] = row
            r = requests.get(rid)
            if r is None:
                problem("billing row %s without a request" % rid)
                continue
            t = r["tokens"]
            if [int(row[k + "_tokens"]) for k in ("input", "output", "reasoning", "cached")] != \
                    [t["input"], t["output"], t["reasoning"], t["cached"]]:
                problem("billing row %s: tokens differ" % rid)
            cost = round(r["latency_ms"] / 3.6e6 * PRICE_PER_CPU_HOUR, 9)
            if abs(float(row["cost"]) - cost) > 1.5e-9:  # the last digit may round apart
                problem("billing row %s: cost %s, expected %.9f" % (rid, row["cost"], cost))
    if set(billed) != set(requests):
        problem("%d requests unbilled" % len(set(requests) - set(billed)))

    # ---- decisions ----
    seen = set()
    cells = collections.Counter()
    regret = collections.defaultdict(list)
    recall = collections.defaultdict(list)
    chosen_by = collections.defaultdict(dict)
    retried = collections.Counter()
    for path in dec_paths:
        rep_label = path.rsplit("decisions-", 1)[1].split(".")[0]
        for d in jsonl(path):
            did = d["decision_id"]
            if did in seen:
                problem("decision %s given twice" % did)
            seen.add(did)
            pid, cond, fam = d["position_id"], d["condition"], d["family"]
            if d["replication"] != rep_label or fam not in FAMILIES or cond not in CONDITIONS:
                problem("%s: replication, family or condition" % did)
                continue
            if pid not in cands:
                problem("%s: position %s not in the manifest" % (did, pid))
                continue
            line, vals = cands[pid]
            cl = [c["uci"] for c in line["candidates"]]
            seed = d["order_seed"]
            if cond in WIDTHS or cond == "top5-omit-best":
                base = cl[:WIDTHS[cond]] if cond in WIDTHS else cl[1:6]
                want = [base[i] for i in permutation(seed, pid, len(base))]
                if seed < 1:
                    problem("%s: order seed %s" % (did, seed))
            else:
                want = []
                if seed != 0:
                    problem("%s: order seed %s for a condition that shows nothing" % (did, seed))
            if d["shown"] != want:
                problem("%s: shown %s, the condition's set in seed order is %s" % (did, d["shown"], want))
            ch = d["chosen"]
            if ch not in legal[pid]:
                problem("%s: chosen %s is not legal" % (did, ch))
            if want and ch not in want:
                problem("%s: chosen %s outside the shown set" % (did, ch))
            if cond in ("propose", "engine-selects"):
                prop = d.get("proposed", [])
                if not 1 <= len(prop) <= 3 or len(set(prop)) != len(prop) or \
                        not set(prop) <= legal[pid]:
                    problem("%s: proposed %s" % (did, prop))
                if cond == "engine-selects" and prop:
                    best = max(prop, key=lambda u: (vals[u], -prop.index(u)))
                    if ch != best:
                        problem("%s: engine-selects chose %s, the manifest's pick is %s" % (did, ch, best))
                if cond == "propose" and ch not in prop:
                    problem("%s: propose played %s, not among its proposed" % (did, ch))
            elif "proposed" in d:
                problem("%s: proposed in condition %s" % (did, cond))
            if (d["status"], d["failure"]) != ("ok", None) or d["retries"] != len(d["requests"]) - 1:
                problem("%s: status, failure or retries" % did)
            if when(d["ts"]) < registered:
                problem("%s: at %s, before registered_at" % (did, d["ts"]))
            # its requests: one an attempt, every one but the last failed
            reqs = [requests.get(rid) for rid in d["requests"]]
            if None in reqs or not reqs or \
                    [q["attempt"] for q in reqs] != list(range(1, len(reqs) + 1)) or \
                    [q["status"] for q in reqs] != ["error"] * (len(reqs) - 1) + ["ok"] or \
                    any(q["game_id"] is not None or q["model"] != d["model"] for q in reqs) or \
                    sum(q["tokens"]["reasoning"] for q in reqs) != d["tokens"]["reasoning"] or \
                    abs(sum(q["latency_ms"] for q in reqs) - d["latency_ms"]) > 1e-6 or \
                    reqs[0]["ts"] != d["ts"]:
                problem("%s: its requests do not match" % did)
            retried[fam] += d["retries"]
            if d["model"]["returned"] != d["model"]["requested"]:
                problem("%s: model returned %s" % (did, d["model"]["returned"]))
            cells[(rep_label, fam, d["context"], cond, d["budget"], seed)] += 1
            if d["context"] == "fresh":
                key = (fam, cond, d["budget"])
                best = max(vals.values())
                regret[key].append(best - vals[ch])
                recall[key].append(ch == cl[0])
                chosen_by[(rep_label, fam, cond, d["budget"], pid)][seed] = ch

    # completeness: every cell of the design, once per position
    n = len(positions)
    reps = sorted({c[0] for c in cells})
    for rep in reps:
        for fam in FAMILIES:
            seeds = sorted({c[5] for c in cells if c[0] == rep and c[3] == "top2"})
            if len(seeds) != 3:
                problem("%s %s: order seeds %s" % (rep, fam, seeds))
            for b in ("low", "medium", "high"):
                for cond in CONDITIONS:
                    ss = seeds if cond in WIDTHS else [seeds[0]] if cond == "top5-omit-best" else [0]
                    for s in ss:
                        if cells[(rep, fam, "fresh", cond, b, s)] != n:
                            problem("%s %s fresh %s %s seed %s: %d decisions, not %d" % (
                                rep, fam, cond, b, s, cells[(rep, fam, "fresh", cond, b, s)], n))
            for cond, s in (("none", 0), ("top3", seeds[0] if seeds else 0)):
                if cells[(rep, fam, "history", cond, "medium", s)] != n:
                    problem("%s %s history %s: incomplete" % (rep, fam, cond))

    # ---- what the decisions say (a summary, not a check) ----
    changed = collections.Counter()
    total = collections.Counter()
    for (rep, fam, cond, b, pid), by_seed in chosen_by.items():
        if cond in WIDTHS:
            total[fam] += 1
            changed[fam] += len(set(by_seed.values())) > 1
    print("decisions: %d, in %s; requests %d, billing rows %d" % (
        len(seen), ", ".join(dec_paths), len(requests), len(billed)))
    print("\nmean regret in centipawns (best-move recall), fresh, both replications:")
    conds = ["none", "top10", "top5", "top3", "top2", "top5-omit-best", "propose", "engine-selects"]
    print("%-16s %-7s" % ("family", "budget") + "".join("%16s" % c for c in conds))
    for fam in FAMILIES:
        for b in ("low", "medium", "high"):
            row = "%-16s %-7s" % (fam, b)
            for c in conds:
                r, k = regret[(fam, c, b)], recall[(fam, c, b)]
                row += "%16s" % ("%.1f (%.2f)" % (sum(r) / len(r), sum(k) / len(k)) if r else "-")
            print(row)
    print("\norder changes (top-k cells whose chosen move differs across order seeds):",
          ", ".join("%s %d of %d" % (f, changed[f], total[f]) for f in FAMILIES))
    same = diff = 0
    for (rep, fam, cond, b, pid), by_seed in chosen_by.items():
        if rep == "r1" and cond not in WIDTHS:
            other = chosen_by.get(("r2", fam, cond, b, pid))
            if other is not None:
                if list(by_seed.values())[0] == list(other.values())[0]:
                    same += 1
                else:
                    diff += 1
    print("decision retries (glaurung's bestmove (none), asked again):", ", ".join(
        "%s %d" % (f, retried[f]) for f in FAMILIES))
    print("r1 against r2 (fresh, conditions without an order): %d same move, %d different" % (same, diff))

    if problems:
        print("\n%d problems" % len(problems))
        return 1
    print("\ndecision logs, request logs and billing: every check holds")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
