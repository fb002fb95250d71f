#!/usr/bin/env python3
"""dist_check.py FINGERPRINT... DISTANCE: compute every figure of a
cohort.distance/1 again from its fingerprint documents, independently of
the C code: the shared features, the scales (panel spread, else root mean
bootstrap variance, else 1, to six digits), the panel covariance, each
pair's d2 through a Cholesky factor written again, its replicates paired by
index and their percentile interval, tr(M^-1 (Si + Sj)), the component
distances, test-retest and separation.  Exit 1 on any difference."""
import json
import math
import sys

LABELS = ["state", "tactic", "value", "plan", "memory", "interface"]
NAN = float("nan")


def rnd(x, step):
    if x is None or x != x:
        return None
    r = math.floor(abs(x) / step + 0.5) * step
    r = -r if x < 0 else r
    return 0.0 if r == 0 else float("%.12g" % r)


def sig(x):
    return rnd(x, 10 ** (math.floor(math.log10(abs(x))) - 5)) if x else x


def quantile(v, q):
    h = (len(v) - 1) * q
    lo = math.floor(h)
    if lo + 1 >= len(v):
        return v[-1]
    return v[lo] + (h - lo) * (v[lo + 1] - v[lo])


def interval(v):
    v = sorted(v)
    return (quantile(v, 0.025), quantile(v, 0.975)) if v else (None, None)


def cholesky(A):
    n = len(A)
    L = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            s = A[i][j] - sum(L[i][k] * L[j][k] for k in range(j))
            if i == j:
                if s <= 0:
                    raise ValueError("not positive definite")
                L[i][i] = math.sqrt(s)
            else:
                L[i][j] = s / L[j][j]
    return L


def fsolve(L, b):
    y = []
    for i in range(len(b)):
        y.append((b[i] - sum(L[i][k] * y[k] for k in range(i))) / L[i][i])
    return y


def bsolve(L, y):
    n = len(y)
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - sum(L[k][i] * x[k] for k in range(i + 1, n))) / L[i][i]
    return x


def main():
    docs = [json.load(open(p)) for p in sys.argv[1:-1]]
    have = json.load(open(sys.argv[-1]))
    bad = [0]

    def fail(*a):
        bad[0] += 1
        if bad[0] <= 40:
            print(*a)

    def near(name, w, h, step):
        if (w is None) != (h is None) or (w is not None and abs(w - h) > step * 1.01 + 1e-9 * abs(w)):
            fail(name, "want", w, "have", h)

    fps = [fp for d in docs for fp in d["fingerprints"]]
    # a fingerprint's split, from its document (all, or none named: no split)
    splits = [d.get("split") for d in docs for fp in d["fingerprints"]]
    splits = [None if s == "all" else s for s in splits]
    names = [(fp["family"], fp["replication"], s) for fp, s in zip(fps, splits)]
    if len(set(names)) != len(names):
        fail("a fingerprint given twice, yet the document was written")

    def who(i):
        w = {"family": fps[i]["family"], "replication": fps[i]["replication"]}
        if splits[i] is not None:
            w["split"] = splits[i]
        return w
    if have["fingerprints"] != [who(i) for i in range(len(fps))]:
        fail("fingerprints", have["fingerprints"])
    R = docs[0]["bootstrap"]["replicates"]
    lam = docs[0]["distance"]["lambda"]
    pop = docs[0]["distance"]["population"]
    cn = [set(fp["covariance"]["names"]) for fp in fps]
    feats = [n for n in fps[0]["covariance"]["names"] if all(n in c for c in cn)]
    if have["features"] != feats:
        fail("features", have["features"], feats)
        sys.exit(1)
    F, N = len(feats), len(fps)

    def est(fp, n):
        for x in fp["features"]:
            if x["name"] == n:
                return x
        return {}

    def col(fp, n):
        names = fp["replicates"]["names"]
        if n not in names:
            return [None] * R
        j = names.index(n)
        return [row[j] for row in fp["replicates"]["rows"]]

    Z = [[est(fp, n)["estimate"] for n in feats] for fp in fps]
    S = []
    for fp in fps:
        names, M = fp["covariance"]["names"], fp["covariance"]["matrix"]
        S.append([[M[names.index(a)][names.index(b)] for b in feats] for a in feats])
    rows = [[col(fp, n) for n in feats] for fp in fps]
    scales = []
    for a in range(F):
        m = sum(Z[i][a] for i in range(N)) / N
        v = sum(S[i][a][a] for i in range(N)) / N
        s = math.sqrt(sum((Z[i][a] - m) ** 2 for i in range(N)) / (N - 1)) if pop == "panel" and N >= 2 else 0
        if not s > 0:
            s = math.sqrt(v)
        scales.append(sig(s) if s > 0 else 1)
    for a in range(F):
        near("scale " + feats[a], scales[a], have["scales"][a], abs(scales[a]) * 1e-6)
    z = [[Z[i][a] / scales[a] for a in range(F)] for i in range(N)]
    zr = [[[None if rows[i][a][r] is None else rows[i][a][r] / scales[a] for a in range(F)] for r in range(R)]
          for i in range(N)]
    Si = [[[S[i][a][b] / (scales[a] * scales[b]) for b in range(F)] for a in range(F)] for i in range(N)]
    Sp = [[0.0] * F for _ in range(F)]
    if pop == "panel" and N >= 2:
        mu = [sum(z[i][a] for i in range(N)) / N for a in range(F)]
        Sp = [[sum((z[i][a] - mu[a]) * (z[i][b] - mu[b]) for i in range(N)) / (N - 1) for b in range(F)]
              for a in range(F)]
    # the component features
    widths = [int(x["name"][8:-1]) for x in fps[0]["features"] if x["name"].startswith("delta_r[")]
    cnames = ["delta_r[%d]" % k for k in widths] + ["failure_labels[%s]" % l for l in LABELS] + \
        ["order_change", "tokens_per_decision", "latency_per_decision", "engine_selects"]
    cx = [[est(fp, n).get("estimate") for n in cnames] for fp in fps]
    cse = [[est(fp, n).get("se") for n in cnames] for fp in fps]
    crow = [list(zip(*[col(fp, n) for n in cnames])) if R else [] for fp in fps]
    L = len(widths)

    def comp(c, i, j, a, b):
        if any(x is None for x in a) and c != "k_curve" and False:
            return None
        if c == "k_curve":
            if not widths:
                return None
            s, pk, ps = 0.0, 0, 0.0
            for k in range(L):
                v = (cse[i][k] or 0) ** 2 + (cse[j][k] or 0) ** 2 if cse[i][k] is not None and cse[j][k] is not None else None
                if a[k] is None or b[k] is None or not v:
                    return None
                t = (a[k] - b[k]) ** 2 / v
                s += (widths[k] - pk) * (t + ps) / 2
                pk, ps = widths[k], t
            return math.sqrt(s / pk) if pk > 0 else None
        if c == "failure_js":
            js = 0.0
            for l in range(6):
                p, q = a[L + l], b[L + l]
                if p is None or q is None:
                    return None
                m = (p + q) / 2
                if p > 0:
                    js += p * math.log2(p / m) / 2
                if q > 0:
                    js += q * math.log2(q / m) / 2
            return math.sqrt(max(js, 0))
        k = {"order": 0, "log_tokens": 1, "log_latency": 2, "proposal_selection": 3}[c]
        x, y = a[L + 6 + k], b[L + 6 + k]
        if x is None or y is None:
            return None
        if c in ("log_tokens", "log_latency"):
            return abs(math.log(x / y)) if y and x / y > 0 else None
        return abs(x - y)

    pairs = {}
    hp = have["pairs"]
    k = 0
    for i in range(N):
        for j in range(i + 1, N):
            M = [[Sp[a][b] + Si[i][a][b] + Si[j][a][b] + (lam if a == b else 0) for b in range(F)] for a in range(F)]
            Lc = cholesky(M)
            dz = [z[i][a] - z[j][a] for a in range(F)]
            d2 = sum(y * y for y in fsolve(Lc, dz))
            nm = 0.0
            for c in range(F):
                e = [Si[i][a][c] + Si[j][a][c] for a in range(F)]
                nm += bsolve(Lc, fsolve(Lc, e))[c]
            d2r = []
            for r in range(R):
                u, v = zr[i][r], zr[j][r]
                if None in u or None in v:
                    d2r.append(None)
                else:
                    d2r.append(sum(y * y for y in fsolve(Lc, [u[a] - v[a] for a in range(F)])))
            pairs[(i, j)] = (d2, d2r)
            h = hp[k]
            k += 1
            nm_ = "pair %s/%s %s/%s" % (fps[i]["family"], fps[i]["replication"], fps[j]["family"], fps[j]["replication"])
            if h["a"] != who(i) or h["b"] != who(j):
                fail(nm_, "order", h["a"])
            near(nm_ + " d2", rnd(d2, 1e-6), h["d2"], 1e-6)
            near(nm_ + " null_mean", rnd(nm, 1e-6), h["null_mean"], 1e-6)
            ok = [x for x in d2r if x is not None]
            lo, hi = interval(ok)
            near(nm_ + " lo", rnd(lo, 1e-6), h["lo"], 1e-6)
            near(nm_ + " hi", rnd(hi, 1e-6), h["hi"], 1e-6)
            if h["replicates"] != len(ok):
                fail(nm_, "replicates", h["replicates"], len(ok))
            for c in ("k_curve", "failure_js", "order", "log_tokens", "log_latency", "proposal_selection"):
                step = 0.01 if c == "proposal_selection" else 1e-6
                e = comp(c, i, j, cx[i], cx[j])
                hc = h["components"][c]
                near(nm_ + " " + c, rnd(e, step), hc["estimate"], step)
                if e is None:
                    if not hc.get("reason"):
                        fail(nm_, c, "null without a reason")
                    continue
                v = [x for x in (comp(c, i, j, crow[i][r], crow[j][r]) for r in range(R)) if x is not None]
                lo, hi = interval(v)
                near(nm_ + " " + c + " lo", rnd(lo, step), hc["lo"], step)
                near(nm_ + " " + c + " hi", rnd(hi, step), hc["hi"], step)
    fams = []
    for fp in fps:
        if fp["family"] not in fams:
            fams.append(fp["family"])

    def mean_d2(fa, fb, r):
        v = []
        for (i, j), (d2, d2r) in pairs.items():
            x, y = fps[i]["family"], fps[j]["family"]
            if (x, y) == (fa, fb) or (x, y) == (fb, fa):
                v.append(d2 if r is None else d2r[r])
        if not v or None in v:
            return None
        return sum(v) / len(v)

    for f, h in zip(fams, have["test_retest"]):
        w = mean_d2(f, f, None)
        near("retest " + f, rnd(w, 1e-6), h["d2"], 1e-6)
        v = [x for x in (mean_d2(f, f, r) for r in range(R)) if x is not None] if w is not None else []
        lo, hi = interval(v)
        near("retest " + f + " lo", rnd(lo, 1e-6), h["lo"], 1e-6)
        near("retest " + f + " hi", rnd(hi, 1e-6), h["hi"], 1e-6)
    k = 0
    for a in range(len(fams)):
        for b in range(a + 1, len(fams)):
            h = have["separation"][k]
            k += 1
            fa, fb = fams[a], fams[b]
            wa, wb, bt = mean_d2(fa, fa, None), mean_d2(fb, fb, None), mean_d2(fa, fb, None)
            near("between %s %s" % (fa, fb), rnd(bt, 1e-6), h["between"], 1e-6)
            near("within a", rnd(wa, 1e-6), h["within_a"], 1e-6)
            near("within b", rnd(wb, 1e-6), h["within_b"], 1e-6)
            n = le = 0
            for r in range(R if wa is not None and wb is not None else 0):
                x, y, z_ = mean_d2(fa, fb, r), mean_d2(fa, fa, r), mean_d2(fb, fb, r)
                if None in (x, y, z_):
                    continue
                n += 1
                le += x <= max(y, z_)
            p = le / n if n else None
            near("separation p %s %s" % (fa, fb), rnd(p, 1e-6), h["p"], 1e-6)
            ex = None if p is None else bool(bt > max(wa, wb) and p < 0.05)
            if ex != h["exceeds"]:
                fail("separation exceeds", fa, fb, ex, h["exceeds"])
    if bad[0]:
        print(bad[0], "differences")
    sys.exit(1 if bad[0] else 0)


main()
