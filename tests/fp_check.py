#!/usr/bin/env python3
"""fp_check.py CANDIDATES DECISIONS GAMES FREEZE PREREG FINGERPRINT: compute
every figure of a cohort.fingerprint/1 again, independently of the C code,
from the candidate manifest, the decision log, the game ledger, the freeze
(its lists of included decisions and games) and the prereg: the sums per
cell and opening, the units, the splitmix64 draws of every replicate, the
joint Davidson fit (Newton's method written again, and the exact bounds of
saturated widths by bisection), every feature, the rows, standard errors,
intervals and covariance.  Exit 1 on any difference, naming it."""
import json
import math
import sys

MASK = (1 << 64) - 1
LOG = math.log(10) / 400
PHASES = ["opening", "middlegame", "endgame"]
LABELS = ["state", "tactic", "value", "plan", "memory", "interface"]
STEP = {"unaided": .01, "r_k": .01, "delta_r": .01, "k_star": 1, "p_k_star": 1e-6,
        "overload_2_10": .01, "slope": 1e-4, "curvature": 1e-4, "reversals": 1, "auc": 1e-6,
        "recall_unaided": 1e-6, "coverage": 1e-6, "oracle_regret": .01, "chosen_rank": 1e-6,
        "value_loss": .01, "omit_best": .01, "engine_selects": .01, "calibration": 1e-6,
        "order_change": 1e-6, "regret_var_seeds": .01, "illegal_rate": 1e-6,
        "tool_failure_rate": 1e-6, "blunder_hazard": 1e-6, "history_vs_fresh": .01,
        "failure_labels": 1e-6, "tokens_per_decision": .01, "latency_per_decision": .01,
        "tokens_per_game": .01, "wall_per_game": .001, "worker_hours_per_game": 1e-6,
        "gain_per_1k_tokens": 1e-4, "width_x_budget": .01, "retries_per_legal": 1e-6, "pareto": 1}
ORDER = list(STEP)
NAN = float("nan")


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


def fnv(fam, rep):
    h = 0xcbf29ce484222325
    for c in fam.encode() + b"\0" + rep.encode():
        h = ((h ^ c) * 0x100000001b3) & MASK
    return h


def rnd(x, step):
    if x is None or x != x:
        return None
    r = math.floor(abs(x) / step + 0.5) * step
    r = -r if x < 0 else r
    return 0.0 if r == 0 else float("%.12g" % r)


def sig(x):
    """six significant digits, as the document rounds errors and covariances"""
    return rnd(x, 10 ** (math.floor(math.log10(abs(x))) - 5)) if x else 0.0


def quantile(v, q):
    h = (len(v) - 1) * q
    lo = math.floor(h)
    if lo + 1 >= len(v):
        return v[-1]
    return v[lo] + (h - lo) * (v[lo + 1] - v[lo])


def value(s):
    if "mate" in s:
        m = s["mate"]
        return 100000 - 100 * m if m > 0 else -(100000 + 100 * m)
    return s["cp"]


def ratio(a, b):
    return a / b if b > 0 else NAN


KEYS = ["n", "recall", "ncov", "cov", "nreg", "reg", "nomate", "reg_nomate", "nrank", "rank", "nvl",
        "vl", "ok", "illegal", "tool", "tok", "ctok", "lat", "retries", "ctx_n0", "ctx_n1", "ctx_r0",
        "ctx_r1", "pairs", "differ", "var", "nvar"] + ["bn%d" % i for i in range(3)] + \
       ["bk%d" % i for i in range(3)] + ["f_" + l for l in LABELS]


def zero():
    return dict.fromkeys(KEYS, 0.0)


def cond_kind(c):
    if c == "none":
        return ("none", 0)
    if c in ("propose", "engine-selects"):
        return (c, 0)
    if c.endswith("-omit-best"):
        return ("omit", int(c[3:-10]))
    return ("top", int(c[3:]))


def sums_of_decisions(man, decs, freeze, bcp, by_position, split=None):
    pos = {p["position_id"]: p for p in man[1:]}
    blk = "position_id" if by_position else "opening"
    openings = []
    for p in man[1:]:
        if p[blk] not in openings:
            openings.append(p[blk])
    cells, order = {}, []
    groups = {}
    for e in freeze["decisions"]["included"]:
        d = decs[e["decision_id"]]
        if split is not None and pos[d["position_id"]]["split"] != split:
            continue
        key = (d["family"], d["replication"], d["condition"], d.get("budget"))
        if key not in cells:
            cells[key] = {o: zero() for o in openings}
            order.append(key)
        p = pos[d["position_id"]]
        s = cells[key][p[blk]]
        cands = p["candidates"]
        sc = {c["uci"]: c for c in cands}
        for u, v in p.get("evals", {}).items():
            sc.setdefault(u, v if isinstance(v, dict) else {"cp": v})
        rank = {c["uci"]: i for i, c in enumerate(cands)}
        s["n"] += 1
        st = d["status"]
        s[{"ok": "ok", "illegal": "illegal", "tool_error": "tool"}[st]] += 1
        if d.get("failure"):
            s["f_" + d["failure"]] += 1
        t = d["tokens"]
        s["tok"] += t["input"] + t["output"] + t["reasoning"]
        s["ctok"] += t["output"] + t["reasoning"]
        s["lat"] += d["latency_ms"]
        s["retries"] += d["retries"]
        ch = d.get("chosen")
        exact = None
        ph = PHASES.index(p["stratum"]["phase"])
        hist = d["context"] == "history"
        best = value(cands[0])
        if ch is not None:
            s["recall"] += ch == cands[0]["uci"]
            s["bn%d" % ph] += 1
            if ch not in sc:
                bound = best - value(cands[-1])
                s["bk%d" % ph] += bound >= bcp
            else:
                exact = best - value(sc[ch])
                if ch in rank:
                    s["nrank"] += 1
                    s["rank"] += rank[ch] + 1
                s["nreg"] += 1
                s["reg"] += exact
                s["ctx_n%d" % hist] += 1
                s["ctx_r%d" % hist] += exact
                if "mate" not in sc[ch] and "mate" not in cands[0]:
                    s["nomate"] += 1
                    s["reg_nomate"] += exact
                s["bk%d" % ph] += exact >= bcp
        kind = cond_kind(d["condition"])[0]
        if kind != "none":
            lst = d.get("proposed") if kind in ("propose", "engine-selects") else d["shown"]
            s["ncov"] += 1
            s["cov"] += cands[0]["uci"] in lst
            if exact is not None and all(u in sc for u in lst):
                s["nvl"] += 1
                s["vl"] += max(value(sc[u]) for u in lst) - value(sc[ch])
        groups.setdefault((key, d["position_id"], hist), []).append((d["order_seed"], ch, exact))
    for (key, pid, hist), g in groups.items():
        s = cells[key][pos[pid][blk]]
        for a in range(len(g)):
            for b in range(a + 1, len(g)):
                if g[a][0] != g[b][0]:
                    s["pairs"] += 1
                    s["differ"] += g[a][1] != g[b][1]
        if len(set(x[0] for x in g)) >= 2:
            ex = [x[2] for x in g if x[2] is not None]
            if len(ex) >= 2:
                m = sum(ex) / len(ex)
                s["var"] += sum((x - m) ** 2 for x in ex) / (len(ex) - 1)
                s["nvar"] += 1
    return openings, cells, order


# ---------- the joint Davidson fit ----------

def loglik(blocks, th, phi, pen):
    L = 0.0
    for c, a, sp, w, d, l in blocks:
        s = th[c] + sp * pen - a
        lse = max(s, 0, phi + s / 2) if phi is not None else max(s, 0)
        D = math.exp(s - lse) + math.exp(-lse) + (math.exp(phi + s / 2 - lse) if phi is not None else 0)
        L += w * s + (d * (phi + s / 2) if d else 0) - (w + d + l) * (lse + math.log(D))
    return L


def solve(A, b):
    n = len(b)
    M = [row[:] + [b[i]] for i, row in enumerate(A)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(M[r][i]))
        M[i], M[p] = M[p], M[i]
        for r in range(i + 1, n):
            f = M[r][i] / M[i][i]
            for c in range(i, n + 1):
                M[r][c] -= f * M[i][c]
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        x[i] = (M[i][n] - sum(M[i][c] * x[c] for c in range(i + 1, n))) / M[i][i]
    return x


def davidson(blocks, conds, pen):
    """MLE of theta per finite condition (and phi when there are draws)."""
    fin = [c for c in conds if conds[c] == "finite"]
    bl = [b for b in blocks if conds[b[0]] == "finite"]
    draws = any(b[4] for b in bl)
    idx = {c: i for i, c in enumerate(fin)}
    th = {c: 0.0 for c in conds}
    for c in fin:
        n = sum(b[3] + b[4] + b[5] for b in bl if b[0] == c)
        sc = sum(b[3] + b[4] / 2 for b in bl if b[0] == c) / n
        th[c] = sum((b[1] - b[2] * pen) * (b[3] + b[4] + b[5]) for b in bl if b[0] == c) / n + \
            math.log(sc / (1 - sc))
    phi = 0.0 if draws else None
    K = len(fin) + (1 if draws else 0)
    for it in range(200):
        g = [0.0] * K
        H = [[0.0] * K for _ in range(K)]
        for c, a, sp, w, d, l in bl:
            n = w + d + l
            s = th[c] + sp * pen - a
            ew, el = math.exp(s / 2), math.exp(-s / 2)
            ed = math.exp(phi) if draws else 0.0
            D = ew + el + ed
            pw, pd, pl = ew / D, ed / D, el / D
            e1 = pw + pd / 2
            v11 = pw + pd / 4 - e1 * e1
            i = idx[c]
            g[i] += w + d / 2 - n * e1
            H[i][i] -= n * v11
            if draws:
                j = K - 1
                g[j] += d - n * pd
                H[j][j] -= n * (pd - pd * pd)
                cv = pd / 2 - e1 * pd
                H[i][j] -= n * cv
                H[j][i] -= n * cv
        if max(abs(x) for x in g) < 1e-11:
            break
        step = solve([[-x for x in r] for r in H], g)
        L0, t = loglik(bl, th, phi, pen), 1.0
        while True:
            th2 = dict(th)
            for c in fin:
                th2[c] = th[c] + t * step[idx[c]]
            phi2 = phi + t * step[K - 1] if draws else None
            if loglik(bl, th2, phi2, pen) >= L0 - 1e-12 or t < 1e-6:
                break
            t /= 2
        th, phi = th2, phi2
    return {c: th[c] for c in fin}, phi


def exact_bound(blocks, c, up, phi, pen, tail):
    bl = [b for b in blocks if b[0] == c]

    def logp(t):
        L = 0.0
        for _, a, sp, w, d, l in bl:
            s = t + sp * pen - a
            ed = math.exp(phi + s / 2) if phi is not None else 0.0
            D = math.exp(s) + 1 + ed
            L += (w + d + l) * ((s if up else 0.0) - math.log(D))
        return L
    target = math.log(tail)
    lo, hi = -50.0, 50.0
    for _ in range(300):
        mid = (lo + hi) / 2
        # all wins: the chance rises with t; all losses: it falls
        if (logp(mid) < target) == up:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def strength(widths, keys, counts, pen, estimate):
    nw = len(widths)
    conds = {}
    blocks = []
    for k, (wi, anchor, black) in enumerate(keys):
        w, d, l = counts[k]
        if w + d + l > 0:
            blocks.append((wi, anchor * LOG, -1 if black else 1, w, d, l))
    R, bound, sat = [NAN] * nw, [NAN] * nw, ["empty"] * nw
    for wi in range(nw):
        n = sum(b[3] + b[4] + b[5] for b in blocks if b[0] == wi)
        w = sum(b[3] for b in blocks if b[0] == wi)
        l = sum(b[5] for b in blocks if b[0] == wi)
        sat[wi] = "empty" if n == 0 else "up" if w == n else "down" if l == n else "finite"
        conds[wi] = sat[wi]
    fin = [b for b in blocks if conds[b[0]] == "finite"]
    if not fin or not any(any(x[3] for x in fin if x[0] == c) and any(x[5] for x in fin if x[0] == c)
                          for c in conds):
        return R, bound, sat, True
    th, phi = davidson(blocks, conds, pen * LOG)
    for wi in th:
        R[wi] = th[wi] / LOG
    if estimate:
        for wi in range(nw):
            if sat[wi] in ("up", "down"):
                bound[wi] = exact_bound(blocks, wi, sat[wi] == "up", phi, pen * LOG, 0.025) / LOG
    return R, bound, sat, False


# ---------- the features ----------

def expand(pr):
    w = pr["widths"]
    out = []
    for b in ORDER:
        if b not in pr["features"]:
            continue
        if b in ("r_k", "delta_r", "oracle_regret"):
            out += [("%s[%d]" % (b, k), b, i) for i, k in enumerate(w) if k != 0]
        elif b in ("p_k_star", "pareto"):
            out += [("%s[%d]" % (b, k), b, i) for i, k in enumerate(w)]
        elif b == "slope":
            out += [("%s[%d]" % (b, k), b, i) for i, k in enumerate(w) if i > 0]
        elif b == "curvature":
            out += [("%s[%d]" % (b, k), b, i) for i, k in enumerate(w) if 0 < i < len(w) - 1]
        elif b == "blunder_hazard":
            out += [("%s[%s]" % (b, p), b, i) for i, p in enumerate(PHASES)]
        elif b == "failure_labels":
            out += [("%s[%s]" % (b, p), b, i) for i, p in enumerate(LABELS)]
        else:
            out.append((b, b, -1))
    return out


def add(t, s, k=1):
    for x in KEYS:
        t[x] += k * s[x]


def values(ctx, fp, m, estimate):
    pr, widths, feats = ctx["pr"], ctx["pr"]["widths"], ctx["feats"]
    nw = len(widths)
    budgets = pr["allocation"].get("budgets", [])
    P = {k: zero() for k in ("all", "none", "top", "omit", "propose", "engine-selects")}
    topk = [zero() for _ in widths]
    b_all, b_top, b_none = ([zero() for _ in budgets] for _ in range(3))
    for key in fp["cells"]:
        t = zero()
        for u, unit in enumerate(fp["units"]):
            if m[u] and unit["open"] is not None:
                add(t, ctx["cells"][key][unit["open"]], m[u])
        kind, k = cond_kind(key[2])
        b = budgets.index(key[3]) if key[3] in budgets else -1
        add(P["all"], t)
        if b >= 0:
            add(b_all[b], t)
        if kind == "none":
            add(P["none"], t)
            if b >= 0:
                add(b_none[b], t)
        elif kind == "top":
            add(P["top"], t)
            if k in widths:
                add(topk[widths.index(k)], t)
            if b >= 0:
                add(b_top[b], t)
        else:
            add(P[kind], t)
    keys = fp["keys"]
    counts = [[0, 0, 0] for _ in keys]
    games, tok = [0.0] * (nw + 1), [0.0] * (nw + 1)
    wall = hours = 0.0
    for u, unit in enumerate(fp["units"]):
        for g in unit["games"]:
            if g["key"] is not None:
                counts[g["key"]][g["res"]] += m[u]
            if g["width"] is not None:
                games[g["width"]] += m[u]
                tok[g["width"]] += m[u] * g["tok"]
            games[nw] += m[u]
            tok[nw] += m[u] * g["tok"]
            wall += m[u] * g["wall"]
            hours += m[u] * g["hours"]
    R, bound, sat, failed = strength(widths, keys, counts, fp["pen"], estimate)
    z = widths.index(0) if 0 in widths else None
    allfin = all(r == r for r in R)
    am = max(range(nw), key=lambda i: (R[i], -i)) if allfin else None

    def reg(s):
        return ratio(s["reg_nomate"], s["nomate"])

    def slope(i):
        return (R[i] - R[i - 1]) / (widths[i] - widths[i - 1])

    def pareto(i):
        ti = ratio(tok[i], games[i])
        for j in range(nw):
            tj = ratio(tok[j], games[j])
            if tj != tj or ti != ti:
                return NAN
            if j != i and R[j] >= R[i] and tj <= ti and (R[j] > R[i] or tj < ti):
                return 0.0
        return 1.0

    def auc():
        if z is None or nw < 2:
            return NAN
        mx = max(abs(R[i] - R[z]) for i in range(nw))
        if not mx > 0:
            return NAN
        a = sum((widths[i] - widths[i - 1]) * ((R[i] - R[z]) + (R[i - 1] - R[z])) / (2 * mx)
                for i in range(1, nw))
        return a / (widths[-1] - widths[0])

    lo = [b for b in range(len(budgets)) if b_all[b]["n"] > 0]
    a = P["all"]
    out = []
    for name, base, i in feats:
        v = NAN
        if base == "unaided":
            v = R[z] if z is not None else NAN
        elif base == "r_k":
            v = R[i]
        elif base == "delta_r":
            v = R[i] - R[z] if z is not None else NAN
        elif base == "k_star":
            v = widths[am] if allfin else NAN
        elif base == "p_k_star":
            v = float(am == i) if allfin else NAN
        elif base == "overload_2_10":
            v = R[widths.index(2)] - R[widths.index(10)] if 2 in widths and 10 in widths else NAN
        elif base == "slope":
            v = slope(i)
        elif base == "curvature":
            v = 2 * (slope(i + 1) - slope(i)) / (widths[i + 1] - widths[i - 1])
        elif base == "reversals":
            v = float(sum((R[j] - R[j - 1]) * (R[j - 1] - R[j - 2]) < 0 for j in range(2, nw))) if allfin else NAN
        elif base == "auc":
            v = auc() if allfin else NAN
        elif base == "pareto":
            v = pareto(i) if allfin else NAN
        elif base == "recall_unaided":
            v = ratio(P["none"]["recall"], P["none"]["n"])
        elif base == "coverage":
            v = ratio(P["propose"]["cov"], P["propose"]["ncov"])
        elif base == "oracle_regret":
            v = reg(topk[i])
        elif base == "chosen_rank":
            v = ratio(P["top"]["rank"], P["top"]["nrank"])
        elif base == "value_loss":
            v = ratio(P["top"]["vl"], P["top"]["nvl"])
        elif base == "omit_best":
            v = reg(P["omit"])
        elif base == "engine_selects":
            v = reg(P["engine-selects"]) - reg(P["top"])
        elif base == "order_change":
            v = ratio(a["differ"], a["pairs"])
        elif base == "regret_var_seeds":
            v = ratio(a["var"], a["nvar"])
        elif base == "illegal_rate":
            v = ratio(a["illegal"], a["n"])
        elif base == "tool_failure_rate":
            v = ratio(a["tool"], a["n"])
        elif base == "blunder_hazard":
            v = ratio(a["bk%d" % i], a["bn%d" % i])
        elif base == "history_vs_fresh":
            v = ratio(a["ctx_r1"], a["ctx_n1"]) - ratio(a["ctx_r0"], a["ctx_n0"])
        elif base == "failure_labels":
            v = ratio(a["f_" + LABELS[i]], sum(a["f_" + l] for l in LABELS))
        elif base == "tokens_per_decision":
            v = ratio(a["tok"], a["n"])
        elif base == "latency_per_decision":
            v = ratio(a["lat"], a["n"])
        elif base == "tokens_per_game":
            v = ratio(tok[nw], games[nw])
        elif base == "wall_per_game":
            v = ratio(wall, games[nw])
        elif base == "worker_hours_per_game":
            v = ratio(hours, games[nw])
        elif base in ("gain_per_1k_tokens", "width_x_budget") and len(lo) >= 2:
            f, l = lo[0], lo[-1]
            if base == "gain_per_1k_tokens":
                dt = (ratio(b_all[l]["ctok"], b_all[l]["n"]) - ratio(b_all[f]["ctok"], b_all[f]["n"])) / 1000
                v = (reg(b_all[f]) - reg(b_all[l])) / dt if dt != 0 else NAN
            else:
                v = (reg(b_top[f]) - reg(b_top[l])) - (reg(b_none[f]) - reg(b_none[l]))
        elif base == "retries_per_legal":
            v = ratio(a["retries"], a["ok"])
        if v != v or v in (float("inf"), float("-inf")):
            v = NAN
        out.append(v)
    bounds = {}
    if estimate:
        for name, base, i in feats:
            if base in ("r_k", "unaided", "delta_r"):
                j = z if base == "unaided" else i
                if j is not None and bound[j] == bound[j]:
                    shift = 0.0 if base != "delta_r" else R[z]
                    if shift == shift:
                        bounds[name] = ("lower" if sat[j] == "up" else "upper", bound[j] - shift)
    return out, bounds


def main():
    man = [json.loads(l) for l in open(sys.argv[1])]
    decs = {d["decision_id"]: d for d in map(json.loads, open(sys.argv[2]))}
    recs = {g["game_id"]: g for g in map(json.loads, open(sys.argv[3]))}
    freeze = json.load(open(sys.argv[4]))
    pr = json.load(open(sys.argv[5]))
    doc = json.load(open(sys.argv[6]))
    bad = [0]

    def fail(*a):
        bad[0] += 1
        if bad[0] <= 40:
            print(*a)

    # a split's fingerprint: the decisions on its positions, and the games
    # of the openings whose positions all lie in it
    split = doc.get("split", "all")
    split = None if split == "all" else split
    open_split = {}
    for p in man[1:]:
        open_split.setdefault(p["opening"], set()).add(p["split"])
    openings, cells, order = sums_of_decisions(man, decs, freeze, pr["blunder_cp"],
                                             pr["bootstrap"]["unit"] == "position", split)
    outside = 0
    widths = pr["widths"]
    feats = expand(pr)
    ctx = {"pr": pr, "feats": feats, "cells": cells}
    fps = {}
    for key in order:
        fp = fps.setdefault(key[:2], {"cells": [], "units": [], "keys": [], "ngames": 0})
        fp["cells"].append(key)
    for (fam, rep), fp in fps.items():
        for o in openings:
            if any(cells[k][o]["n"] > 0 for k in fp["cells"]):
                fp["units"].append({"name": o, "open": o, "games": []})
    for e in freeze["games"]:
        g = recs[e["game_id"]]
        if split is not None and open_split.get(g["opening"]) != {split}:
            outside += 1
            continue
        rep = g.get("replication")
        if rep is None:
            reps = [r for (f, r) in fps if f == g["family"]]
            rep = reps[0]
        fp = fps.setdefault((g["family"], rep), {"cells": [], "units": [], "keys": [], "ngames": 0})
        fp["ngames"] += 1
        c = g["condition"]
        k = 0 if c == "none" else int(c[3:]) if c.startswith("top") and c[3:].isdigit() else None
        wi = widths.index(k) if k in widths else None
        key = None
        if wi is not None:
            kk = (wi, float(g["anchor"]["elo"]), g["color"] == "black")
            if kk not in fp["keys"]:
                fp["keys"].append(kk)
            key = fp["keys"].index(kk)
        if pr["bootstrap"]["unit"] == "position":
            unit = None
        else:
            unit = next((u for u in fp["units"] if u["name"] == g["opening"]), None)
        if unit is None:
            unit = {"name": g["opening"], "open": None, "games": []}
            fp["units"].append(unit)
        t = g["tokens"]
        unit["games"].append({"key": key, "width": wi, "res": {"win": 0, "draw": 1, "loss": 2}[g["result"]],
                              "tok": t["input"] + t["output"] + t["reasoning"], "wall": g["wall_s"],
                              "hours": g["worker_hours"]})
    pen = freeze["spec"].get("black_penalty", 35)
    got = doc["fingerprints"]
    names = sorted(fps)
    if [(f["family"], f["replication"]) for f in got] != names:
        fail("fingerprints: want", names, "have", [(f["family"], f["replication"]) for f in got])
        sys.exit(1)
    B = doc["bootstrap"]
    R = B["replicates"]
    devs = {d["setting"]: d for d in doc["deviations"]}
    for k in ("replicates", "seed"):
        if B[k] != pr["bootstrap"][k] and devs.get("bootstrap." + k) != {
                "setting": "bootstrap." + k, "registered": str(pr["bootstrap"][k]), "used": str(B[k])}:
            fail("bootstrap", k, "differs from the prereg without its deviation", devs)
        if B[k] == pr["bootstrap"][k] and "bootstrap." + k in devs:
            fail("bootstrap", k, "a deviation where none is", devs)
    if doc.get("games_outside_split") != outside:
        fail("games_outside_split: want", outside, "have", doc.get("games_outside_split"))
    want_sp = [] if split is None or split in pr["allocation"]["splits"] else [
        {"setting": "split", "registered": ",".join(pr["allocation"]["splits"]), "used": split}]
    if [d for d in doc["deviations"] if d["setting"] == "split"] != want_sp:
        fail("split deviation", [d for d in doc["deviations"] if d["setting"] == "split"], want_sp)
    fz_prereg = [d for d in doc["deviations"] if d["setting"] == "freeze.prereg"]
    want_fz = [] if freeze.get("prereg") == doc["prereg"] else [
        {"setting": "freeze.prereg", "registered": doc["prereg"], "used": freeze.get("prereg", "none")}]
    if fz_prereg != want_fz:
        fail("freeze.prereg deviation", fz_prereg, want_fz)
    complete_min = None
    for (fam, rep), have in zip(names, got):
        fp = fps[(fam, rep)]
        fp["pen"] = pen
        est, bounds = values(ctx, fp, [1] * len(fp["units"]), True)
        hf = {x["name"]: x for x in have["features"]}
        if [x["name"] for x in have["features"]] != [f[0] for f in feats]:
            fail(fam, rep, "feature names", [x["name"] for x in have["features"]])
        if have["units"] != len(fp["units"]) or have["games"] != fp["ngames"]:
            fail(fam, rep, "units/games", have["units"], len(fp["units"]), have["games"], fp["ngames"])
        cols = []
        for (name, base, i), v in zip(feats, est):
            h = hf.get(name, {})
            step = STEP[base]
            if base == "p_k_star":
                cols.append(name)
                continue
            w = rnd(v, step)
            if (w is None) != (h.get("estimate") is None) or (w is not None and abs(w - h["estimate"]) > step / 2 + 1e-9):
                fail(fam, rep, name, "estimate want", w, "have", h.get("estimate"))
            if w is None and not h.get("reason"):
                fail(fam, rep, name, "a null without a reason")
            if name in bounds:
                bw = (bounds[name][0], rnd(bounds[name][1], step))
                bh = h.get("bound")
                if bh is None or bh["side"] != bw[0] or abs(bh["value"] - bw[1]) > 0.02:
                    fail(fam, rep, name, "bound want", bw, "have", bh)
            elif h.get("bound") is not None:
                fail(fam, rep, name, "a bound where none belongs", h["bound"])
            if w is not None:
                cols.append(name)
        if have["replicates"]["names"] != cols:
            fail(fam, rep, "row names", have["replicates"]["names"], cols)
            continue
        # every replicate drawn again
        rows = []
        n = len(fp["units"])
        ci = [[f[0] for f in feats].index(c) for c in cols]
        for r in range(R):
            st = stream(B["seed"], fnv(fam, rep), r)
            m = [0] * n
            for _ in range(n):
                st, u = below(st, n)
                m[u] += 1
            v, _ = values(ctx, fp, m, False)
            rows.append([rnd(v[j], STEP[feats[j][1]]) for j in ci])
        hrows = have["replicates"]["rows"]
        if len(hrows) != R:
            fail(fam, rep, "rows", len(hrows), "want", R)
            continue
        for r in range(R):
            for j, c in enumerate(cols):
                a, b = rows[r][j], hrows[r][j]
                step = STEP[c.split("[")[0]]
                if (a is None) != (b is None) or (a is not None and abs(a - b) > step * 1.01 + 1e-9):
                    fail(fam, rep, "replicate", r, c, "want", a, "have", b)
        # the summary, from the rows as written
        for j, c in enumerate(cols):
            h = hf[c]
            step = STEP[c.split("[")[0]]
            v = sorted(x[j] for x in hrows if x[j] is not None)
            want = {"finite": len(v)}
            if c.startswith("p_k_star"):
                want["estimate"] = rnd(sum(v) / len(v), step) if v else None
            else:
                mu = sum(v) / len(v) if v else 0
                want["se"] = sig(math.sqrt(sum((x - mu) ** 2 for x in v) / (len(v) - 1))) if len(v) >= 2 else None
                want["lo"] = rnd(quantile(v, 0.025), step) if v else None
                want["hi"] = rnd(quantile(v, 0.975), step) if v else None
            for k, w in want.items():
                # sums in another order may round the other way at a half
                tol = step * 1.01 + 1e-9 if k != "se" else abs(w or 0) * 1.01e-5 + 1e-12
                if (w is None) != (h.get(k) is None) or (w is not None and abs(w - h[k]) > tol):
                    fail(fam, rep, c, k, "want", w, "have", h.get(k))
        cn = [c for c in cols if not c.startswith("p_k_star")]
        if have["covariance"]["names"] != cn:
            fail(fam, rep, "covariance names", have["covariance"]["names"])
            continue
        idx = [cols.index(c) for c in cn]
        X = [[row[j] for j in idx] for row in hrows if all(row[j] is not None for j in idx)]
        if have["covariance"]["complete"] != len(X):
            fail(fam, rep, "complete", have["covariance"]["complete"], len(X))
        complete_min = len(X) if complete_min is None else min(complete_min, len(X))
        if len(X) >= 2:
            mu = [sum(x[a] for x in X) / len(X) for a in range(len(cn))]
            M = have["covariance"]["matrix"]
            for a in range(len(cn)):
                for b in range(len(cn)):
                    s = sum((x[a] - mu[a]) * (x[b] - mu[b]) for x in X) / (len(X) - 1)
                    if abs(sig(s) - M[a][b]) > abs(s) * 1.01e-5 + 1e-9 * math.sqrt(abs(M[a][a] * M[b][b])):
                        fail(fam, rep, "covariance", cn[a], cn[b], "want", sig(s), "have", M[a][b])
    if B["complete"] != (complete_min or 0):
        fail("bootstrap.complete", B["complete"], complete_min)
    if bad[0]:
        print(bad[0], "differences")
    sys.exit(1 if bad[0] else 0)


main()
