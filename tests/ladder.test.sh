# ladder.test.sh: `cohort ladder next` and `cohort ladder simulate`:
# schemas, the policy's verdicts on the example cohorts, agreement with
# freeze, determinism across --jobs, the audit's qualitative findings,
# simulated ledgers flowing through freeze and ladder next, bad input (the
# golden outputs: golden.test.sh).
D=$ROOT/tests/data/cohorts
PY=/usr/bin/python3
SPEC=$D/luna.spec.json

check "unit: solver against the closed form, a brute-force grid and profile ends (tests/unit/sim_solver.c)" \
	"$BUILD/tests/unit/sim_solver"
check "unit: solver agrees with the general joint fit on one-condition cohorts (tests/unit/sim_vs_fit.c)" \
	"$BUILD/tests/unit/sim_vs_fit"

# ---- ladder next
for c in none top10 top5 top3 top2; do
	"$COHORT" ladder next --spec "$SPEC" --condition $c -o next-$c.json "$D/luna.blocks.json"
	$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["condition"], d["state"], d["rule"], d["next"], len(d["deviations"]))' next-$c.json
done >luna-next.txt
cat >luna-next.want <<'TAB'
none terminal stop_below stop 0
top10 terminal stop_below stop 0
top5 terminal repeats_exhausted stop 0
top3 terminal repeats_exhausted stop 0
top2 terminal repeats_exhausted stop 0
TAB
same_bytes "luna: every condition stopped by the rule the policy says" luna-next.txt luna-next.want
check "ladder-next documents validate" $PY "$ROOT/tests/validate.py" "$ROOT/schemas/ladder-next.schema.json" next-*.json

# Partial ladders: the next anchor of each prefix of top2 follows the promote table.
$PY - "$D/luna.blocks.json" <<'PYEOF' >prefix.sh
import json, sys
d = json.load(open(sys.argv[1]))
bl = [b for b in d["blocks"] if b["condition"] == "top2"]
for k in range(1, len(bl)):
    doc = {"kind": "cohort.blocks/1", "black_penalty": 35, "blocks": bl[:k]}
    json.dump(doc, open("prefix%d.json" % k, "w"))
    print("prefix%d.json" % k)
PYEOF
for f in $(cat prefix.sh); do
	"$COHORT" ladder next --spec "$SPEC" --condition top2 "$f" | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d["rule"], d["next"])'
done >prefix.txt
# 10-0-0 (1.0) +400; 9-1-0 (.95) +400; 7-3-0 (.85) +300; 10-0-0 +400; 2-4-4 (.40) repeat
printf 'promote 1720\npromote 2120\npromote 2420\npromote 2820\nrepeat 2820\n' >prefix.want
same_bytes "top2 prefixes: promote 400/400/300/400, then repeat" prefix.txt prefix.want

# A block at an anchor the policy did not choose is a deviation.
printf '{"kind":"cohort.blocks/1","blocks":[{"condition":"a","anchor":1320,"color":"black","w":10,"d":0,"l":0},{"condition":"a","anchor":1520,"color":"black","w":5,"d":0,"l":5}]}' >dev.json
"$COHORT" ladder next --spec "$SPEC" --condition a dev.json >dev.out
$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); v=d["deviations"]; assert len(v)==1 and v[0]["block"]==2 and v[0]["anchor"]==1520 and v[0]["expected"]==1720, v; assert d["rule"]=="repeat" and d["next"]==1520' dev.out \
	&& ok "deviation: block 2 at 1520 where the policy chose 1720" || notok "deviation" "$(cat dev.out)"

# Same verdicts as freeze's condition states, on both example cohorts.
for c in luna deepseek; do
	cp -r "$ROOT/examples/$c" $c
	if "$COHORT" freeze --spec $c/spec.json --store $c/store -o $c/freeze.json $c/ledger.jsonl 2>/dev/null; then
		for cond in none top10 top5 top3 top2; do
			"$COHORT" ladder next --condition $cond $c/freeze.json
			echo
		done >$c-next.jsonl
		$PY - $c/freeze.json $c-next.jsonl <<'PYEOF' && ok "$c: ladder next agrees with freeze's states" || notok "$c: ladder next vs freeze" "differ"
import json, sys
f = json.load(open(sys.argv[1]))
n = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
for c, x in zip(f["conditions"], n):
    assert c["condition"] == x["condition"] and c["state"] == x["state"], (c, x)
    assert c["ladder"]["rule"] == x["rule"], (c, x)
    assert (c["ladder"]["next"] is None) == (x["next"] == "stop"), (c, x)
    if c["ladder"]["next"] is not None:
        assert c["ladder"]["next"] == x["next"], (c, x)
    assert x["input_kind"] == "cohort.freeze/1" and x["spec"] == f["spec_id"], x
PYEOF
	else
		notok "$c: freeze" "failed"
	fi
done

# A freeze's condition with no block yet plays the start anchor.
$PY - "$SPEC" >fz0.json <<'PYEOF'
import json, sys
spec = json.load(open(sys.argv[1]))
print(json.dumps({"kind": "cohort.freeze/1", "spec": spec, "blocks": [
    {"family": spec["families"][0], "condition": "none", "block": 1, "anchor": 1320, "color": "black", "games": 10, "w": 0, "d": 5, "l": 5}]}))
PYEOF
"$COHORT" ladder next --condition top2 fz0.json >fz0.out
$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); assert (d["rule"], d["next"], d["state"], d["blocks"], d["last"]) == ("start", 1320, "active", 0, None), d' fz0.out \
	&& ok "freeze: a condition without blocks starts at the policy's start" || notok "no blocks" "$(cat fz0.out)"
$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); d["blocks"]=[]; print(json.dumps(d))' fz0.json >fz00.json
"$COHORT" ladder next --condition none fz00.json >fz00.out
grep -q '"rule":"start"' fz00.out && ok "freeze without any block: start" || notok "empty freeze" "$(cat fz00.out)"
expect_fail2 "next: a condition the spec does not list" '--condition: top1 has no block in fz0.json' "$COHORT" ladder next --condition top1 fz0.json

expect_fail2 "next: --condition required" '^cohort ladder next: --condition is required' "$COHORT" ladder next --spec "$SPEC" "$D/luna.blocks.json"
expect_fail2 "next: unknown condition" '--condition: top1 has no block in' "$COHORT" ladder next --spec "$SPEC" --condition top1 "$D/luna.blocks.json"
expect_fail2 "next: a blocks document needs --spec" '--spec: a blocks document needs the cohort spec' "$COHORT" ladder next --condition top2 "$D/luna.blocks.json"
[ -f luna/freeze.json ] && expect_fail2 "next: a freeze refuses --spec" 'a freeze carries its spec' "$COHORT" ladder next --spec "$SPEC" --condition top2 luna/freeze.json
expect_fail2 "next: spec of the wrong kind" '"kind": expected cohort.spec/1' "$COHORT" ladder next --spec "$D/luna.blocks.json" --condition top2 "$D/luna.blocks.json"
sed 's/"stop_below": 0.35/"stop_below": 1.5/' "$SPEC" >badspec.json
expect_fail2 "next: bad policy" '"stop_below": expected a score from 0 to 1' "$COHORT" ladder next --spec badspec.json --condition top2 "$D/luna.blocks.json"
expect_fail2 "next: simulate options refused" '^cohort ladder next: --reps belongs to ladder simulate' "$COHORT" ladder next --reps 3 --spec "$SPEC" --condition top2 "$D/luna.blocks.json"
expect_fail2 "ladder: no subcommand" 'expected next or simulate' "$COHORT" ladder
expect_fail2 "ladder: unknown subcommand" 'expected next or simulate' "$COHORT" ladder jump

# ---- ladder simulate
sim() { "$COHORT" ladder simulate --spec "$SPEC" "$@"; }
sim --truth 1000:3200:200 --starts 1320,1720,2120 --reps 300 --seed 5 --jobs 2 -o audit.json
check "audit validates against schemas/ladder-audit.schema.json" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/ladder-audit.schema.json" audit.json
sim --truth 1000:3200:200 --starts 1320,1720,2120 --reps 300 --seed 5 --jobs 1 -o audit1.json
sim --truth 1000:3200:200 --starts 1320,1720,2120 --reps 300 --seed 5 --jobs 3 -o audit3.json
same_bytes "same bytes with 1 and 2 jobs" audit1.json audit.json
same_bytes "same bytes with 3 and 2 jobs" audit3.json audit.json
sim --truth 1000:3200:200 --starts 1320,1720,2120 --reps 300 --seed 6 -o audit-s6.json
cmp -s audit.json audit-s6.json && notok "another seed gives other figures" "same bytes" || ok "another seed gives other figures"
# An undefined estimate enters as the finite end of its two-sided interval
# at level P (a one-sided bound at (1 + P)/2), as the document says.  A
# player at 20,000 wins every game (a draw has chance 1e-23): the ladder
# climbs 1320 .. 3190 on 10-0-0 blocks, no draw, so nu is 0.  last_block:
# 3190 + 35 + 400 log10(c / (1 - c)), c = 0.025^(1/10), not 0.05^(1/10);
# the likelihoods: where sum 10 ln(x / (x + 1)) = -chi2(0.95, 1)/2.
for lv in 0.95 0.8; do
	sim --truth 20000:20000:1 --starts 1320 --reps 3 --seed 1 --level $lv -o sat$lv.json
	$PY - sat$lv.json $lv <<'PYEOF' >satcheck.txt 2>&1 && ok "level $lv: undefined estimates are the ends of two-sided intervals, as the document says" || notok "undefined estimates at $lv" "$(cat satcheck.txt)"
import json, math, sys
d = json.load(open(sys.argv[1])); P = float(sys.argv[2]); c = d["cells"][0]["estimators"]
q = {0.95: 3.841458820694124, 0.8: 1.6423744151498185}[P]
assert "finite end of its two-sided interval at level" in d["undefined_rule"], d["undefined_rule"]
def cp_end(tail):
    p = tail ** 0.1
    return 3225 + 400 * math.log10(p / (1 - p))
assert abs(c["last_block"]["bias"] + 20000 - cp_end((1 - P) / 2)) < 0.01, c["last_block"]
assert abs(c["last_block"]["bias"] + 20000 - cp_end(1 - P)) > 10
def profile_end(anchors):
    lo, hi = 0.0, 6000.0
    for _ in range(200):
        r = (lo + hi) / 2
        L = sum(10 * math.log(1 / (1 + 10 ** ((a + 35 - r) / 400))) for a in anchors)
        lo, hi = (r, hi) if L < -q / 2 else (lo, r)
    return (lo + hi) / 2
assert abs(c["joint"]["bias"] + 20000 - profile_end([1320, 1720, 2120, 2520, 2920, 3190])) < 0.01, c["joint"]
assert abs(c["deleted_below_final"]["bias"] + 20000 - profile_end([3190])) < 0.01, c["deleted_below_final"]
assert all(e["undefined"] == 1 for e in c.values()), c
print("ok")
PYEOF
done

# Streams are keyed by (seed, start, truth, replicate): one cell alone
# reproduces the same cell of the grid.
sim --truth 1400:1400:1 --starts 2120 --reps 300 --seed 5 -o one.json
$PY -c '
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
ca = [c for c in a["cells"] if c["start"] == 2120 and c["truth"] == 1400][0]
assert ca == b["cells"][0], (ca, b["cells"][0])' audit.json one.json \
	&& ok "a single cell equals the same cell of the grid" || notok "cell streams" "differ"

# The qualitative findings.
$PY - audit.json <<'PYEOF' >findings.txt 2>&1 && ok "findings: cost, error, collapse, last block" || notok "findings" "$(cat findings.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
s = {x["start"]: x for x in d["summary"]}
cell = {(c["start"], c["truth"]): c for c in d["cells"]}
g = [s[k]["games"] for k in (1320, 1720, 2120)]
assert g[0] > g[1] > g[2], ("higher starts spend fewer games", g)
for est in ("joint", "last_block"):
    r = [s[k]["estimators"][est]["rmse"] for k in (1320, 1720, 2120)]
    assert r[0] < r[1] < r[2], ("higher starts have larger RMSE", est, r)
weak = cell[(2120, 1000)]
assert weak["one_block"] >= 0.9 and weak["saturated"] >= 0.5, ("high start vs weak player saturates", weak)
assert weak["estimators"]["joint"]["undefined"] >= 0.9, weak
assert weak["estimators"]["joint"]["rmse"] > 3 * cell[(1320, 1000)]["estimators"]["joint"]["rmse"], ("collapses", weak)
assert s[1320]["estimators"]["last_block"]["rmse"] > s[1320]["estimators"]["joint"]["rmse"]
n = 0
for c in d["cells"]:
    if c["blocks"] >= 3:
        e = c["estimators"]; n += 1
        assert e["last_block"]["rmse"] > e["joint"]["rmse"], ("last block worse than joint", c)
        assert e["deleted_below_final"]["rmse"] > e["joint"]["rmse"], ("deleting blocks is worse", c)
        assert 0.85 <= c["coverage"] <= 1, ("profile coverage near 95%", c)
assert n >= 15, n
print("ok", n)
PYEOF

sim --truth 1000:1400:200 --starts 1320 --reps 20 --seed 1 --format table >table.txt
[ "$(grep -c '^  1320 ' table.txt)" = 4 ] && grep -q 'mean over the truth grid' table.txt && ok "table: a row per cell and a summary" || notok "table" "$(cat table.txt)"

# Simulated ledgers flow through freeze and ladder next.
sim --truth 1500:2500:500 --starts 1320 --reps 4 --seed 9 --emit-ledger sim.jsonl --emit-spec simspec.json \
	--emit-requests simreq.jsonl --emit-billing simbill.csv -o simaudit.json
$PY - sim.jsonl simreq.jsonl simbill.csv <<'PYEOF' >simtok.txt 2>&1 && ok "emitted games, requests and billing agree" || notok "emitted ledger sums" "$(cat simtok.txt)"
import csv, json, sys
g = [json.loads(l) for l in open(sys.argv[1])]
r = {x["request_id"]: x for x in map(json.loads, open(sys.argv[2]))}
b = {x["request_id"]: x for x in csv.DictReader(open(sys.argv[3]))}
assert len(r) == len(b) == sum(len(x["requests"]) for x in g) > 0
for x in g:
    t = {k: sum(r[q]["tokens"][k] for q in x["requests"]) for k in ("input", "output", "reasoning", "cached")}
    assert t == x["tokens"], (x["game_id"], t, x["tokens"])
    assert x["started_at"][:19] <= r[x["requests"][0]]["ts"][:19] <= r[x["requests"][-1]]["ts"][:19] <= x["ended_at"][:19]
    assert x["plies"] // 2 == len(x["requests"]) or len(x["requests"]) == 1
    for q in x["requests"]:
        assert r[q]["game_id"] == x["game_id"] and int(b[q]["reasoning_tokens"]) == r[q]["tokens"]["reasoning"]
games = {(x["condition"], x["block"]): 0 for x in g}
for x in g: games[(x["condition"], x["block"])] += 1
assert set(games.values()) == {10}, games
print("ok")
PYEOF
check "emitted records validate against the ledger schema" $PY "$ROOT/tests/validate.py" "$ROOT/schemas/ledger-record.schema.json" sim.jsonl
check "emitted spec validates against the spec schema" $PY "$ROOT/tests/validate.py" "$ROOT/schemas/spec.schema.json" simspec.json
sim --truth 1500:2500:500 --starts 1320 --reps 4 --seed 9 --emit-ledger sim2.jsonl -o /dev/null
same_bytes "the emitted ledger is deterministic" sim.jsonl sim2.jsonl
if "$COHORT" freeze --spec simspec.json --store simstore -o simfreeze.json sim.jsonl 2>freeze.err; then
	ok "freeze accepts the simulated ledger"
	$PY - simfreeze.json <<'PYEOF' >simcheck.txt 2>&1 && ok "simulated conditions are terminal, without deviations" || notok "simulated freeze" "$(cat simcheck.txt)"
import json, sys
f = json.load(open(sys.argv[1]))
assert len(f["conditions"]) == 12 and not f["excluded"], len(f["conditions"])
for c in f["conditions"]:
    assert c["state"] == "terminal" and not c.get("deviations"), c
    assert c["games"] == 10 * c["blocks"], c
PYEOF
	if "$COHORT" reconcile --help >/dev/null 2>&1; then
		expect_status "reconcile: the simulated ledger, requests and billing reconcile" 0 \
			"$COHORT" reconcile --freeze simfreeze.json --ledger sim.jsonl --requests simreq.jsonl --billing simbill.csv -o simrec.json
	fi
	"$COHORT" ladder next --condition s1320-t2500-r1 simfreeze.json >simnext.json
	$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["next"]=="stop" and not d["deviations"]' simnext.json \
		&& ok "ladder next: a simulated ladder stopped where the policy says" || notok "ladder next on simulated freeze" "$(cat simnext.json)"
else
	notok "freeze accepts the simulated ledger" "$(head -c 300 freeze.err)"
fi

# Bad input: exit 2, nothing written.
rm -f bad.json
expect_fail2 "start below the policy's anchors" '--starts: 1000 is outside the policy.s anchors \(1320 to 3190\)' sim --truth 1000:2000:100 --starts 1000 --reps 5 --seed 1 -o bad.json
expect_fail2 "start above max" '--starts: 3300 is outside' sim --truth 1000:2000:100 --starts 3300 --reps 5 --seed 1 -o bad.json
expect_fail2 "HI below LO" '--truth: HI is below LO' sim --truth 2000:1000:100 --starts 1320 --reps 5 --seed 1 -o bad.json
expect_fail2 "STEP zero" '--truth: STEP must be positive' sim --truth 1000:2000:0 --starts 1320 --reps 5 --seed 1 -o bad.json
expect_fail2 "STEP negative" '--truth: STEP must be positive' sim --truth 1000:2000:-5 --starts 1320 --reps 5 --seed 1 -o bad.json
expect_fail2 "truth not LO:HI:STEP" '--truth: expected LO:HI:STEP' sim --truth 1000:2000 --starts 1320 --reps 5 --seed 1 -o bad.json
expect_fail2 "too many cells" 'more than 10000 starts x truths' sim --truth 0:100000:1 --starts 1320 --reps 5 --seed 1 -o bad.json
expect_fail2 "zero replicates" '--reps: expected a whole number from 1' sim --truth 1000:2000:100 --starts 1320 --reps 0 --seed 1 -o bad.json
expect_fail2 "seed does not parse" '--seed: expected a whole number' sim --truth 1000:2000:100 --starts 1320 --reps 5 --seed 12x -o bad.json
expect_fail2 "negative seed" '--seed: expected a whole number' sim --truth 1000:2000:100 --starts 1320 --reps 5 --seed -3 -o bad.json
expect_fail2 "starts do not parse" '--starts: expected' sim --truth 1000:2000:100 --starts 1320,,1720 --reps 5 --seed 1 -o bad.json
expect_fail2 "nu not positive" '--nu: expected a positive number' sim --truth 1000:2000:100 --starts 1320 --reps 5 --seed 1 --nu 0 -o bad.json
expect_fail2 "jobs zero" '--jobs: expected 1 to 256' sim --truth 1000:2000:100 --starts 1320 --reps 5 --seed 1 --jobs 0 -o bad.json
expect_fail2 "missing --seed" '^cohort ladder simulate: --seed is required' sim --truth 1000:2000:100 --starts 1320 --reps 5 -o bad.json
expect_fail2 "simulate: next's options refused" '^cohort ladder simulate: --condition belongs to ladder next' sim --condition top2 --truth 1000:2000:100 --starts 1320 --reps 5 --seed 1
expect_fail2 "simulate: an --emit file is not standard output" '^cohort ladder simulate: --emit-ledger: expected a file name' sim --truth 1000:2000:100 --starts 1320 --reps 5 --seed 1 --emit-ledger -
expect_fail2 "spec of the wrong kind" '"kind": expected cohort.spec/1' "$COHORT" ladder simulate --spec "$D/luna.blocks.json" --truth 1000:2000:100 --starts 1320 --reps 5 --seed 1 -o bad.json
[ -e bad.json ] && notok "no output after bad input" "bad.json exists" || ok "no output after bad input"
