"""paired_check.py CANDIDATES DECISIONS FREEZE PAIRED [BLUNDER_CP]: compute
every figure of cohort.paired/1 again, independently of the C code, from the
candidate manifest, the decision log and the freeze's list of included
decisions, and compare with PAIRED.  The bootstrap is written again from its
documented rule (splitmix64 streams, type 7 quantiles).  Exit 1 on any
difference, naming it."""
import json
import math
import sys

MASK = (1 << 64) - 1


def splitmix(state):
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def stream(seed, what, rep):
    s, z = splitmix(seed)
    s, z = splitmix(z ^ what)
    s, z = splitmix(z ^ rep)
    return z


def below(state, n):
    state, z = splitmix(state)
    return state, ((z >> 32) * n) >> 32


def quantile(v, q):
    h = (len(v) - 1) * q
    lo = math.floor(h)
    if lo + 1 >= len(v):
        return v[-1]
    return v[lo] + (h - lo) * (v[lo + 1] - v[lo])


def rnd(x, step):
    if x is None:
        return None
    r = round(abs(x) / step) * step  # halves away from zero, as json_round
    r = math.floor(abs(x) / step + 0.5) * step
    r = -r if x < 0 else r
    return 0.0 if r == 0 else float(("%.12g" % r))


def value(s):
    if "mate" in s:
        m = s["mate"]
        return 100000 - 100 * m if m > 0 else -(100000 + 100 * m)
    return s["cp"]


def main():
    man = [json.loads(l) for l in open(sys.argv[1])]
    pos = {p["position_id"]: p for p in man[1:]}
    opening_order = []
    for p in man[1:]:
        if p["opening"] not in opening_order:
            opening_order.append(p["opening"])
    decs = {d["decision_id"]: d for d in map(json.loads, open(sys.argv[2]))}
    freeze = json.load(open(sys.argv[3]))
    doc = json.load(open(sys.argv[4]))
    bcp = float(sys.argv[5]) if len(sys.argv) > 5 else 300.0
    opts = doc["options"]
    cells, order = {}, []
    for e in freeze["decisions"]["included"]:
        d = decs[e["decision_id"]]
        key = (d["family"], d["replication"], d["condition"], d.get("budget"))
        if key not in cells:
            cells[key] = []
            order.append(key)
        cells[key].append(d)
    bad = 0
    got = {(c["family"], c["replication"], c["condition"], c["budget"]): c for c in doc["cells"]}
    for ci, key in enumerate(order):
        rows = cells[key]
        per_open = {o: dict(n=0, rec=0, ncov=0, cov=0, nreg=0, reg=0, nvl=0, vl=0) for o in opening_order}
        regs, bounds, nomate, regn = [], 0, 0, 0.0
        seeds = {}
        for d in rows:
            p = pos[d["position_id"]]
            cands = p["candidates"]
            vals = {c["uci"]: c for c in cands}
            ev = p.get("evals", {})
            s = per_open[p["opening"]]
            s["n"] += 1
            best = value(cands[0])
            ch = d.get("chosen")
            exact = None
            if ch is not None:
                s["rec"] += ch == cands[0]["uci"]
                if ch in vals:
                    cv = vals[ch]
                elif ch in ev:
                    cv = ev[ch] if isinstance(ev[ch], dict) else {"cp": ev[ch]}
                else:
                    cv = None
                if cv is None:
                    bounds += 1
                else:
                    exact = best - value(cv)
                    s["nreg"] += 1
                    s["reg"] += exact
                    regs.append(exact)
                    if "mate" not in cv and "mate" not in cands[0]:
                        nomate += 1
                        regn += exact
            cond = d["condition"]
            if cond != "none":
                lst = d.get("proposed") if cond in ("propose", "engine-selects") else d["shown"]
                s["ncov"] += 1
                s["cov"] += cands[0]["uci"] in lst
                if exact is not None:
                    def v_of(u):
                        if u in vals:
                            return value(vals[u])
                        if u in ev:
                            return value(ev[u] if isinstance(ev[u], dict) else {"cp": ev[u]})
                        return None
                    vs = [v_of(u) for u in lst]
                    if None not in vs:
                        s["nvl"] += 1
                        s["vl"] += max(vs) - (best - exact)
            seeds.setdefault((d["position_id"], d["context"]), []).append((d["order_seed"], ch, exact))
        pairs = differ = 0
        for grp in seeds.values():
            for a in range(len(grp)):
                for b in range(a + 1, len(grp)):
                    if grp[a][0] != grp[b][0]:
                        pairs += 1
                        differ += grp[a][1] != grp[b][1]
        tot = {k: sum(per_open[o][k] for o in opening_order) for k in per_open[opening_order[0]]}
        want = {
            "decisions": len(rows),
            "recall": tot["rec"] / tot["n"],
            "coverage": tot["cov"] / tot["ncov"] if tot["ncov"] else None,
            "regret": tot["reg"] / tot["nreg"] if tot["nreg"] else None,
            "median": (sorted(regs)[(len(regs) - 1) // 2] + sorted(regs)[len(regs) // 2]) / 2 if regs else None,
            "bounds": bounds,
            "mean_without_mates": regn / nomate if nomate else None,
            "change_probability": differ / pairs if pairs else None,
        }
        c = got.get(key)
        if c is None:
            print("missing cell", key)
            bad += 1
            continue
        have = {
            "decisions": c["decisions"],
            "recall": c["recall"]["estimate"],
            "coverage": c["coverage"]["estimate"] if c["coverage"] else None,
            "regret": c["regret"]["mean"],
            "median": c["regret"]["median"],
            "bounds": c["regret"]["bounds"],
            "mean_without_mates": c["regret"]["mean_without_mates"],
            "change_probability": c["order"]["change_probability"],
        }
        for k in want:
            w = want[k]
            step = 0.01 if k in ("regret", "median", "mean_without_mates") else 1e-6
            if w is not None and k != "decisions" and k != "bounds":
                w = rnd(w, step)
            if (w is None) != (have[k] is None) or (w is not None and abs(w - have[k]) > step / 2):
                print("cell", key, k, "want", w, "have", have[k])
                bad += 1
        # the bootstrap, again
        blocks = [o for o in opening_order if per_open[o]["n"] > 0]
        reps = opts["replicates"]
        if len(blocks) >= 2 and reps > 0:
            vals_r = {"recall": [], "regret": []}
            for b in range(reps):
                st = stream(opts["seed"], ci, b)
                t = dict(n=0, rec=0, nreg=0, reg=0)
                for _ in blocks:
                    st, i = below(st, len(blocks))
                    s = per_open[blocks[i]]
                    for k in t:
                        t[k] += s[k]
                vals_r["recall"].append(t["rec"] / t["n"])
                if t["nreg"]:
                    vals_r["regret"].append(t["reg"] / t["nreg"])
            a = (1 - opts["level"]) / 2
            for k, step, have_iv in (("recall", 1e-6, c["recall"]["interval"]),
                                     ("regret", 0.01, c["regret"]["interval"])):
                v = sorted(vals_r[k])
                w = [rnd(quantile(v, a), step), rnd(quantile(v, 1 - a), step)]
                if have_iv is None or any(abs(x - y) > step / 2 for x, y in zip(w, have_iv)):
                    print("cell", key, k, "interval want", w, "have", have_iv)
                    bad += 1
    if len(got) != len(order):
        print("cells: want", len(order), "have", len(got))
        bad += 1
    sys.exit(1 if bad else 0)


main()
