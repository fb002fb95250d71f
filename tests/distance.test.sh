# distance.test.sh: cohort distance: every figure computed again by an
# independent implementation (tests/dist_check.py), closed forms on
# constructed fingerprints, the schema, the same bytes on any number of
# threads, verify's refit, the table, and refusals.
PY=/usr/bin/python3
$PY "$ROOT/tests/fp_make.py" . 60
"$COHORT" freeze --spec spec.json --candidates candidates.jsonl --decisions decisions.jsonl --store st \
	-o f.json games.jsonl
"$COHORT" fingerprint --prereg prereg.json --store st -o fp.json f.json
"$COHORT" distance -o d.json fp.json
check "distance: every figure, as an independent implementation gives it" \
	$PY "$ROOT/tests/dist_check.py" fp.json d.json
check "distance: the document validates against schemas/distance.schema.json" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/distance.schema.json" d.json
COHORT_JOBS=1 "$COHORT" distance -o d1.json fp.json
same_bytes "distance: the same bytes on one thread" d.json d1.json
check "distance: the quadratic forms by AVX2 and one at a time, the same document (tests/unit/dist_simd.c)" \
	"$BUILD/tests/unit/dist_simd" fp.json
# rows of every odd shape, read flat and from the tree alike
$PY - fp.json <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["fingerprints"][0]["replicates"]["rows"]
r[0][0], r[1][1], r[2][2], r[3][3] = None, "x", [1, [2]], {"a": 1}
r[4], r[5], r[6], r[7] = 7, r[5][:-3], r[6] + [1, 2], {"k": 1, "j": [2]}
# runs of numbers that are rows, and inside a row's nested value
r[8], r[9], r[10], r[11][1] = 5, 6.5, -7, [1, 2.5, 3, 1e300]
d["fingerprints"][1]["replicates"]["rows"] = {"a": [1]}
json.dump(d, open("odd.json", "w"))
json.dump(d, open("oddc.json", "w"), separators=(",", ":"))
json.dump(d, open("oddt.json", "w"), separators=(",\t", ":"))
P
for f in odd oddc oddt; do
	check "distance: rows of odd shapes ($f.json), held flat and in the tree, the same document" \
		"$BUILD/tests/unit/dist_simd" $f.json
done
"$COHORT" distance -o dodd.json odd.json
"$COHORT" verify odd.json dodd.json >vodd.json
grep -q '"check":"refit","detail":"computed again from its inputs: the same bytes","ok":true,"subject":"dodd.json"' vodd.json &&
	ok "verify: the refit of rows of odd shapes, from the tree, holds" ||
	notok "verify: the refit of rows of odd shapes" "$(head -c 300 vodd.json)"
expect_status "verify recomputes the distance from its fingerprints" 0 \
	"$COHORT" verify --store st prereg.json f.json fp.json d.json
grep -q '"check":"refit","detail":"computed again from its inputs: the same bytes","ok":true,"subject":"d.json"' "$TMP/out" &&
	ok "verify: the distance refit holds" || notok "verify: the distance refit" "$(head -c 300 "$TMP/out")"
sed 's/"d2":\([0-9]\)/"d2":1\1/' d.json >dx.json
expect_status "verify: an edited distance is a finding" 1 "$COHORT" verify fp.json dx.json
"$COHORT" distance --format table fp.json >tab.txt
grep -Eq '^alpha/r1 +0 ' tab.txt && grep -q '^test-retest' tab.txt && grep -q '^separation' tab.txt &&
	ok "distance --format table: the matrix, test-retest, separation" || notok "distance --format table" "$(cat tab.txt)"
# constructed fingerprints with known answers
$PY - <<'P'
import json
def fp(fam, rep, est, rows, pop="none", lam=0.0):
    return {"family": fam, "replication": rep, "features": [{"name": "order_change", "estimate": est, "se": 1}],
            "covariance": {"names": ["order_change"], "complete": len(rows), "matrix": [[1]]},
            "replicates": {"names": ["order_change"], "rows": [[r] for r in rows]}}
def doc(fps, pop, lam):
    return {"kind": "cohort.fingerprint/1", "prereg": "sha256:" + "0" * 64, "widths": [0],
            "bootstrap": {"replicates": 4}, "distance": {"lambda": lam, "population": pop},
            "fingerprints": fps}
a, b = fp("a", "r1", 0, [-1, 1, 0, 0]), fp("b", "r1", 3, [3, 3, 2, 4])
json.dump(doc([a, b], "none", 0), open("k1.json", "w"))
json.dump(doc([a, b], "panel", 0), open("k2.json", "w"))
# two features that move together: singular without lambda
c = {"family": "c", "replication": "r1",
     "features": [{"name": "order_change", "estimate": 0, "se": 1}, {"name": "illegal_rate", "estimate": 1, "se": 1}],
     "covariance": {"names": ["order_change", "illegal_rate"], "complete": 4, "matrix": [[1, 1], [1, 1]]},
     "replicates": {"names": ["order_change", "illegal_rate"], "rows": [[0, 0]] * 4}}
d = dict(c, family="d")
json.dump(doc([c, d], "none", 0), open("k3.json", "w"))
json.dump(doc([c, d], "none", 0.5), open("k4.json", "w"))
P
"$COHORT" distance -o k1d.json k1.json
"$COHORT" distance -o k2d.json k2.json
check "distance: constructed fingerprints, AVX2 and one at a time the same" "$BUILD/tests/unit/dist_simd" k2.json
$PY - k1d.json k2d.json <<'P' && ok "distance: closed forms on constructed fingerprints" ||
import json, math, sys
p = json.load(open(sys.argv[1]))["pairs"][0]
# scale 1 (root mean variance), M = 1 + 1: d2 = 9/2, tr(M^-1 (Si+Sj)) = 1;
# replicates (-1-3)^2/2 = 8, 2, 2, 8: the 2.5% and 97.5% points 2 and 8
assert (p["d2"], p["null_mean"], p["lo"], p["hi"], p["replicates"]) == (4.5, 1, 2, 8, 4), p
assert p["components"]["order"] == {"estimate": 3, "lo": 2, "hi": 4}, p["components"]["order"]
assert p["components"]["k_curve"]["estimate"] is None and p["components"]["k_curve"]["reason"]
d = json.load(open(sys.argv[2]))
s = round(3 / math.sqrt(2), 5)  # the panel's spread, to six digits
z = 3 / s
M = z * z / 2 + 2 / (s * s)
assert d["scales"] == [s], d["scales"]
assert abs(d["pairs"][0]["d2"] - z * z / M) < 1e-6, (d["pairs"][0], z * z / M)
assert d["test_retest"][0]["d2"] is None and d["separation"][0]["exceeds"] is None, d
P
	notok "distance: closed forms" "$(cat k1d.json)"
check "distance: the constructed cases, every figure again" $PY "$ROOT/tests/dist_check.py" k2.json k2d.json
expect_fail2 "distance: a matrix not positive definite after lambda" "not positive definite \(lambda 0\)" \
	"$COHORT" distance k3.json
expect_status "distance: lambda 0.5 makes it positive definite" 0 "$COHORT" distance k4.json
expect_fail2 "distance: not a fingerprint" "not a cohort.fingerprint/1" "$COHORT" distance f.json
sed 's/"lambda":0.1/"lambda":0.2/' fp.json >fp-other.json
expect_fail2 "distance: fingerprints of other settings" "another prereg, distance setting" \
	"$COHORT" distance fp.json fp-other.json
expect_fail2 "distance: one fingerprint twice" "given twice" "$COHORT" distance fp.json fp.json
# fingerprints of two splits: one family and replication of the explore
# and of the heldout openings are two fingerprints, named with their split
"$COHORT" fingerprint --prereg prereg.json --store st --split explore -o fpe.json f.json
"$COHORT" fingerprint --prereg prereg.json --store st --split heldout -o fph.json f.json
"$COHORT" distance -o ds.json fpe.json fph.json
check "distance of two splits' fingerprints: every figure again" \
	$PY "$ROOT/tests/dist_check.py" fpe.json fph.json ds.json
check "distance of two splits: validates against schemas/distance.schema.json" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/distance.schema.json" ds.json
$PY - ds.json <<'P' && ok "distance of two splits: the same family and replication across the openings is a pair" ||
import json, sys
d = json.load(open(sys.argv[1]))
assert {"family": "alpha", "replication": "r1", "split": "heldout"} in d["fingerprints"], d["fingerprints"]
assert any(p["a"]["family"] == p["b"]["family"] == "alpha" and p["a"]["replication"] == p["b"]["replication"] == "r1"
           and p["a"]["split"] == "explore" and p["b"]["split"] == "heldout" for p in d["pairs"])
P
	notok "distance of two splits" "see ds.json"
expect_status "verify recomputes the distance of two splits" 0 \
	"$COHORT" verify --store st prereg.json f.json fpe.json fph.json ds.json
"$COHORT" distance --format table fpe.json fph.json >tabs.txt
grep -Eq '^alpha/r1/heldout +' tabs.txt && ok "distance --format table: a fingerprint's split in its label" ||
	notok "distance --format table: split labels" "$(head -3 tabs.txt)"
expect_fail2 "distance: one split's fingerprint given twice" "alpha/r1 of split heldout given twice" \
	"$COHORT" distance fph.json fph.json
