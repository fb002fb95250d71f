"""prereg_dev.py PREREG SPEC FREEZE [--ledger L]... [--decisions D]... [--candidates C]:
the deviations a freeze that follows PREREG must list, computed again from
the raw inputs (docs/design.md, "Preregistration"), printed as canonical
JSON.  Which decisions the freeze left out, and why, is taken from FREEZE
(legality is the freeze's own business, tested elsewhere); every rule of a
deviation is computed here."""
import hashlib
import json
import sys
from datetime import datetime

def t(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00").replace("z", "+00:00"))

args = sys.argv[1:]
prereg, spec, freeze = (json.load(open(a)) for a in args[:3])
ledgers, decs, cand = [], [], None
i = 3
while i < len(args):
    if args[i] == "--ledger": ledgers.append(args[i + 1])
    elif args[i] == "--decisions": decs.append(args[i + 1])
    elif args[i] == "--candidates": cand = args[i + 1]
    i += 2
reg = t(prereg["registered_at"])
exc = prereg["exclusions"]
out = []

def dev(setting, registered, used):
    out.append({"setting": setting, "registered": registered, "used": used})

def width(c):
    if c == "none": return 0
    if c.startswith("top") and c[3:].isdigit() and c[3] != "0": return int(c[3:])
    return None

def wtext(ws):
    return ", ".join(str(w) for w in sorted(ws)) or "none"

def exclusions(counts, order, unit):
    for r in order:
        n = counts.get(r, 0)
        if n and r not in exc:
            dev("exclusions", ", ".join(exc) or "none", "%s: %d %s%s" % (r, n, unit, "" if n == 1 else "s"))

# games
games = sorted((json.loads(l) for f in ledgers for l in open(f) if l.strip()), key=lambda g: g["game_id"].encode())
cut = t(spec["as_of"])
counts, used = {}, set()
for g in games:
    if g["family"] not in spec["families"]: r = "family"
    elif g["condition"] not in spec["conditions"]: r = "condition"
    elif t(g["started_at"]) > cut or (g["status"] == "terminal" and t(g["ended_at"]) > cut): r = "after_cut"
    elif g["status"] != "terminal": r = g["status"]
    else: r = None
    if t(g["started_at"]) < reg:
        dev("registered_at", prereg["registered_at"], "game %s started before it" % g["game_id"])
    counts[r] = counts.get(r, 0) + 1
    if r is None and width(g["condition"]) is not None:
        used.add(width(g["condition"]))
exclusions(counts, ["family", "condition", "after_cut", "live", "provider_error", "aborted"], "game")
if counts.get(None):
    if used != set(prereg["widths"]):
        dev("widths", wtext(prereg["widths"]), "games: " + wtext(used))

# decisions
if decs:
    recs = {d["decision_id"]: d for f in decs for l in open(f) if l.strip() for d in [json.loads(l)]}
    sec = freeze["decisions"]
    why = {x["decision_id"]: x["reason"] for x in sec["excluded"]}
    inc = [recs[x["decision_id"]] for x in sec["included"]]
    for did in sorted(recs, key=lambda s: s.encode()):
        if t(recs[did]["ts"]) < reg:
            dev("registered_at", prereg["registered_at"], "decision %s at %s" % (did, recs[did]["ts"]))
    # the manifest's identity (its lines' canonical bytes; integers and
    # strings only, so python's JSON is RFC 8785's) or the file's sha256,
    # "sha256:" before the digits or not
    canon = b"".join(json.dumps(json.loads(l), separators=(",", ":"), sort_keys=True,
                                ensure_ascii=False).encode() + b"\n" for l in open(cand) if l.strip())
    cid = "sha256:" + hashlib.sha256(canon).hexdigest()
    fid = "sha256:" + hashlib.sha256(open(cand, "rb").read()).hexdigest()
    named = "sha256:" + prereg["candidates"].replace("sha256:", "")
    if named not in (cid, fid):
        dev("candidates", prereg["candidates"], cid)
    counts = {}
    for r in why.values():
        counts[r] = counts.get(r, 0) + 1
    exclusions(counts, ["family", "after_cut", "provider_error", "invalid"], "decision")
    if inc:
        used = {width(d["condition"]) for d in inc} - {None}
        if used != set(prereg["widths"]):
            dev("widths", wtext(prereg["widths"]), "decisions: " + wtext(used))
    ub = sorted({d["budget"] for d in inc if d.get("budget") is not None})
    rb = sorted(prereg["allocation"]["budgets"])
    if ub != rb:
        dev("budgets", ", ".join(rb) or "none", ", ".join(ub) or "none")
    split = {}
    for l in list(open(cand))[1:]:
        p = json.loads(l)
        split[p["position_id"]] = p["split"]
    for s in ("explore", "confirm", "heldout"):
        n = len({d["position_id"] for d in inc if split.get(d["position_id"]) == s})
        r = prereg["allocation"]["splits"].get(s)
        if r != n and not (r is None and n == 0):
            dev("splits." + s, "none" if r is None else str(r), str(n))
    cells = {}
    for d in inc:
        w = width(d["condition"])
        if w is not None and w >= 2:
            key = (d["family"], d["replication"], d["condition"], d.get("budget") or "", d["context"], d["position_id"])
            cells.setdefault(key, set()).add(d["order_seed"])
    want = prereg["allocation"]["order_seeds"]
    off = [len(v) for k, v in sorted(cells.items(), key=lambda kv: "\x1f".join(map(str, kv[0])).encode()) if len(v) != want]
    if off:
        seen = []
        for n in off:
            if n not in seen: seen.append(n)
        dev("order_seeds", str(want), "%d position%s shown with %s seeds" % (len(off), "" if len(off) == 1 else "s",
            ", ".join(str(n) for n in seen)))
print(json.dumps(out, separators=(",", ":"), sort_keys=True, ensure_ascii=False))
