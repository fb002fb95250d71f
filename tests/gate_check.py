"""gate_check.py GATE-DOC [--prereg P] DOCUMENT...: judge the gate again,
from the rules of cohort-gate(1) written out anew, and compare with
GATE-DOC: each criterion's verdict and evidence, the inputs, the gate's
verdict, and for C3 the two held-out errors (least squares by hand).
Prints "ok" or what differs."""
import hashlib
import json
import math
import sys

def canon(o):
    return json.dumps(o, separators=(",", ":"), sort_keys=True, ensure_ascii=False)

# Documents are given as their canonical bytes (cohort writes them so, and
# the tests pass fixtures through cohort canon): an identity is the
# SHA-256 of the file.
ids = {}

def ident(o):
    return ids[id(o)]

def load(path):
    o = json.load(open(path))
    ids[id(o)] = "sha256:" + hashlib.sha256(open(path, "rb").read()).hexdigest()
    return o

args = sys.argv[1:]
gate = json.load(open(args[0]))
prereg = None
docs = []
i = 1
while i < len(args):
    if args[i] == "--prereg":
        prereg = json.load(open(args[i + 1])); i += 2
    else:
        docs.append(load(args[i])); i += 1
G = gate["gate"]
by = lambda k: [d for d in docs if d["kind"] == k]
res = {}     # id -> (verdict, evidence set)
numbers = []

def judge(cid, fails, gaps, checked, ev):
    res[cid] = ("fail" if fails else "insufficient" if gaps or not checked else "pass", set(ev))

if G == "A":
    fz = by("cohort.freeze/1")
    ev = [ident(f) for f in fz]
    judge("A1", sum(c["state"] != "terminal" for f in fz for c in f["conditions"]), 0, len(fz), ev)
    e2, e3, f2, f3, g2, c2 = list(ev), list(ev), 0, 0, 0, 0
    e4, f4, g4, c4 = list(ev), 0, 0, 0
    for f in fz:
        fid = ident(f)
        recs = [r for r in by("cohort.reconcile/1") if r["inputs"]["freeze"]["id"] == fid]
        if not recs:
            g2 += 1
        else:
            r = recs[0]
            e2.append(ident(r)); e3.append(ident(r)); c2 += 1
            pe = sum(x["reason"] == "provider_error" for x in f["excluded"])
            f2 += r["totals"]["provider_error_games"] != pe
            f3 += r["reconciled"] is not True
        fits = [t for t in by("cohort.fit/1") if t["input"] == fid]
        if not fits:
            g4 += 1
            continue
        e4.append(ident(fits[0])); c4 += 1
        for c in fits[0]["conditions"]:
            if c["games"] <= 0:
                continue
            if c["w"] == c["games"] or c["l"] == c["games"]:
                f4 += not (c["rating"] is None and isinstance(c["bound"], dict))
            else:
                f4 += not isinstance(c["rating"], (int, float))
    judge("A2", f2, g2, c2, e2)
    judge("A3", f3, g2, c2, e3)
    judge("A4", f4, g4, c4, e4)
elif G == "B":
    pd = by("cohort.paired/1")
    ev = [ident(p) for p in pd]
    cands = {p.get("candidates") for p in pd}
    f1 = len(cands) > 1 or None in cands
    e1, c1 = list(ev), 0
    cand = pd[0].get("candidates") if pd else None
    for r in by("cohort.verify/1"):
        if any(s.get("id") == cand and s.get("kind") == "cohort.candidates/1" for s in r["subject"]):
            e1.append(ident(r)); c1 += 1
            f1 = f1 or r["ok"] is not True
    judge("B1", f1, cand is not None and c1 == 0, c1, e1)
    units = {}
    for p in pd:
        for c in p["cells"]:
            units.setdefault((c["family"], c["replication"]), []).append((c["condition"], canon(c["budget"]), c["decisions"]))
    fams = {f for f, _ in units}
    vals = [sorted(v) for v in units.values()]
    judge("B2", len(fams) >= 2 and any(v != vals[0] for v in vals), len(fams) == 1, len(fams) >= 2, ev)
    cells = [c for p in pd for c in p["cells"]]
    def topk(c):
        return c.startswith("top") and c[3:].isdigit() and int(c[3:]) >= 2
    def est(c, f):   # both statistics of a factor: a number and a two-ended interval
        x = (c.get("effects") or {}).get(f)
        return isinstance(x, dict) and all(
            isinstance((x.get(s) or {}).get("estimate"), (int, float)) and
            isinstance((x.get(s) or {}).get("interval"), list) and len(x[s]["interval"]) == 2
            for s in ("recall", "regret"))
    gap = any(not est(c, f) for c in cells for f in ("colour", "phase", "stratum")) or \
        any(topk(c["condition"]) and not (isinstance(c["order"]["change_probability"], (int, float)) and est(c, "order"))
            for c in cells)
    judge("B3", 0, gap, len(cells), ev)
    nn = [c for c in cells if c["condition"] != "none"]
    judge("B4", sum(c.get("coverage") is None or c.get("value_loss") is None for c in nn), 0, len(nn), ev)
else:
    fps = by("cohort.fingerprint/1")
    def feat(e, name):
        for f in e["features"]:
            if f["name"] == name:
                return f if isinstance(f.get("estimate"), (int, float)) else None
        return None
    def chi2_q95(p):   # bisection on the cdf, by the series of the lower incomplete gamma
        def cdf(x):
            a, s, term, k = p / 2, 0, 1 / (p / 2), 0
            while term > 1e-18 * s or k < 5:
                s += term; k += 1; term *= (x / 2) / (a + k)
            return s * math.exp(a * math.log(x / 2) - x / 2 - math.lgamma(a))
        lo, hi = 0.0, 10.0 * p + 100
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if cdf(mid) < 0.95 else (lo, mid)
        return lo
if G == "C":
    ds = by("cohort.distance/1")
    ev = [ident(d) for d in ds]
    f1 = g1 = c1 = 0
    for d in ds:
        q = chi2_q95(len(d["features"]))
        have = {t["family"] for t in d["test_retest"]}
        for t in d["test_retest"]:
            c1 += 1
            if t["d2"] is None:   # a family of one replication: no test-retest distance
                g1 += 1
            else:
                f1 += t["d2"] > q
        for p in d["pairs"]:
            if p["a"]["family"] == p["b"]["family"] and p["a"]["replication"] == p["b"]["replication"]:
                c1 += 1; f1 += p["d2"] > q
            g1 += (p["a"]["family"] not in have) + (p["b"]["family"] not in have)
    judge("C1", f1, g1 or (not c1 and ds), c1, ev)
    seps = [s for d in ds for s in d["separation"]]
    judge("C2", sum(s["exceeds"] is False for s in seps), sum(not isinstance(s["exceeds"], bool) for s in seps), len(seps), ev)
    def side(held, name):
        v = {}
        for fp in fps:
            if fp.get("split") in (None, "all") or (fp["split"] == "heldout") != held:
                continue
            for e in fp["fingerprints"]:
                f = feat(e, name)
                if f is not None:
                    v.setdefault(e["family"], []).append(f["estimate"])
        return {k: sum(x) / len(x) for k, x in v.items()}
    def solve(a, b):
        n = len(b)
        m = [row[:] + [b[i]] for i, row in enumerate(a)]
        for c in range(n):
            piv = max(range(c, n), key=lambda r: abs(m[r][c]))
            if abs(m[piv][c]) < 1e-12: return None
            m[c], m[piv] = m[piv], m[c]
            for r in range(n):
                if r != c:
                    fct = m[r][c] / m[c][c]
                    m[r] = [x - fct * y for x, y in zip(m[r], m[c])]
        return [m[i][n] / m[i][i] for i in range(n)]
    def loo(target, names):
        y = side(True, target)
        xs = [side(False, n) for n in names]
        fam = [f for f in y if all(f in x for x in xs)]
        if len(fam) < len(names) + 3: return None
        sse = 0
        for out in fam:
            rows = [[1] + [x[f] for x in xs] for f in fam if f != out]
            ys = [y[f] for f in fam if f != out]
            q = len(names) + 1
            a = [[sum(r[i] * r[j] for r in rows) for j in range(q)] for i in range(q)]
            b = [sum(r[i] * yy for r, yy in zip(rows, ys)) for i in range(q)]
            beta = solve(a, b)
            if beta is None: return None
            pred = beta[0] + sum(bb * x[out] for bb, x in zip(beta[1:], xs))
            sse += (y[out] - pred) ** 2
        return sse / len(fam)
    preds = [p for p in (prereg or {}).get("predictions", []) if isinstance(p, dict) and p["kind"] == "heldout_assistance"]
    f3 = g3 = c3 = 0
    ev3 = set()
    for p in preds:
        mf, mb = loo(p["target"], p["predictors"]), loo(p["target"], p["baseline"])
        ev3 |= {ident(fp) for fp in fps if fp.get("split") not in (None, "all")}
        if mf is None or mb is None:
            g3 += 1; continue
        c3 += 1
        numbers.append((mf, mb))
        f3 += not mf < mb
    judge("C3", f3, g3 or not preds, c3, ev3)
if G == "D":
    allp = (prereg or {}).get("predictions", [])
    # a text prediction is listed, never judged
    texts = [{"index": i, "text": p} for i, p in enumerate(allp) if isinstance(p, str)]
    preds = [p for p in allp if isinstance(p, dict)]
    held = [fp for fp in fps if fp.get("split") == "heldout"]
    ents = lambda fam: [e for fp in held for e in fp["fingerprints"] if e["family"] == fam]
    ev = [ident(fp) for fp in held]
    out = {"architectural": [0, 0, 0], "intervention": [0, 0, 0]}
    for p in preds:
        if p["kind"] == "architectural":
            x, y = ents(p["family"]), ents(p["family2"])
            o = out["architectural"]
            if not x or not y: o[1] += 1; continue
            fx = [feat(e, p["feature"]) for e in x]; fy = [feat(e, p["feature"]) for e in y]
            if None in fx + fy or any(f.get("lo") is None or f.get("hi") is None for f in fx + fy): o[1] += 1; continue
            ok = all((a["lo"] > b["hi"]) if p["relation"] == ">" else (a["hi"] < b["lo"]) for a in fx for b in fy)
            o[0 if not ok else 2] += 1
        elif p["kind"] == "intervention":
            x = ents(p["family"]); o = out["intervention"]
            if not x: o[1] += 1; continue
            ft = [feat(e, p["target"]) for e in x]; fc = [feat(e, p["control"]) for e in x]
            if None in ft + fc or any(f.get("lo") is None for f in ft + fc): o[1] += 1; continue
            ok = all(f["lo"] > 0 for f in ft) and all(f["lo"] > 0 for f in fc)
            o[0 if not ok else 2] += 1
    for cid, k in (("D1", "architectural"), ("D2", "intervention")):
        f, g, c = out[k]
        judge(cid, f, g or prereg is None or (f + g + c == 0), c, ev if f + g + c else [])
bad = []
if G == "D" and prereg is not None and gate.get("text_predictions") != texts:
    bad.append("text_predictions: computed %r, document %r" % (texts, gate.get("text_predictions")))
if G != "D" or prereg is None:
    if "text_predictions" in gate:
        bad.append("text_predictions outside gate D with a prereg")
got = {c["id"]: (c["verdict"], set(c["evidence"])) for c in gate["criteria"]}
for cid in sorted(set(res) | set(got)):
    if res.get(cid) != got.get(cid):
        bad.append("%s: computed %s, document %s" % (cid, res.get(cid), got.get(cid)))
pid = None
if prereg is not None:
    pid = "sha256:" + hashlib.sha256(canon(prereg).encode()).hexdigest()
FOLLOWS = ("cohort.freeze/1", "cohort.paired/1", "cohort.fingerprint/1", "cohort.distance/1")
other = lambda d: pid is not None and d["kind"] in FOLLOWS and d.get("prereg") != pid
def paired_off(d):
    """a paired document whose bootstrap or blunder_cp is not the prereg's"""
    if prereg is None or d["kind"] != "cohort.paired/1":
        return False
    o, b = d.get("options", {}), prereg.get("bootstrap", {})
    return (o.get("replicates"), o.get("seed"), o.get("blunder_cp")) != \
        (b.get("replicates"), b.get("seed"), prereg.get("blunder_cp", 300))
devs = sum(1 for d in docs if other(d) or paired_off(d) or d.get("deviations"))
if devs != len(gate["deviations"]):
    bad.append("deviations: computed %d, document %d" % (devs, len(gate["deviations"])))
want = "fail" if any(v == "fail" for v, _ in res.values()) or devs else \
    "insufficient" if any(v == "insufficient" for v, _ in res.values()) else "pass"
if gate["verdict"] != want:
    bad.append("verdict: computed %s, document %s" % (want, gate["verdict"]))
if gate["inputs"] != sorted(({"id": ident(d), "kind": d["kind"]} for d in docs), key=lambda x: (x["kind"], x["id"])):
    bad.append("inputs differ")
for mf, mb in numbers:
    c3 = [c for c in gate["criteria"] if c["id"] == "C3"][0]["detail"]
    fmt = lambda x: ("%.6f" % x).rstrip("0").rstrip(".")
    if "error %s" % fmt(mf) not in c3 or "baseline's %s" % fmt(mb) not in c3:
        bad.append("C3 errors %s %s not in %r" % (fmt(mf), fmt(mb), c3))
print("ok" if not bad else "; ".join(bad))
