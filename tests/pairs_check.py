#!/usr/bin/env python3
"""pairs_check.py: a second implementation of cohort fit --pairs.

usage: pairs_check.py FREEZE FIT

From the freeze's games alone: the joint Davidson maximum (Newton steps on
numerical derivatives of the log-likelihood, from the fit's rounded
values), the observed information as the numerical Hessian of the
log-likelihood, each cluster's score as the numerical gradient of its own
log-likelihood (a cluster: a whole colour-reversed pair, or a game alone),
the CR1 sandwich G/(G-1) J^-1 (sum u u^T) J^-1 by dense Gauss-Jordan
inversion, and the pentanomial counts and standard errors counted from the
games.  Compares each number with the fit document; prints what differs
and exits 1, or exits 0.  Nothing here shares code or formulas for
derivatives with fit/pairs.c.
"""
import json
import math
import statistics
import sys

LOG = math.log(10) / 400
Z = statistics.NormalDist().inv_cdf


def loglik_game(theta, phi, pen, g):
    s = theta + (-pen if g["black"] else pen) - g["anchor"] * LOG
    nu = math.exp(phi) if phi is not None else 0.0
    # log of each outcome's chance, P = e^{v_i} / sum e^{v_j}
    v = [0.0, (phi + s / 2) if phi is not None else -math.inf, s]  # loss, draw, win
    m = max(v)
    lse = m + math.log(sum(math.exp(x - m) for x in v if x != -math.inf))
    return v[g["r"]] - lse


def solve(A, b):
    n = len(A)
    M = [row[:] + [b[i]] for i, row in enumerate(A)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(M[r][c]))
        M[c], M[p] = M[p], M[c]
        for r in range(n):
            if r != c:
                f = M[r][c] / M[c][c]
                for k in range(c, n + 1):
                    M[r][k] -= f * M[c][k]
    return [M[i][n] / M[i][i] for i in range(n)]


def inverse(A):
    n = len(A)
    cols = [solve(A, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    return [[cols[j][i] for j in range(n)] for i in range(n)]


def main():
    frz, fit = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
    conds = fit["conditions"]
    key = lambda f, c: (f or "", c)
    unit = {key(c.get("family"), c["condition"]): i for i, c in enumerate(conds)}
    games = []
    for g in frz["games"]:
        games.append({"id": g["game_id"], "u": unit[key(g.get("family"), g["condition"])],
                      "anchor": g["anchor"], "black": g["color"] == "black",
                      "r": {"loss": 0, "draw": 1, "win": 2}[g["result"]],
                      "pair": g.get("pair"), "opening": g.get("opening")})
    byid = {g["id"]: g for g in games}

    def whole(a, b):
        return (b is not None and b["pair"] == a["id"] and a["u"] == b["u"] and a["anchor"] == b["anchor"]
                and a["black"] != b["black"] and a["opening"] is not None and a["opening"] == b["opening"])

    clusters, seen = [], set()
    for g in sorted(games, key=lambda g: g["id"]):
        if g["id"] in seen:
            continue
        b = byid.get(g["pair"]) if g["pair"] else None
        if b is not None and whole(g, b) and whole(b, g):
            clusters.append([g, b])
            seen.update((g["id"], b["id"]))
        else:
            clusters.append([g])
            seen.add(g["id"])
    bad = []
    # the parameters: finite ratings, ln nu (when something was drawn), the penalty
    act = [i for i, c in enumerate(conds) if c["status"] == "finite"]
    has_phi = fit["draw"]["nu"] > 0
    est = fit["black_penalty"]["estimated"]
    x0 = [conds[i]["rating"] * LOG for i in act]
    if has_phi:
        x0.append(math.log(fit["draw"]["nu"]))
    if est:
        x0.append(fit["black_penalty"]["value"] * LOG)
    fixed_pen = fit["black_penalty"]["value"] * LOG
    pos = {u: k for k, u in enumerate(act)}

    def unpack(x):
        phi = x[len(act)] if has_phi else None
        pen = x[-1] if est else fixed_pen
        return phi, pen

    def L(x, gs):
        phi, pen = unpack(x)
        return math.fsum(loglik_game(x[pos[g["u"]]], phi, pen, g) for g in gs if g["u"] in pos)

    allg = [g for g in games if g["u"] in pos]
    n = len(x0)

    def grad(x, gs, h=1e-5):
        out = []
        for i in range(n):
            a, b = x[:], x[:]
            a[i] += h
            b[i] -= h
            out.append((L(a, gs) - L(b, gs)) / (2 * h))
        return out

    def hess(x, h=1e-3):
        H = [[0.0] * n for _ in range(n)]
        for i in range(n):
            for j in range(i, n):
                v = 0.0
                for si, sj, w in ((1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1)):
                    y = x[:]
                    y[i] += si * h
                    y[j] += sj * h
                    v += w * L(y, allg)
                H[i][j] = H[j][i] = v / (4 * h * h)
        return H

    x = x0[:]
    for _ in range(4):  # polish the rounded values: Newton on numerical derivatives
        step = solve([[-v for v in row] for row in hess(x)], grad(x, allg))
        x = [a + b for a, b in zip(x, step)]
    for k, u in enumerate(act):
        if abs(x[k] / LOG - conds[u]["rating"]) > 0.02:
            bad.append("rating %s: %s, here %.4f" % (conds[u]["condition"], conds[u]["rating"], x[k] / LOG))
    J = [[-v for v in row] for row in hess(x)]
    A = inverse(J)
    us = [grad(x, cl) for cl in clusters if any(g["u"] in pos for g in cl)]
    G = len(us)
    B = [[math.fsum(u[i] * u[j] for u in us) for j in range(n)] for i in range(n)]
    V = [[G / (G - 1) * math.fsum(A[i][a] * B[a][b] * A[b][j] for a in range(n) for b in range(n))
          for j in range(n)] for i in range(n)]
    z = Z(0.5 + 0.5 * fit["options"]["level"])
    for k, u in enumerate(act):
        c = conds[u]
        lo, hi = x[k] - z * math.sqrt(V[k][k]), x[k] + z * math.sqrt(V[k][k])
        if abs(lo / LOG - c["pair_interval"][0]) > 0.05 or abs(hi / LOG - c["pair_interval"][1]) > 0.05:
            bad.append("pair_interval %s: %s, here [%.3f, %.3f]" % (c["condition"], c["pair_interval"], lo / LOG, hi / LOG))
        de = V[k][k] / A[k][k]
        if abs(de - c["design_effect"]) > 2e-4:
            bad.append("design_effect %s: %s, here %.6f" % (c["condition"], c["design_effect"], de))
    pp = fit["pairs"]
    if est:
        v = V[n - 1][n - 1]
        want = [(x[-1] - z * math.sqrt(v)) / LOG, (x[-1] + z * math.sqrt(v)) / LOG]
        got = pp["black_penalty"]["pair_interval"]
        if max(abs(a - b) for a, b in zip(want, got)) > 0.05:
            bad.append("penalty pair_interval %s, here %s" % (got, want))
    if has_phi:
        k = len(act)
        want = [math.exp(x[k] - z * math.sqrt(V[k][k])), math.exp(x[k] + z * math.sqrt(V[k][k]))]
        got = pp["draw"]["pair_interval"]
        if max(abs(a - b) for a, b in zip(want, got)) > 2e-5:
            bad.append("nu pair_interval %s, here %s" % (got, want))
    # counts and the pentanomial
    npairs = sum(len(cl) == 2 for cl in clusters)
    if (pp["pairs"], pp["alone"], pp["clusters"]) != (npairs, len(clusters) - npairs, len(clusters)):
        bad.append("counts %s, here %s" % ((pp["pairs"], pp["alone"], pp["clusters"]),
                                          (npairs, len(clusters) - npairs, len(clusters))))
    cells = {}
    for cl in clusters:
        if len(cl) != 2:
            continue
        k = (cl[0]["u"], cl[0]["anchor"])
        cells.setdefault(k, []).append(cl)
    got = {(unit[key(p.get("family"), p["condition"])], p["anchor"]): p for p in pp["pentanomial"]}
    if set(got) != set(cells):
        bad.append("pentanomial cells %s, here %s" % (sorted(got), sorted(cells)))
    for k, cls in cells.items():
        pts = [sum(g["r"] for g in cl) for cl in cls]   # half points: 0..4
        counts = [pts.count(i) for i in range(5)]
        N = len(cls)
        per_pair = [p / 4 for p in pts]
        per_game = [g["r"] / 2 for cl in cls for g in cl]
        mu = sum(per_pair) / N
        sep = math.sqrt(sum((r - mu) ** 2 for r in per_pair) / N / N)
        set_ = math.sqrt(sum((r - mu) ** 2 for r in per_game) / (2 * N) / (2 * N))
        p = got.get(k)
        if p is None:
            continue
        if p["counts"] != counts or p["pairs"] != N:
            bad.append("pentanomial %s: %s, here %s" % (k, p["counts"], counts))
        for name, want in (("score", mu), ("se_pentanomial", sep), ("se_trinomial", set_)):
            if abs(p[name] - want) > 1.5e-6:
                bad.append("%s %s: %s, here %.7f" % (name, k, p[name], want))
    print("\n".join(bad) if bad else "pairs_check: %d parameters, %d clusters, %d pentanomial cells agree" %
          (n, G, len(cells)))
    sys.exit(1 if bad else 0)


main()
