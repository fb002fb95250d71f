# simfp.test.sh: the fingerprint and the distance against the known truth
# of cohort simulate paired.  200 simulated datasets (families identical
# but for their names, drawn independently) give each feature's coverage
# by its bootstrap 95% interval and the recovery of its true value; 24
# families of two replications give test-retest d2 against its
# expectation under the null (null_mean), and between-family against
# within-family distances of identical families; a constructed adapter
# label (two families identical but for their names) reads as no
# separation and fails gate C, while a family unlike them stands apart.
PY=/usr/bin/python3
EX=$ROOT/examples/simulate
export COHORT_JOBS=${COHORT_JOBS:-2}

# design FILE NAME FAMILIES REPLICATIONS: identical families f001 ...
design() {
	$PY - "$@" <<'PYEOF'
import json, sys
path, name, n, reps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
fam = {"model": "m-1", "rating": [1500, 1650, 1750], "temperature": [40, 30, 20], "first_bias": 0.2,
       "spread": 0.5, "illegal": 0.02, "output_tokens": 200, "reasoning_tokens": 400, "latency_ms": 2000}
d = {"kind": "cohort.sim-design/1", "name": name, "openings": 30, "positions_per_opening": 3,
     "multipv": 8, "gap_cp": 20, "widths": [0, 2, 5], "replications": reps, "order_seeds": 2,
     "families": [dict(fam, name="f%03d" % (i + 1)) for i in range(n)]}
open(path, "w").write(json.dumps(d))
PYEOF
}
# prereg DIR REPLICATES: a preregistration of DIR's manifest
prereg() {
	cid=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["candidates"])' "$1/truth.json")
	cat >"$1/prereg.json" <<JEOF
{"kind": "cohort.prereg/1", "name": "simulated", "registered_at": "2026-01-15T00:00:00Z",
 "candidates": "$cid", "widths": [0, 2, 5],
 "allocation": {"splits": {"explore": 40, "confirm": 20, "heldout": 20}, "order_seeds": 2, "budgets": []},
 "exclusions": ["provider_error", "after_cut"],
 "features": ["unaided", "r_k", "delta_r", "recall_unaided", "order_change", "illegal_rate", "latency_per_decision"],
 "distance": {"lambda": 0.1, "population": "none"},
 "bootstrap": {"replicates": $2, "unit": "opening", "seed": 1},
 "blunder_cp": 300, "predictions": []}
JEOF
}
# run DIR SEED DESIGN REPS: simulate, prereg, freeze each replication
run() {
	mkdir -p "$1" && "$COHORT" simulate paired --seed "$2" --emit "$1" -o "$1/truth.json" "$3" && prereg "$1" "$5" &&
	for r in $(seq 1 "$4"); do
		"$COHORT" freeze --spec "$1/spec.json" --candidates "$1/candidates.jsonl" \
			--decisions "$1/decisions-r$r.jsonl" --store "$1/store" -o "$1/f$r.json" "$1/ledger-r$r.jsonl" || return 1
	done
}

# 200 datasets of one replication each.
design d200.json coverage 200 1
run c 11 d200.json 1 400 && "$COHORT" fingerprint --prereg c/prereg.json --store c/store -o c/fp.json c/f1.json ||
	notok "the 200 datasets' fingerprint" "failed"
cat >fpcov.py <<'PYEOF'
import json, math, sys
t = json.load(open(sys.argv[1])); d = json.load(open(sys.argv[2]))
f0 = t["families"][0]
truth = {x["name"]: x["value"] for x in f0["features"]}
oc = [c["order_change"] for c in f0["conditions"] if c["order_change"] is not None]
truth["order_change"] = sum(oc) / len(oc)  # pairs of seeds: as many at each width shown
def limits(n, q=0.95, a=0.01):  # the binomial's two-sided 1 - a limits
    pmf = [math.comb(n, x) * q ** x * (1 - q) ** (n - x) for x in range(n + 1)]
    lo = next(x for x in range(n + 1) if sum(pmf[:x + 1]) >= a / 2)
    hi = next(x for x in range(n, -1, -1) if sum(pmf[x:]) >= a / 2)
    return lo, hi
rows = {}
for fp in d["fingerprints"]:
    for ft in fp["features"]:
        r = rows.setdefault(ft["name"], [0, 0, [], []])
        if ft["estimate"] is None:
            continue
        r[0] += 1; r[1] += ft["lo"] <= truth[ft["name"]] <= ft["hi"]; r[2].append(ft["estimate"]); r[3].append(ft["se"])
bad = []
strength = ("unaided", "r_k", "delta_r")
for name, (n, hit, xs, se) in rows.items():
    lo, hi = limits(n)
    m = sum(xs) / n; sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1)); w = truth[name]
    print("%-20s coverage %3d/%d = %.3f (99%% limits %d..%d); mean %.4f, truth %.4f, se of mean %.4f; "
          "bootstrap se %.4f, sd over datasets %.4f" % (name, hit, n, hit / n, lo, hi, m, w, sd / math.sqrt(n), sum(se) / n, sd))
    if n != 200: bad.append("%s: %d estimates" % (name, n))
    if abs(m - w) > 4 * sd / math.sqrt(n): bad.append("%s: mean %.4f, truth %.4f" % (name, m, w))
    # the ladder's layer: adaptive ladders of ~35 games per width; its
    # bootstrap treats the games as exchangeable and undercovers a little
    # (measured 0.895 to 0.935): held to 0.85 and reported
    if name.split("[")[0] in strength:
        if hit < 0.85 * n: bad.append("%s: coverage %d/%d" % (name, hit, n))
    elif not lo <= hit <= hi:
        bad.append("%s: coverage %d/%d outside %d..%d" % (name, hit, n, lo, hi))
print("ok" if not bad else "bad: " + "; ".join(bad))
PYEOF
$PY fpcov.py c/truth.json c/fp.json >fpcov.txt
sed 's/^/# /' fpcov.txt
tail -1 fpcov.txt | grep -q '^ok$' &&
	ok "fingerprint over 200 datasets: each feature's mean recovers its truth; decision features' 95% intervals cover within binomial 99% limits, strength features' at least 0.85" ||
	notok "fingerprint over 200 datasets" "$(tail -1 fpcov.txt)"

# 24 identical families, two replications each.
design d24.json test-retest 24 2
run t 12 d24.json 2 300 && "$COHORT" fingerprint --prereg t/prereg.json --store t/store -o t/fp.json t/f1.json t/f2.json &&
	"$COHORT" distance -o t/dist.json t/fp.json || notok "the test-retest panel" "failed"
$PY - t/dist.json >tr.txt <<'PYEOF'
import json, math, sys
d = json.load(open(sys.argv[1]))
def mse(x):
    m = sum(x) / len(x); return m, math.sqrt(sum((a - m) ** 2 for a in x) / (len(x) - 1) / len(x))
same = [p for p in d["pairs"] if p["a"]["family"] == p["b"]["family"]]
cross = [p["d2"] for p in d["pairs"] if p["a"]["family"] != p["b"]["family"]]
m, s = mse([p["d2"] for p in same]); nm = sum(p["null_mean"] for p in same) / len(same)
bm = sum(cross) / len(cross)
ex = sum(1 for x in d["separation"] if x["exceeds"])
print("test-retest d2: mean %.3f (se %.3f) over %d families, expectation null_mean %.3f; "
      "between-family mean %.3f; separations exceeding %d of %d" % (m, s, len(same), nm, bm, ex, len(d["separation"])))
ok = abs(m - nm) < 3 * s and abs(bm - m) < 3 * s and ex <= 0.1 * len(d["separation"])
print("ok" if ok else "bad")
PYEOF
sed 's/^/# /' tr.txt
tail -1 tr.txt | grep -q '^ok$' &&
	ok "test-retest d2 of a family with itself is near its expectation; between identical families reads as within" ||
	notok "test-retest d2 near its expectation" "$(head -1 tr.txt)"

# The adapter label: alpha and alpha-adapter identical but for their
# names, omega unlike both.
run ad 3 "$EX/adapter-label.json" 2 300 &&
	"$COHORT" fingerprint --prereg ad/prereg.json --store ad/store -o ad/fp.json ad/f1.json ad/f2.json &&
	"$COHORT" distance -o ad/dist.json ad/fp.json || notok "the adapter-label case" "failed"
$PY - ad/dist.json >ad.txt <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
s = {(x["a"], x["b"]): x for x in d["separation"]}
a = s[("alpha", "alpha-adapter")]; o = s[("alpha", "omega")]; p = s[("alpha-adapter", "omega")]
print("alpha ~ alpha-adapter: between %.3f, within %.3f and %.3f, p %.3f, exceeds %s; "
      "alpha ~ omega: between %.3f, exceeds %s; alpha-adapter ~ omega: between %.3f, exceeds %s"
      % (a["between"], a["within_a"], a["within_b"], a["p"], a["exceeds"], o["between"], o["exceeds"], p["between"], p["exceeds"]))
print("ok" if a["exceeds"] is False and a["p"] > 0.05 and o["exceeds"] is True and p["exceeds"] is True else "bad")
PYEOF
sed 's/^/# /' ad.txt
tail -1 ad.txt | grep -q '^ok$' &&
	ok "an adapter label does not separate (between reads as within); a family unlike both does" ||
	notok "the adapter label reads as no separation" "$(head -1 ad.txt)"
if "$COHORT" help gate >/dev/null 2>&1; then
	"$COHORT" gate C --prereg ad/prereg.json -o ad/gate.json ad/fp.json ad/dist.json >/dev/null 2>ad/gate.err
	rc=$?
	v=$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["verdict"], [c["verdict"] for c in d["criteria"] if c["id"] == "C2"][0])' ad/gate.json 2>/dev/null)
	[ $rc = 1 ] && [ "$v" = "fail fail" ] && ok "gate C fails on the adapter label (C2: between does not exceed within)" ||
		notok "gate C fails on the adapter label" "exit $rc, verdict and C2: $v"
else
	ok "gate C on the adapter label (skipped: no cohort gate in this build)"
fi
