#!/usr/bin/python3
"""plant.py: test helper for tests/reconcile.test.sh.

  plant.py plant DIR KIND...   plant each kind of discrepancy into the
                               fixture copy in DIR (ledger.jsonl,
                               requests.jsonl, billing.csv); print the
                               findings expected, one a line
  plant.py findings REPORT     print a report's findings in the same form,
                               sorted; exit 1 if the per-condition and total
                               counts disagree with the list
  plant.py sums DIR REPORT     recompute the summary from the inputs in DIR
                               and the freeze, independently; print every
                               difference; exit 1 if any

A finding line: KIND CONDITION GAME_ID REQUEST_ID FIELD ("-" for null)."""
import csv
import json
import sys


def load(path):
    return [json.loads(l) for l in open(path, encoding="utf-8") if l.strip()]


def save(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")


def plant(d, kinds):
    led, req = load(d + "/ledger.jsonl"), load(d + "/requests.jsonl")
    bill = list(csv.reader(open(d + "/billing.csv", newline="")))
    head, rows = bill[0], bill[1:]
    game = {g["game_id"]: g for g in led}
    rq = {r["request_id"]: r for r in req}
    brow = lambda rid: next(r for r in rows if r[0] == rid)
    def add_request(rid, gid, tok, lat):
        req.append({"request_id": rid, "game_id": gid, "ts": "2026-07-21T10:00:00Z",
                    "model": {"requested": "fam-1", "returned": "fam-1"},
                    "tokens": dict(zip(["input", "output", "reasoning", "cached"], tok)),
                    "latency_ms": lat, "attempt": 1, "status": "ok"})
        rows.append([rid, "2026-07-21T10:00:00Z", "fam-1"] + [str(t) for t in tok] + ["0.000100"])
    out = []
    for k in kinds:
        if k == "missing_game":
            led.remove(game["g2"])
            out += ["missing_game none g2 - game_id", "request_without_game none g2 r3 game_id"]
        elif k == "identity_mismatch":
            game["g1"]["opening"] = "e4"
            out.append("identity_mismatch none g1 - id")
        elif k == "stale_freeze":
            g = json.loads(json.dumps(game["g4"]))
            g.update(game_id="g8", started_at="2026-07-21T09:00:00Z", ended_at="2026-07-21T09:30:00Z",
                     requests=["r20"], tokens={"input": 10, "output": 1, "reasoning": 0, "cached": 0})
            led.append(g)
            add_request("r20", "g8", (10, 1, 0, 0), 100)
            out.append("stale_freeze top2 g8 - game_id")
        elif k == "game_without_requests":
            req.remove(rq["r6"])
            rows.remove(brow("r6"))
            out.append("game_without_requests top2 g4 - requests")
        elif k == "game_requests":
            add_request("r21", "g1", (0, 0, 0, 0), 0)
            out.append("game_requests none g1 - requests")
        elif k == "game_tokens":
            rq["r1"]["tokens"]["input"] += 5
            brow("r1")[3] = str(int(brow("r1")[3]) + 5)
            out.append("game_tokens none g1 - tokens.input")
        elif k == "wall_time":
            rq["r4"]["latency_ms"] = 300000
            out.append("wall_time top2 g3 - wall_s")
        elif k == "request_without_game":
            add_request("r22", None, (30, 3, 0, 0), 10)
            out.append("request_without_game - - r22 game_id")
        elif k == "unbilled_request":
            rows.remove(brow("r4"))
            out.append("unbilled_request top2 g3 r4 request_id")
        elif k == "duplicate_billing":
            rows.append(list(brow("r5")))
            out.append("duplicate_billing top2 g3 r5 request_id")
        elif k == "billed_tokens":
            brow("r7")[4] = "7"
            out.append("billed_tokens top2 g5 r7 output_tokens")
        elif k == "unmatched_billing":
            rows.append(["rx9", "2026-07-21T10:00:00Z", "fam-1", "5", "5", "0", "0", "0.000010"])
            out.append("unmatched_billing - - rx9 request_id")
        elif k == "failed_request":
            rq["r2"]["status"] = "error"
            out.append("failed_request none g1 r2 status")
        elif k == "retry":
            rq["r4"]["attempt"] = 2
            out.append("retry top2 g3 r4 attempt")
        elif k == "model_changed":
            rq["r5"]["model"]["returned"] = "fam-2"
            out.append("model_changed top2 g3 r5 model.returned")
        else:
            sys.exit("unknown kind " + k)
    save(d + "/ledger.jsonl", led)
    save(d + "/requests.jsonl", req)
    with open(d + "/billing.csv", "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([head] + rows)
    print("\n".join(sorted(out)))


def findings(path):
    rep = json.load(open(path, encoding="utf-8"))
    dash = lambda v: "-" if v is None else str(v)
    lines = sorted(" ".join(dash(f[k]) for k in ("kind", "condition", "game_id", "request_id", "field"))
                   for f in rep["findings"])
    if lines:
        print("\n".join(lines))
    bad = 0
    for c in rep["conditions"]:
        for kind, n in c["findings"].items():
            m = sum(1 for f in rep["findings"] if f["kind"] == kind and f["condition"] == c["condition"])
            if m != n:
                print("count %s %s: report %d, list %d" % (c["condition"], kind, n, m), file=sys.stderr)
                bad = 1
    for kind, n in rep["totals"]["findings"].items():
        if n != sum(1 for f in rep["findings"] if f["kind"] == kind):
            print("total count %s wrong" % kind, file=sys.stderr)
            bad = 1
    if rep["reconciled"] != (not rep["findings"]):
        print("reconciled disagrees with the findings", file=sys.stderr)
        bad = 1
    sys.exit(bad)


def sums(d, path):
    rep = json.load(open(path, encoding="utf-8"))
    freeze = json.load(open(d + "/freeze.json", encoding="utf-8"))
    led = {g["game_id"]: g for g in load(d + "/ledger.jsonl")}
    req = load(d + "/requests.jsonl")
    bill = {}
    for r in csv.DictReader(open(d + "/billing.csv", newline="")):
        bill.setdefault(r["request_id"], []).append(r)
    want = {}
    for c in freeze["spec"]["conditions"]:
        clean = [g["game_id"] for g in freeze["games"] if g["condition"] == c]
        perr = [x["game_id"] for x in freeze["excluded"] if x["reason"] == "provider_error"
                and led[x["game_id"]]["condition"] == c]
        rec = {k: sum(led[g]["tokens"][k] for g in clean) for k in ("input", "output", "reasoning", "cached")}
        rec["total"] = rec["input"] + rec["output"] + rec["reasoning"]
        reqs = [r for r in req if r["game_id"] in clean]
        billed = {k: sum(int(b[k + "_tokens"]) for r in reqs for b in bill.get(r["request_id"], []))
                  for k in ("input", "output", "reasoning", "cached")}
        billed["total"] = billed["input"] + billed["output"] + billed["reasoning"]
        res = [g["result"] for g in freeze["games"] if g["condition"] == c]
        want[c] = {"clean_games": len(clean), "provider_error_games": len(perr),
                   "w": res.count("win"), "d": res.count("draw"), "l": res.count("loss"),
                   "tokens": {"recorded": rec, "billed": billed},
                   "tokens_per_clean_game": round(rec["total"] / len(clean), 6) if clean else None,
                   "requests": len(reqs), "retries": sum(r["attempt"] > 1 for r in reqs),
                   "wall_s": round(sum(led[g]["wall_s"] for g in clean), 3),
                   "worker_hours": round(sum(led[g]["worker_hours"] for g in clean), 6),
                   "provider_error_requests": sum(1 for r in req if r["game_id"] in perr)}
    bad = 0
    got = {c["condition"]: c for c in rep["conditions"]}
    for c, w in want.items():
        for k, v in w.items():
            g = got[c][k]
            if isinstance(v, float) and isinstance(g, (int, float)) and abs(g - v) < 1e-9:
                continue
            if g != v:
                print("%s %s: report %s, recomputed %s" % (c, k, g, v))
                bad = 1
    t = rep["totals"]
    for k in ("clean_games", "provider_error_games", "w", "d", "l", "requests"):
        if t[k] != sum(w[k] for w in want.values()):
            print("totals %s: report %s" % (k, t[k]))
            bad = 1
    if t["requests_logged"] != len(req) or t["billing_rows"] != sum(len(v) for v in bill.values()):
        print("totals: requests_logged or billing_rows")
        bad = 1
    sys.exit(bad)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "plant":
        plant(sys.argv[2], sys.argv[3:])
    elif cmd == "findings":
        findings(sys.argv[2])
    elif cmd == "sums":
        sums(sys.argv[2], sys.argv[3])
