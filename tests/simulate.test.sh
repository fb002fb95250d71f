# simulate.test.sh: cohort simulate paired against its known truth.  The
# truth is computed again here from the design (python3); the data pass
# freeze, candidates verify and the schemas; the paired diagnostics and
# the fit recover the truth; the bootstrap intervals of cohort paired
# cover it at their nominal rate within Monte-Carlo error (200 simulated
# datasets); the same seed gives the same bytes.
PY=/usr/bin/python3
EX=$ROOT/examples/simulate

mkdir a b c
"$COHORT" simulate paired --seed 1 --emit a -o a.truth.json "$EX/two-families.json"
"$COHORT" simulate paired --seed 1 --emit b -o b.truth.json "$EX/two-families.json"
"$COHORT" simulate paired --seed 2 --emit c -o c.truth.json "$EX/two-families.json"
same=1
for f in candidates.jsonl decisions-r1.jsonl decisions-r2.jsonl spec.json ledger-r1.jsonl ledger-r2.jsonl; do
	cmp -s a/$f b/$f || same=0
done
[ $same = 1 ] && cmp -s a.truth.json b.truth.json && ok "the same seed: the same bytes" ||
	notok "the same seed: the same bytes" "a and b differ"
cmp -s a/decisions-r1.jsonl c/decisions-r1.jsonl && notok "another seed: other decisions" "same bytes" ||
	ok "another seed: other decisions"
check "the manifest validates against schemas/candidates.schema.json" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/candidates.schema.json" a/candidates.jsonl
check "the design validates against schemas/sim-design.schema.json" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/sim-design.schema.json" "$EX/two-families.json" \
	"$EX/adapter-label.json"
check "the truth validates against schemas/sim-truth.schema.json" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/sim-truth.schema.json" a.truth.json
check "candidates verify accepts the simulated manifest" \
	"$COHORT" candidates verify a/candidates.jsonl
expect_status "freeze takes the decisions and replication 1's games" 0 \
	"$COHORT" freeze --spec a/spec.json --candidates a/candidates.jsonl --decisions a/decisions-r1.jsonl \
	--store a/store -o a/freeze.json a/ledger-r1.jsonl
[ "$(sha256sum a/candidates.jsonl | cut -c1-64)" = "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["candidates"][7:])' a.truth.json)" ] &&
	ok "the truth names the manifest by its identity" || notok "the truth names the manifest by its identity" "differs"

# The truth again, from the design alone.
cat >truth.py <<'PYEOF'
import json, math, sys
d = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2]))
gap = d.get("gap_cp", 20); M = d["multipv"]; bad = []
for fa, ft in zip(d["families"], t["families"]):
    ill = fa.get("illegal", 0); h = fa.get("spread", 0)
    for w, (k, ct) in enumerate(zip(d["widths"], ft["conditions"])):
        K = k or M; fb = fa.get("first_bias", 0) if k else 0
        rec = reg = rank = oc = 0
        for m in (1 - h, 1 + h):
            e = [math.exp(-gap * j / (fa["temperature"][w] * m)) for j in range(K)]
            p = [fb / K + (1 - fb) * x / sum(e) for x in e]
            rec += 0.5 * (1 - ill) * p[0]; reg += 0.5 * sum(gap * j * p[j] for j in range(K))
            rank += 0.5 * sum((j + 1) * p[j] for j in range(K))
            oc += 0.5 * (1 - (ill ** 2 + (1 - ill) ** 2 * sum(x * x for x in p)))
        want = {"recall": rec, "regret_mean": reg, "rank_mean": rank, "rating": fa["rating"][w],
                "tokens_per_decision": 1000 + 40 * k + fa.get("output_tokens", 200) + fa.get("reasoning_tokens", 0)}
        if k and d["order_seeds"] > 1: want["order_change"] = oc
        for key, v in want.items():
            if abs(ct[key] - v) > 1e-8: bad.append("%s %s %s: %s != %s" % (fa["name"], ct["condition"], key, ct[key], v))
    feats = {f["name"]: f["value"] for f in ft["features"]}
    for w, k in enumerate(d["widths"]):
        if k and abs(feats["r_k[%d]" % k] - fa["rating"][w]) > 1e-9: bad.append("r_k[%d]" % k)
        if k and abs(feats["delta_r[%d]" % k] - (fa["rating"][w] - fa["rating"][0])) > 1e-9: bad.append("delta_r[%d]" % k)
print("ok" if not bad else "; ".join(bad[:4]))
PYEOF
r=$($PY truth.py "$EX/two-families.json" a.truth.json)
[ "$r" = ok ] && ok "the truth's expectations, computed again from the design" || notok "the truth's expectations, computed again from the design" "$r"

# 200 datasets: one family, 200 replications of 30 openings.
cat >cov.json <<'JEOF'
{"kind": "cohort.sim-design/1", "name": "coverage",
 "openings": 30, "positions_per_opening": 3, "multipv": 8, "gap_cp": 20,
 "widths": [0, 2, 5], "replications": 200, "order_seeds": 2,
 "families": [{"name": "alpha", "model": "alpha-1", "rating": [1500, 1650, 1750],
   "temperature": [40, 30, 20], "first_bias": 0.2, "spread": 0.5, "illegal": 0.02,
   "output_tokens": 200, "reasoning_tokens": 400, "latency_ms": 2000}]}
JEOF
mkdir cov
"$COHORT" simulate paired --seed 7 --emit cov -o cov.truth.json cov.json &&
	"$COHORT" freeze --spec cov/spec.json --candidates cov/candidates.jsonl \
	$(for r in $(seq 1 200); do printf ' --decisions cov/decisions-r%d.jsonl' $r; done) \
	--store cov/store -o cov/freeze.json &&
	"$COHORT" paired --store cov/store --replicates 1000 -o cov/paired.json cov/freeze.json ||
	notok "the coverage run" "failed"
cat >cover.py <<'PYEOF'
import json, math, sys
t = json.load(open(sys.argv[1])); p = json.load(open(sys.argv[2]))
truth = {(f["family"], c["condition"]): c for f in t["families"] for c in f["conditions"]}
def limits(n, q=0.95, a=0.01):  # the binomial's two-sided 1 - a limits
    pmf = [math.comb(n, x) * q ** x * (1 - q) ** (n - x) for x in range(n + 1)]
    lo = hi = 0; c = 0
    for x in range(n + 1):
        c += pmf[x]
        if c < a / 2: lo = x + 1
    c = 0
    for x in range(n, -1, -1):
        c += pmf[x]
        if c < a / 2: hi = x - 1
    return lo, hi
rows = {}
for c in p["cells"]:
    tr = truth[(c["family"], c["condition"])]
    for fig, want in (("regret", tr["regret_mean"]), ("recall", tr["recall"])):
        est = c[fig]; iv = est["interval"]; x = est["mean"] if fig == "regret" else est["estimate"]
        r = rows.setdefault((fig, c["condition"]), [0, 0, [], []])
        r[0] += 1; r[1] += iv[0] <= want <= iv[1]; r[2].append(x); r[3].append((iv[1] - iv[0]) / (2 * 1.959964))
bad = []
for (fig, cond), (n, hit, xs, se) in sorted(rows.items()):
    lo, hi = limits(n)
    want = truth[("alpha", cond)]["regret_mean" if fig == "regret" else "recall"]
    mean = sum(xs) / n; sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)); mse = sum(se) / n
    print("%s %s: coverage %d/%d = %.3f (99%% limits %d..%d); mean %.4f truth %.4f (se of mean %.4f); "
          "bootstrap se %.4f, sd over datasets %.4f" % (fig, cond, hit, n, hit / n, lo, hi, mean, want, sd / math.sqrt(n), mse, sd))
    if not lo <= hit <= hi: bad.append("%s %s coverage %d/%d outside %d..%d" % (fig, cond, hit, n, lo, hi))
    if abs(mean - want) > 4 * sd / math.sqrt(n): bad.append("%s %s mean %.4f, truth %.4f" % (fig, cond, mean, want))
    if not 0.8 < mse / sd < 1.25: bad.append("%s %s bootstrap se %.4f, sd %.4f" % (fig, cond, mse, sd))
print("ok" if not bad else "bad: " + "; ".join(bad))
PYEOF
$PY cover.py cov.truth.json cov/paired.json >cover.txt
sed 's/^/# /' cover.txt
tail -1 cover.txt | grep -q '^ok$' && ok "paired's 95% intervals cover the truth within binomial 99% limits over 200 datasets; estimates recover it; bootstrap se = sd over datasets" ||
	notok "paired's intervals cover the truth over 200 datasets" "$(tail -1 cover.txt)"

# The fit recovers each width's true rating: 40 replications' ledgers,
# each frozen and fitted alone.
cat >fitcov.json <<'JEOF'
{"kind": "cohort.sim-design/1", "name": "fit-coverage",
 "openings": 4, "positions_per_opening": 1, "multipv": 5, "widths": [0, 2, 5],
 "replications": 40, "order_seeds": 1,
 "families": [{"name": "alpha", "model": "alpha-1", "rating": [1500, 1900, 2300],
   "temperature": [40, 30, 20]}]}
JEOF
mkdir fc
"$COHORT" simulate paired --seed 3 --emit fc -o fc.truth.json fitcov.json
for r in $(seq 1 40); do
	"$COHORT" freeze --spec fc/spec.json --store fc/store -o fc/f$r.json fc/ledger-r$r.jsonl &&
	"$COHORT" fit -o fc/fit$r.json fc/f$r.json || echo "fit $r failed"
done >fc.log 2>&1
[ -s fc.log ] && notok "40 ledgers freeze and fit" "$(head -3 fc.log)" || ok "40 ledgers freeze and fit"
$PY - fc.truth.json fc/fit*.json >fitcov.txt <<'PYEOF'
import json, math, sys
t = json.load(open(sys.argv[1]))
want = {c["condition"]: c["rating"] for c in t["families"][0]["conditions"]}
n = hit = 0; err = []
for p in sys.argv[2:]:
    for c in json.load(open(p))["conditions"]:
        iv = c["interval"]; lo = -math.inf if iv is None or iv[0] is None else iv[0]
        hi = math.inf if iv is None or iv[1] is None else iv[1]
        w = want[c["condition"].split("/")[-1]]
        n += 1; hit += lo <= w <= hi
        if c["rating"] is not None: err.append(c["rating"] - w)
m = sum(err) / len(err); sd = math.sqrt(sum((x - m) ** 2 for x in err) / (len(err) - 1))
print("fit coverage %d/%d = %.3f; mean error %.1f Elo (se %.1f) over %d defined" % (hit, n, hit / n, m, sd / math.sqrt(len(err)), len(err)))
# binomial 99% limits of 0.95 over 120: 108..119
print("ok" if 108 <= hit and n == 120 and abs(m) < 4 * sd / math.sqrt(len(err)) else "bad")
PYEOF
tail -1 fitcov.txt | grep -q '^ok$' && ok "the fit's profile intervals cover each width's true rating ($(head -1 fitcov.txt))" ||
	notok "the fit recovers the true ratings" "$(cat fitcov.txt)"

# Refusals name the file and the field.
sed 's/"gap_cp": 20/"gap_cp": 20, "gapp": 1/' "$EX/two-families.json" >typo.json
expect_fail2 "an unknown design field is refused" 'typo.json: "gapp": not a field of a design' \
	"$COHORT" simulate paired --seed 1 --emit c typo.json
sed 's/"rating": \[1500, 1650, 1750\]/"rating": [1500, 1650]/' "$EX/two-families.json" >short.json
expect_fail2 "a rating list of the wrong length is refused" 'short.json: "families": entry 1: "rating": expected one number per width' \
	"$COHORT" simulate paired --seed 1 --emit c short.json
sed 's/"widths": \[0, 2, 5\]/"widths": [0, 5, 2]/' "$EX/two-families.json" >order.json
expect_fail2 "widths out of order are refused" 'order.json: "widths": expected increasing' \
	"$COHORT" simulate paired --seed 1 --emit c order.json
expect_fail2 "a folder that does not exist is refused" 'nowhere' \
	"$COHORT" simulate paired --seed 1 --emit nowhere "$EX/two-families.json"
