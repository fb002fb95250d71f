#!/usr/bin/python3
# pgn_check.py READ.jsonl FREEZE LEDGER... [--players condition]: the games
# a PGN reader read (pgn_read.py, pgn_read.js) against the records the
# freeze includes, worked out here from the ledger records alone: one game
# per included record, in the freeze's order, with no reader error; its
# result, moves, players, anchor Elo and the Cohort* tags of its fields as
# the record has them; every tag name letters only and every value free of
# '"' and '\' (a value that would need them is not looked for: it is in
# the comment); and where the reader keeps the comment before the first
# move, its JSON holds the record's requests.  Prints "N of N games".
import json, re, sys

args = [a for a in sys.argv[1:] if a not in ("--players", "condition")]
by_condition = "--players" in sys.argv
got = [json.loads(l) for l in open(args[0], encoding="utf-8")]
freeze = json.load(open(args[1]))
recs = {}
for path in args[2:]:
    for line in open(path, encoding="utf-8"):
        if line.strip():
            r = json.loads(line)
            recs[r["game_id"]] = r
want = [recs[g["game_id"]] for g in freeze["games"]]

def num(x):
    return str(int(x)) if x == int(x) else repr(x)

def plain(v):
    return isinstance(v, str) and v not in ("", "?") and len(v.encode()) <= 255 and \
        not any(c in v for c in '"\\') and all(" " <= c != "\x7f" for c in v)

def expect(r):
    black = r["color"] == "black"
    mside, aside = ("Black", "White") if black else ("White", "Black")
    res = {"draw": "1/2-1/2", "win": "0-1" if black else "1-0", "loss": "1-0" if black else "0-1"}[r["result"]]
    t = {"Result": res, aside + "Elo": num(r["anchor"]["elo"]), "CohortGameId": r["game_id"],
         "CohortFamily": r["family"], "CohortCondition": r["condition"], "CohortBlock": num(r["block"]),
         "CohortColor": r["color"]}
    if by_condition:
        t[mside] = "%s/%s" % (r["family"], r["condition"])
        t[aside] = "anchor-" + num(r["anchor"]["elo"])
        t["CohortModel"] = r["model"]["returned"]
        t["CohortAnchorEngine"] = r["anchor"]["engine"]
    else:
        t[mside] = r["model"]["returned"]
        t[aside] = r["anchor"]["engine"]
    tok = r.get("tokens")
    if isinstance(tok, dict) and tok and set(tok) <= {"input", "output", "reasoning", "cached"}:
        for k in tok:
            t["CohortTokens" + k.capitalize()] = num(tok[k])
    # a value no tag can hold is in the comment, not in a tag
    return res, r.get("moves", []), {k: v for k, v in t.items() if plain(v)}

bad = []
if len(got) != len(want):
    bad.append("%d games read, %d included" % (len(got), len(want)))
for i, (g, r) in enumerate(zip(got, want)):
    res, moves, tags = expect(r)
    why = []
    if g["errors"]:
        why.append("reader: " + "; ".join(g["errors"])[:200])
    else:
        for k, v in tags.items():
            if g["tags"].get(k) != v:
                why.append("tag %s: %r, want %r" % (k, g["tags"].get(k), v))
        if g["result"] != res:
            why.append("result %r, want %r" % (g["result"], res))
        if g["moves"] != moves:
            why.append("%d moves, want %d (first difference at %d)" % (len(g["moves"]), len(moves),
                       next((j for j, (a, b) in enumerate(zip(g["moves"], moves)) if a != b), min(len(moves), len(g["moves"])))))
        for k, v in g["tags"].items():
            if not re.fullmatch(r"[A-Za-z]+", k) or '"' in v or "\\" in v:
                why.append("tag %s %r is not plain" % (k, v))
        if g["note"] is not None:
            if not g["note"].startswith("cohort "):
                why.append("comment %r" % g["note"][:60])
            elif json.loads(g["note"][7:]).get("requests") != r.get("requests"):
                why.append("the comment's requests are not the record's")
    if why:
        bad.append("%s: %s" % (r["game_id"], "; ".join(why)))
print("%d of %d games" % (len(want) - len(bad), len(want)))
for b in bad[:5]:
    print(b)
sys.exit(1 if bad else 0)
