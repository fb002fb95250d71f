"""gate_fixtures.py PREREG-ID OUT-DIR: hand-made fingerprint and distance
documents for gates C and D (shapes of cohort.fingerprint/1 and
cohort.distance/1), with values chosen so each criterion's answer is known:
six families, one replication each on the explore split and one on the
heldout split; the heldout gain at width 5 is 2 delta_r[2] + order_change/2
(plus a small wobble), unrelated to the unaided level."""
import json
import os
import sys

pid, out = sys.argv[1], sys.argv[2]
fams = ["f%d" % i for i in range(1, 7)]
a = [10, 14, 9, 20, 16, 12]        # delta_r[2] on explore
b = [30, 10, 20, 40, 0, 25]        # order_change, in percent
u = [1500, 1480, 1550, 1400, 1600, 1450]  # unaided
wob = [0.5, -0.4, 0.3, -0.2, 0.1, -0.3]

def feat(name, est, se):
    return {"name": name, "estimate": est, "se": se, "lo": est - 1.96 * se, "hi": est + 1.96 * se}

def fp(split, entries):
    return {"kind": "cohort.fingerprint/1", "prereg": pid, "split": split,
            "inputs": {"freezes": [], "candidates": "sha256:" + "0" * 64, "decisions": [], "fits": []},
            "bootstrap": {"replicates": 200, "unit": "opening", "seed": 1, "complete": 200},
            "fingerprints": entries, "deviations": []}

train = [{"family": f, "replication": "r1",
          "features": [feat("delta_r[2]", a[i], 1), feat("order_change", b[i], 2), feat("unaided", u[i], 10)],
          "covariance": {"names": ["delta_r[2]", "order_change", "unaided"], "matrix": [[1, 0, 0], [0, 4, 0], [0, 0, 100]]}}
         for i, f in enumerate(fams)]
held = [{"family": f, "replication": "r1",
         "features": [feat("delta_r[5]", 2 * a[i] + b[i] / 2 + wob[i], 1), feat("omit_best[3]", 5 + i, 1),
                      feat("delta_r[2]", a[i], 1)],
         "covariance": {"names": ["delta_r[5]", "omit_best[3]", "delta_r[2]"], "matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}}
        for i, f in enumerate(fams)]
dist = {"kind": "cohort.distance/1", "prereg": pid, "inputs": {"fingerprints": []}, "lambda": 0.1,
        "features": ["delta_r[2]", "order_change", "unaided", "delta_r[5]"],
        "pairs": [{"a": {"family": x, "replication": "r1"}, "b": {"family": y, "replication": "r1"},
                   "d2": 30 + i + j, "lo": 20, "hi": 40, "components": {}}
                  for i, x in enumerate(fams) for j, y in enumerate(fams) if i < j],
        "test_retest": [{"family": f, "d2": 1.5 + 0.5 * i, "lo": 0.5, "hi": 4} for i, f in enumerate(fams)],
        "separation": [{"a": x, "b": y, "between": 30, "within_a": 2, "within_b": 2, "exceeds": True, "p": 0.001}
                       for i, x in enumerate(fams) for j, y in enumerate(fams) if i < j],
        "deviations": []}
for name, doc in (("train", fp("explore", train)), ("held", fp("heldout", held)), ("dist", dist)):
    open(os.path.join(out, name + ".raw.json"), "w").write(json.dumps(doc, indent=1))
