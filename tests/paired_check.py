"""paired_check.py CANDIDATES DECISIONS FREEZE PAIRED [BLUNDER_CP]: compute
every figure of cohort.paired/1 again, independently of the C code, from the
candidate manifest, the decision log and the freeze's list of included
decisions, and compare with PAIRED.  The bootstrap is written again from its
documented rule (splitmix64 streams, type 7 quantiles), and so are the
effects (colour, order, phase, stratum) with their intervals.  Exit 1 on
any difference, naming it."""
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


def level_keys(p, d, multi):
    """The levels a decision falls in: (factor, level) for each factor; the
    order only where its position and context were shown under two seeds
    or more (multi)."""
    st = p["stratum"]
    keys = [("colour", st["to_move"]), ("phase", st["phase"]), ("stratum", st["kind"])]
    return keys + ([("order", str(d["order_seed"]))] if multi else [])


def effect_values(factors, sums, use):
    """Each level's recall and regret means and each factor's effect, by
    name: (factor, level, stat) and (factor, None, stat)."""
    out = {}
    for f, levels in factors.items():
        for lv in levels:
            t = sums.get((f, lv), dict(n=0, rec=0, nreg=0, reg=0))
            out[(f, lv, "recall")] = t["rec"] / t["n"] if t["n"] else None
            out[(f, lv, "regret")] = t["reg"] / t["nreg"] if t["nreg"] else None
        for stat in ("recall", "regret"):
            if f == "colour":
                a, b = out[(f, "white", stat)], out[(f, "black", stat)]
                out[(f, None, stat)] = None if a is None or b is None else a - b
                continue
            have = [out[(f, lv, stat)] for lv in levels if use[(f, lv, stat)]]
            out[(f, None, stat)] = None if len(have) < 2 or None in have else max(have) - min(have)
    return out


def check_effects(key, c, rows, pos, exact_of, opening_order, ci, opts):
    """The cell's effects, bootstrap included; the number of differences."""
    bad = 0
    group = {}
    for d in rows:
        group.setdefault((d["position_id"], d["context"]), set()).add(d["order_seed"])
    multi = lambda d: len(group[(d["position_id"], d["context"])]) >= 2
    seeds = sorted({d["order_seed"] for d in rows if multi(d)})
    factors = {"colour": ["white", "black"], "phase": ["opening", "middlegame", "endgame"],
               "stratum": ["tactical", "ambiguous", "quiet"], "order": [str(x) for x in seeds]}
    keys = [(f, lv) for f, levels in factors.items() for lv in levels]
    slot = {k: i for i, k in enumerate(keys)}
    per_open = {o: [0.0] * (4 * len(keys)) for o in opening_order}
    for d in rows:
        p = pos[d["position_id"]]
        ex = exact_of[d["decision_id"]]
        for fl in level_keys(p, d, multi(d)):
            t, j = per_open[p["opening"]], 4 * slot[fl]
            t[j] += 1
            t[j + 1] += d.get("chosen") is not None and d["chosen"] == p["candidates"][0]["uci"]
            if ex is not None:
                t[j + 2] += 1
                t[j + 3] += ex
    def add(blocks):
        v = [sum(col) for col in zip(*(per_open[o] for o in blocks))]
        return {k: dict(n=v[4 * i], rec=v[4 * i + 1], nreg=v[4 * i + 2], reg=v[4 * i + 3])
                for i, k in enumerate(keys)}
    full = add(opening_order)
    use = {}
    for f, levels in factors.items():
        for lv in levels:
            t = full[(f, lv)]
            use[(f, lv, "recall")] = t["n"] > 0
            use[(f, lv, "regret")] = t["nreg"] > 0
    est = effect_values(factors, full, use)
    blocks = [o for o in opening_order if any(per_open[o][4 * i] for i in range(len(keys)))]
    reps = opts["replicates"]
    boot = {k: [] for k in est}
    if len(blocks) >= 2:
        for b in range(reps):
            st = stream(opts["seed"], ci, b)
            drawn = []
            for _ in blocks:
                st, i = below(st, len(blocks))
                drawn.append(blocks[i])
            for k, v in effect_values(factors, add(drawn), use).items():
                if v is not None:
                    boot[k].append(v)
    a = (1 - opts["level"]) / 2
    eff = c.get("effects")
    if not isinstance(eff, dict):
        print("cell", key, "no effects")
        return 1
    measures = {"colour": "white-black", "order": "range", "phase": "range", "stratum": "range"}
    for f, levels in factors.items():
        g = eff.get(f)
        if g is None or g.get("measure") != measures[f] or [x["level"] for x in g["levels"]] != levels:
            print("cell", key, f, "levels or measure differ:", g and g.get("measure"),
                  g and [x["level"] for x in g["levels"]], levels)
            bad += 1
            continue
        items = [((f, lv, st), g["levels"][i][st]) for i, lv in enumerate(levels) for st in ("recall", "regret")]
        items += [((f, None, st), g[st]) for st in ("recall", "regret")]
        for i, lv in enumerate(levels):
            t = full.get((f, lv), dict(n=0, nreg=0))
            if g["levels"][i]["decisions"] != t["n"] or g["levels"][i]["regret_n"] != t["nreg"]:
                print("cell", key, f, lv, "counts differ")
                bad += 1
        for k, have in items:
            step = 1e-6 if k[2] == "recall" else 0.01
            w = rnd(est[k], step) if est[k] is not None else None
            v = sorted(boot[k])
            wi = [rnd(quantile(v, a), step), rnd(quantile(v, 1 - a), step)] if v else None
            hv, hi = have.get("estimate"), have.get("interval")
            if (w is None) != (hv is None) or (w is not None and abs(w - hv) > step / 2):
                print("cell", key, k, "want", w, "have", hv)
                bad += 1
            if (wi is None) != (hi is None) or (wi is not None and any(abs(x - y) > step / 2 for x, y in zip(wi, hi))):
                print("cell", key, k, "interval want", wi, "have", hi)
                bad += 1
            if hv is None and not have.get("reason"):
                print("cell", key, k, "null without a reason")
                bad += 1
    return bad


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
        exact_of = {}
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
            exact_of[d["decision_id"]] = exact
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
        bad += check_effects(key, c, rows, pos, exact_of, opening_order, ci, opts)
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
