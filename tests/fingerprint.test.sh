# fingerprint.test.sh: cohort fingerprint: every figure computed again by an
# independent implementation (tests/fp_check.py: sums, draws, the joint
# fit, features, rows, errors, intervals, covariance), closed forms on a
# constructed family, the schema, the same bytes on any number of threads,
# deviations, verify's refit, and refusals.
PY=/usr/bin/python3
$PY "$ROOT/tests/fp_make.py" . 60
"$COHORT" freeze --spec spec.json --candidates candidates.jsonl --decisions decisions.jsonl --store st \
	-o f.json games.jsonl
"$COHORT" fingerprint --prereg prereg.json --store st -o fp.json f.json
check "fingerprint: every figure, as an independent implementation gives it" \
	$PY "$ROOT/tests/fp_check.py" candidates.jsonl decisions.jsonl games.jsonl f.json prereg.json fp.json
check "fingerprint: the document validates against schemas/fingerprint.schema.json" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/fingerprint.schema.json" fp.json
$PY - fp.json <<'P' && ok "fingerprint: closed forms of a family without draws at one anchor" ||
import json, math, sys
d = json.load(open(sys.argv[1]))
g = {x["name"]: x for f in d["fingerprints"] if f["family"] == "gamma" for x in f["features"]}
# White only at 1500 with the Black penalty 35: R = 1465 + 400 log10(w / l)
R0, R2, R5 = 1465, 1465 + 400 * math.log10(3), 1465 + 400 * math.log10(6 / 14)
for n, want in (("unaided", R0), ("r_k[2]", R2), ("r_k[5]", R5), ("delta_r[2]", R2 - R0),
                ("delta_r[5]", R5 - R0), ("slope[2]", (R2 - R0) / 2)):
    assert abs(g[n]["estimate"] - want) <= 0.006, (n, g[n], want)
# width 10: all ten won: no number, the exact one-sided bound: P(win)^10 = 0.025
p = 0.025 ** 0.1
b = 1465 + 400 * math.log10(p / (1 - p))
for n, shift in (("r_k[10]", 0), ("delta_r[10]", R0)):
    x = g[n]
    assert x["estimate"] is None and "won" in x["reason"], x
    assert x["bound"]["side"] == "lower" and abs(x["bound"]["value"] - (b - shift)) <= 0.006, (x, b - shift)
for n in ("k_star", "overload_2_10", "reversals", "auc"):
    assert g[n]["estimate"] is None and g[n]["reason"], g[n]
# no decisions: every decision feature null with its reason
assert g["order_change"]["estimate"] is None and g["order_change"]["reason"], g["order_change"]
assert g["calibration"]["estimate"] is None
# P(k* = k) sums to one where it is defined
for f in d["fingerprints"]:
    p = [x["estimate"] for x in f["features"] if x["name"].startswith("p_k_star[")]
    assert None in p or abs(sum(p) - 1) < 1e-5, (f["family"], p)
P
	notok "fingerprint: closed forms" "$(head -c 300 "$TMP/err" 2>/dev/null)"
COHORT_JOBS=1 "$COHORT" fingerprint --prereg prereg.json --store st -o fp1.json f.json
COHORT_JOBS=3 "$COHORT" fingerprint --prereg prereg.json --store st -o fp3.json f.json
same_bytes "fingerprint: the same bytes on one thread" fp.json fp1.json
same_bytes "fingerprint: the same bytes on three threads" fp.json fp3.json
"$COHORT" fingerprint --prereg prereg.json --store st --replicates 40 --seed 9 -o fpd.json f.json
check "fingerprint: other replicates and seed, listed as deviations, the same agreement" \
	$PY "$ROOT/tests/fp_check.py" candidates.jsonl decisions.jsonl games.jsonl f.json prereg.json fpd.json
grep -q '"deviations":\[{"registered":"60","setting":"bootstrap.replicates","used":"40"},{"registered":"5","setting":"bootstrap.seed","used":"9"},{"registered":"sha256:[0-9a-f]*","setting":"freeze.prereg","used":"none"}\]' fpd.json &&
	ok "fingerprint: the deviations name the settings" || notok "fingerprint: deviations" "$(grep -o '"deviations":[^]]*]' fpd.json)"
"$COHORT" fingerprint --prereg prereg.json --store st --replicates 25 -o fp25.json f.json
$PY - fp.json fp25.json <<'P' && ok "fingerprint: the first rows of a longer run are a shorter run's rows" ||
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for x, y in zip(a["fingerprints"], b["fingerprints"]):
    assert x["replicates"]["rows"][:25] == y["replicates"]["rows"], x["family"]
P
	notok "fingerprint: replicate ranges" "rows differ"
check "fingerprint: replicate ranges computed apart, rows put together, the same bytes (tests/unit/fp_ranges.c)" \
	"$BUILD/tests/unit/fp_ranges" prereg.json st f.json
# the bootstrap unit: positions (and games one by one)
sed 's/"unit":"opening"/"unit":"position"/' prereg.json >prereg-pos.json
"$COHORT" fingerprint --prereg prereg-pos.json --store st -o fpp.json f.json
check "fingerprint: position blocks, the same agreement" \
	$PY "$ROOT/tests/fp_check.py" candidates.jsonl decisions.jsonl games.jsonl f.json prereg-pos.json fpp.json
# the paired toy: decisions only
T=$ROOT/examples/paired-toy
"$COHORT" freeze --spec "$T/spec.json" --candidates "$T/candidates.jsonl" --decisions "$T/decisions.jsonl" \
	--store tst -o tf.json
"$COHORT" fingerprint --prereg "$T/prereg.json" --store tst -o tfp.json tf.json
: >nogames.jsonl
check "fingerprint: the paired toy, every figure again" \
	$PY "$ROOT/tests/fp_check.py" "$T/candidates.jsonl" "$T/decisions.jsonl" nogames.jsonl tf.json "$T/prereg.json" tfp.json
expect_status "verify recomputes the fingerprint from its prereg and freeze" 0 \
	"$COHORT" verify --store st prereg.json f.json fp.json
grep -q '"check":"refit","detail":"computed again from its inputs: the same bytes","ok":true,"subject":"fp.json"' "$TMP/out" &&
	ok "verify: the fingerprint refit holds" || notok "verify: the fingerprint refit" "$(head -c 300 "$TMP/out")"
sed 's/"estimate":1465,/"estimate":1466,/' fp.json >fpx.json
expect_status "verify: an edited estimate is a finding" 1 "$COHORT" verify --store st prereg.json f.json fpx.json
expect_status "verify: a fingerprint without its prereg among the files is a finding" 1 \
	"$COHORT" verify --store st f.json fp.json
"$COHORT" fingerprint --prereg prereg.json --store st --format table f.json >tab.txt
grep -Eq '^gamma +r1 +delta_r\[2\] +190\.85 ' tab.txt && ok "fingerprint --format table" ||
	notok "fingerprint --format table" "$(head -3 tab.txt)"
# refusals: exit 2, nothing written
expect_fail2 "fingerprint: --prereg is required" "--prereg is required" "$COHORT" fingerprint f.json
expect_fail2 "fingerprint: a bad --replicates" "--replicates: expected" \
	"$COHORT" fingerprint --prereg prereg.json --replicates x f.json
expect_fail2 "fingerprint: a freeze whose store is missing" "store" \
	"$COHORT" fingerprint --prereg prereg.json --store nowhere -o out.json f.json
[ ! -e out.json ] && ok "fingerprint: no output on error" || notok "fingerprint: no output on error" "out.json written"
sed 's/"delta_r"/"delta_rr"/' prereg.json >bad-prereg.json
expect_fail2 "fingerprint: an unknown feature in the prereg" "delta_rr" \
	"$COHORT" fingerprint --prereg bad-prereg.json --store st f.json
expect_fail2 "fingerprint: an unknown --split" "--split: expected explore, confirm, heldout or all" \
	"$COHORT" fingerprint --prereg prereg.json --split training f.json
# ---- splits: a split's positions, and the games of its openings
# here every opening has positions in two splits: a split keeps its
# decisions and none of the games
"$COHORT" fingerprint --prereg prereg.json --store st --split heldout -o fph.json f.json
check "fingerprint --split heldout: every figure again (the split's decisions, no game)" \
	$PY "$ROOT/tests/fp_check.py" candidates.jsonl decisions.jsonl games.jsonl f.json prereg.json fph.json
$PY - fp.json fph.json <<'P' && ok "fingerprint --split: the split named, every game outside it" ||
import json, sys
a, h = (json.load(open(p)) for p in sys.argv[1:])
assert a["split"] == "all" and a["games_outside_split"] == 0, (a["split"], a["games_outside_split"])
assert h["split"] == "heldout" and h["games_outside_split"] == sum(f["games"] for f in a["fingerprints"]), h["games_outside_split"]
assert all(f["games"] == 0 for f in h["fingerprints"])
# a third of the positions: a third of the decisions
da = {(f["family"], f["replication"]): f["decisions"] for f in a["fingerprints"]}
for f in h["fingerprints"]:
    assert 3 * f["decisions"] == da[(f["family"], f["replication"])], f["decisions"]
P
	notok "fingerprint --split" "see fph.json"
check "fingerprint --split: the document validates against schemas/fingerprint.schema.json" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/fingerprint.schema.json" fph.json
expect_status "verify recomputes a split's fingerprint" 0 "$COHORT" verify --store st prereg.json f.json fph.json
sed 's/"estimate":\([0-9]\)/"estimate":9\1/' fph.json >fphx.json
expect_status "verify: an edited split fingerprint is a finding" 1 "$COHORT" verify --store st prereg.json f.json fphx.json
$PY -c 'import json,sys; d=json.load(open("fph.json")); d["split"]="explore"; print(json.dumps(d,separators=(",",":"),sort_keys=True),end="")' >fphs.json
expect_status "verify: a split fingerprint relabelled explore is a finding" 1 "$COHORT" verify --store st prereg.json f.json fphs.json
# a split the prereg allocates nothing to is a deviation
$PY -c 'import json; p=json.load(open("prereg.json")); del p["allocation"]["splits"]["heldout"]; print(json.dumps(p,separators=(",",":"),sort_keys=True),end="")' >prereg-noh.json
"$COHORT" fingerprint --prereg prereg-noh.json --store st --split heldout -o fpn.json f.json
grep -q '"setting":"split","used":"heldout"' fpn.json && grep -q '{"registered":"confirm,explore","setting":"split"' fpn.json &&
	ok "fingerprint --split: a split the prereg does not register is a deviation" ||
	notok "fingerprint --split: an unregistered split" "$(grep -o '"deviations":[^]]*]' fpn.json)"
check "fingerprint --split, an unregistered split: every figure again, the deviation too" \
	$PY "$ROOT/tests/fp_check.py" candidates.jsonl decisions.jsonl games.jsonl f.json prereg-noh.json fpn.json
# each opening in one split: a split's games are its openings'
mkdir -p byo
$PY "$ROOT/tests/fp_make.py" byo 60 by-opening
"$COHORT" freeze --spec byo/spec.json --candidates byo/candidates.jsonl --decisions byo/decisions.jsonl \
	--store byo/st -o byo/f.json byo/games.jsonl
for s in heldout explore; do
	"$COHORT" fingerprint --prereg byo/prereg.json --store byo/st --split $s -o byo/fp-$s.json byo/f.json
	check "fingerprint --split $s, openings in one split: every figure again, games included" \
		$PY "$ROOT/tests/fp_check.py" byo/candidates.jsonl byo/decisions.jsonl byo/games.jsonl byo/f.json \
		byo/prereg.json byo/fp-$s.json
done
$PY - byo/fp-heldout.json <<'P' && ok "fingerprint --split heldout: its openings' games, strength features estimated" ||
import json, sys
d = json.load(open(sys.argv[1]))
assert d["games_outside_split"] > 0
for f in d["fingerprints"]:
    assert f["games"] > 0 and f["units"] == 2, (f["family"], f["games"], f["units"])
g = {x["name"]: x for f in d["fingerprints"] if f["family"] == "alpha" for x in f["features"]}
assert isinstance(g["unaided"]["estimate"], (int, float)), g["unaided"]
P
	notok "fingerprint --split heldout, by opening" "see byo/fp-heldout.json"
# a split's run sharded: the same bytes merged; a part of another split is another run
for i in 1 2; do
	"$COHORT" fingerprint --prereg byo/prereg.json --store byo/st --split heldout --shard $i/2 \
		-o byo/part-$i.json byo/f.json
done
"$COHORT" merge -o byo/merged.json byo/part-2.json byo/part-1.json
same_bytes "fingerprint --split --shard: the parts merge into the whole run's bytes" byo/fp-heldout.json byo/merged.json
"$COHORT" fingerprint --prereg byo/prereg.json --store byo/st --split explore --shard 2/2 -o byo/part-e2.json byo/f.json
expect_fail2 "merge: parts of two splits are two runs" "another run" "$COHORT" merge byo/part-1.json byo/part-e2.json
