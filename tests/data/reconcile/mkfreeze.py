#!/usr/bin/python3
"""mkfreeze.py COHORT SPEC LEDGER... : a minimal cohort.freeze/1 for the
reconcile tests (only the fields reconcile reads), on stdout.  Identities
come from `cohort canon --id` of each ledger line."""
import json, subprocess, sys
from datetime import datetime

cohort, spec_path, ledgers = sys.argv[1], sys.argv[2], sys.argv[3:]
spec = json.load(open(spec_path))
as_of = spec["as_of"]
t = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))
games, excluded, blocks = [], [], {}
for path in ledgers:
    for line in open(path, encoding="utf-8"):
        g = json.loads(line)
        gid = subprocess.run([cohort, "canon", "--id"], input=line.encode(),
                             capture_output=True, check=True).stdout.decode().strip()
        reason = None
        if g["family"] not in spec["families"]:
            reason = "family"
        elif g["condition"] not in spec["conditions"]:
            reason = "condition"
        elif ("started_at" in g and t(g["started_at"]) > t(as_of)) or \
             (g["status"] == "terminal" and t(g["ended_at"]) > t(as_of)):
            reason = "after_cut"
        elif g["status"] != "terminal":
            reason = g["status"]
        if reason:
            excluded.append({"game_id": g["game_id"], "id": gid, "reason": reason})
            continue
        games.append({"game_id": g["game_id"], "id": gid, "condition": g["condition"],
                      "block": g["block"], "anchor": g["anchor"]["elo"],
                      "color": g["color"], "result": g["result"]})
        k = (spec["conditions"].index(g["condition"]), g["block"], g["color"])
        b = blocks.setdefault(k, {"condition": g["condition"], "block": g["block"],
                                  "anchor": g["anchor"]["elo"], "color": g["color"],
                                  "games": 0, "w": 0, "d": 0, "l": 0})
        b["games"] += 1
        b[g["result"][0]] += 1
games.sort(key=lambda g: g["game_id"])
excluded.sort(key=lambda g: g["game_id"])
doc = {"kind": "cohort.freeze/1", "spec": spec, "as_of": as_of, "games": games,
       "excluded": excluded, "blocks": [blocks[k] for k in sorted(blocks)],
       "conditions": [{"condition": c, "state": "active"} for c in spec["conditions"]]}
json.dump(doc, sys.stdout, sort_keys=True, separators=(",", ":"))
