# decisions.test.sh: decision logs frozen as evidence: stored canonical,
# listed by identity, excluded with their reasons, re-derived by verify;
# malformed logs refused naming file:line and field.
PY=/usr/bin/python3
D=$ROOT/examples/paired-toy
fz() { "$COHORT" freeze --spec "$D/spec.json" --candidates "$D/candidates.jsonl" "$@"; }

fz --decisions "$D/decisions.jsonl" --store st -o f.json
check "freeze of decisions: exit 0" test -s f.json
fz --decisions "$D/decisions.jsonl" >f2.json
same_bytes "freeze of decisions: the same bytes twice" f.json f2.json
$PY - f.json "$D" <<'P' && ok "decisions: counts, reasons and the manifest's identity" || notok "decisions: counts" "$(head -c 300 f.json)"
import hashlib, json, sys
d = json.load(open(sys.argv[1]))["decisions"]
man = open(sys.argv[2] + "/candidates.jsonl", "rb").read()
assert d["candidates"] == "sha256:" + hashlib.sha256(man).hexdigest(), d["candidates"]
ex = {x["decision_id"]: (x["reason"], x.get("why")) for x in d["excluded"]}
assert [r for r, _ in ex.values()].count("invalid") == 3, ex
assert sorted(r for r, _ in ex.values() if r != "invalid") == ["after_cut", "family", "provider_error"], ex
logs = [json.loads(l) for l in open(sys.argv[2] + "/decisions.jsonl")]
assert d["totals"] == {"decisions": len(logs) - 6, "excluded": 6}, d["totals"]
ids = [x["decision_id"] for x in d["included"]]
assert ids == sorted(ids)
assert sum(c["decisions"] for c in d["cells"]) == len(ids)
P
expect_status "verify re-derives the decisions" 0 "$COHORT" verify --store st f.json
grep -q '"subject":"decisions"' "$TMP/out" && ok "verify names the decisions section" || notok "verify names decisions" "$(head -c 300 "$TMP/out")"

# a manifest whose decisions say what the records do not
$PY - f.json >f-edit.json <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
d["decisions"]["included"][0]["condition"] = "top5"
print(json.dumps(d, separators=(",", ":"), sort_keys=True), end="")
P
expect_status "an edited decisions entry is a finding" 1 "$COHORT" verify --store st f-edit.json
# the same decisions from SQLite
$PY - "$D/decisions.jsonl" dec.sqlite <<'P'
import json, sqlite3, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
keys = sorted({k for r in recs for k in r})
db = sqlite3.connect(sys.argv[2])
db.execute("CREATE TABLE decisions(%s)" % ", ".join('"%s"' % k for k in keys))
for r in recs:
    db.execute("INSERT INTO decisions VALUES (%s)" % ", ".join("?" * len(keys)),
               [json.dumps(r[k]) if isinstance(r.get(k), (dict, list)) else r.get(k) for k in keys])
db.commit()
P
fz --decisions dec.sqlite >f-sql.json
# a NULL column is an absent field: the same log without its nulls
$PY -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print(json.dumps({k: v for k, v in r.items() if v is not None}))' "$D/decisions.jsonl" >nonull.jsonl
fz --decisions nonull.jsonl >f-nonull.json
same_bytes "decisions from SQLite: the manifest of the same log" f-nonull.json f-sql.json

# A log as harnesses write it: every field the contract calls optional
# written null where it has no value ("proposed": null on the conditions
# that ask for no shortlist, "budget", "failure", "chosen"), in python's
# spacing.  Null is absent: the freeze keeps the records as written (their
# identities differ), and the paired endpoints are those of the log
# without the nulls.
$PY -c '
import json, sys
a, h = open(sys.argv[2], "w"), open(sys.argv[3], "w")
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["family"] == "beta":
        del r["budget"]  # a harness with no budget control
    print(json.dumps(r), file=a)
    r.setdefault("proposed", None)
    r["budget"] = r.get("budget")
    r.setdefault("failure", None)
    print(json.dumps(r), file=h)' nonull.jsonl absent.jsonl harness.jsonl
grep -q '"proposed": null' harness.jsonl && grep -q '"budget": null' harness.jsonl &&
	ok "the harness's log holds \"proposed\": null and \"budget\": null" ||
	notok "the harness's log holds nulls" "$(head -c 300 harness.jsonl)"
expect_status "freeze: a log with \"proposed\": null and \"budget\": null" 0 \
	fz --decisions harness.jsonl --store hst -o f-harness.json
fz --decisions absent.jsonl --store nst -o f-nonull2.json
$PY -c 'import json,sys; a=json.load(open(sys.argv[1]))["decisions"]; b=json.load(open(sys.argv[2]))["decisions"]
sys.exit(not (a["cells"] == b["cells"] and a["totals"] == b["totals"] and
    [x["decision_id"] for x in a["excluded"]] == [x["decision_id"] for x in b["excluded"]]))' f-harness.json f-nonull2.json &&
	ok "freeze: null is absent (the same cells, totals and exclusions)" ||
	notok "freeze: null is absent" "cells differ"
"$COHORT" paired --store hst f-harness.json >p-harness.json
"$COHORT" paired --store nst f-nonull2.json >p-nonull.json
$PY -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
sys.exit(a["cells"] != b["cells"])' p-harness.json p-nonull.json &&
	ok "paired: the log with nulls gives the endpoints of the log without them" ||
	notok "paired: the log with nulls gives the same endpoints" "$(cmp p-harness.json p-nonull.json)"
expect_status "verify: the freeze of the log with nulls" 0 "$COHORT" verify --store hst f-harness.json

# Entries whose strings need escapes or are not ASCII (a decision_id with
# a quote, a backslash, a control character, U+2028; a replication and a
# budget not ASCII; an excluded one's too): each entry the canonical bytes
# of its members, which Python's writer gives for strings (RFC 8785
# escapes exactly what it does), in decision_id byte order, and verify
# re-derives them.
$PY - "$D/decisions.jsonl" >odd.jsonl <<'P'
import json, sys
odd = ['d"q', 'd\\b', 'd\x01c', 'd\u2028e', 'd\u00e9f', 'd\x7fg', 'd/h']
for i, l in enumerate(open(sys.argv[1])):
    r = json.loads(l)
    if i < len(odd):
        r["decision_id"] = odd[i] + r["decision_id"]
        r["replication"] = "r\u00e9" if i % 2 else "r\t1"
        r["budget"] = "lo\u00efw" if i % 3 else r["budget"]
    print(json.dumps(r, sort_keys=True, separators=(",", ":"), ensure_ascii=i % 2 == 0))
P
fz --decisions odd.jsonl --store st-odd -o f-odd.json
$PY - f-odd.json <<'P' && ok "decisions with escapes: each entry canonical, in byte order" || notok "decisions with escapes" "$(head -c 300 f-odd.json)"
import json, sys
raw = open(sys.argv[1], "rb").read()
d = json.loads(raw)["decisions"]
for k in ("included", "excluded"):
    ids = [e["decision_id"].encode() for e in d[k]]
    assert ids == sorted(ids), k
    for e in d[k]:
        b = json.dumps(e, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        assert b in raw, b
assert any("\u2028" in e["decision_id"] for e in d["included"] + d["excluded"])
assert any(e.get("budget") == "lo\u00efw" for e in d["included"])
P
expect_status "verify re-derives decisions with escapes" 0 "$COHORT" verify --store st-odd f-odd.json

# The same log in decision_id order and in reverse order: the same manifest
# (a log already in order is taken as it is).
$PY -c '
import json, sys
recs = [l for l in open(sys.argv[1])]
recs.sort(key=lambda l: json.loads(l)["decision_id"].encode())
open("sorted.jsonl", "w").writelines(recs)
open("reversed.jsonl", "w").writelines(reversed(recs))' "$D/decisions.jsonl"
fz --decisions sorted.jsonl >f-sorted.json
fz --decisions reversed.jsonl >f-reversed.json
same_bytes "decisions in decision_id order: the same manifest" f.json f-sorted.json
same_bytes "decisions in reverse order: the same manifest" f.json f-reversed.json
head -n 3 sorted.jsonl >dup-sorted.jsonl
sed -n 3p sorted.jsonl >>dup-sorted.jsonl
expect_fail2 "a decision_id given twice at the end of a log in order: both named" \
	'dup-sorted.jsonl:4: "decision_id": "[^"]*" appears twice \(also dup-sorted.jsonl:3\)' \
	fz --decisions dup-sorted.jsonl

# Ids that share long beginnings are put in order 24 bytes at a time, and
# past 192 alike as strings: ids alike up to 0, 23, 24, 25, 47, 48, 49,
# 191, 192, 193 and 400 bytes, some a prefix of others, in random order,
# come out in byte order, on one thread and on two (70,000 of them); a
# repeat past 192 bytes alike, or ending at a key's edge, names both lines.
$PY - "$D/decisions.jsonl" <<'P'
import json, random, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
rng = random.Random(7)
def ids(n):
    out = set()
    while len(out) < n:
        k = rng.choice([0, 23, 24, 25, 47, 48, 49, 191, 192, 193, 400])
        stem = "".join(rng.choice("ab") for _ in range(3))
        d = "p" * k + stem[: rng.randint(0, 3)] + ("" if rng.random() < 0.2 else str(rng.randint(0, 99999)))
        if d:
            out.add(d)
    return sorted(out)
for name, n in (("long-small", 3000), ("long-big", 70000)):
    mine = ids(n)
    rng.shuffle(mine)
    with open(name + ".jsonl", "w") as f:
        for i, d in enumerate(mine):
            r = dict(recs[i % len(recs)], decision_id=d)
            f.write(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n")
lines = open("long-small.jsonl").readlines()
for name, k in (("long-dup400", 400), ("long-dup48", 48 - 2)):
    r = json.loads(lines[5]); r["decision_id"] = "q" * k + "zz"
    s = json.loads(lines[9]); s["decision_id"] = "q" * k + "zz"
    t = json.loads(lines[7]); t["decision_id"] = "q" * k + "zy"
    with open(name + ".jsonl", "w") as f:
        for i, l in enumerate(lines):
            f.write(json.dumps(r if i == 5 else s if i == 9 else t if i == 7 else json.loads(l),
                sort_keys=True, separators=(",", ":")) + "\n")
P
for t in long-small long-big; do
	fz --decisions $t.jsonl -o f-$t.json
	$PY - f-$t.json $t.jsonl <<'P' && ok "ids alike up to 400 bytes: in byte order ($t)" || notok "ids alike up to 400 bytes ($t)" "see $t.jsonl"
import json, sys
d = json.load(open(sys.argv[1]))["decisions"]
for k in ("included", "excluded"):
    got = [e["decision_id"].encode() for e in d[k]]
    assert got == sorted(got), k
want = sorted(json.loads(l)["decision_id"].encode() for l in open(sys.argv[2]))
assert sorted(e["decision_id"].encode() for e in d["included"] + d["excluded"]) == want
P
done
expect_fail2 "a decision_id given twice, alike for 400 bytes: both named" \
	'long-dup400.jsonl:10: "decision_id": "q{80}" appears twice \(also long-dup400.jsonl:6\)' \
	fz --decisions long-dup400.jsonl
expect_fail2 "a decision_id given twice, 48 bytes long: both named" \
	'long-dup48.jsonl:10: "decision_id": "q{46}zz" appears twice \(also long-dup48.jsonl:6\)' \
	fz --decisions long-dup48.jsonl

# Decisions shaped as harnesses write them (bench/realdec.py: the engine
# panel's, each record's keys in an order of its own, spaces after some
# separators, escapes and non-ASCII text in unknown fields, 17-digit
# latencies): the same manifest as the log made canonical by Python's
# writer (RFC 8785 for these values), and verify re-derives it.
P=$ROOT/examples/engine-panel
$PY "$ROOT/bench/realdec.py" 400000 real.jsonl
$PY -c '
import json, sys
for l in open(sys.argv[1], encoding="utf-8"):
    print(json.dumps(json.loads(l), sort_keys=True, separators=(",", ":"), ensure_ascii=False))' \
	real.jsonl >real-canon.jsonl
"$COHORT" freeze --spec "$P/spec-r1.json" --candidates "$P/candidates.jsonl" \
	--decisions real.jsonl --store st-real -o f-real.json
"$COHORT" freeze --spec "$P/spec-r1.json" --candidates "$P/candidates.jsonl" \
	--decisions real-canon.jsonl -o f-real-canon.json
check "real-shaped decisions: some records are not canonical as written" \
	sh -c '! cmp -s real.jsonl real-canon.jsonl'
same_bytes "real-shaped decisions: the manifest of the log made canonical" f-real.json f-real-canon.json
expect_status "verify re-derives real-shaped decisions" 0 "$COHORT" verify --store st-real f-real.json

# A budget of "" and none: one cell (its budget written null, its count
# both's), each entry as its record has it; verify re-derives them.
$PY - "$D/decisions.jsonl" >nobudget.jsonl <<'P'
import json, sys
for i, l in enumerate(open(sys.argv[1])):
    r = json.loads(l)
    if i % 3 == 1:
        r["budget"] = ""
    elif i % 3 == 2:
        del r["budget"]
    print(json.dumps(r, sort_keys=True, separators=(",", ":")))
P
fz --decisions nobudget.jsonl --store st-nb -o f-nb.json
$PY - f-nb.json nobudget.jsonl <<'P' && ok "a budget of \"\" and none: one cell, each entry as its record" || notok "budget \"\" and none" "$(head -c 300 f-nb.json)"
import collections, json, sys
d = json.load(open(sys.argv[1]))["decisions"]
recs = {r["decision_id"]: r for r in map(json.loads, open(sys.argv[2]))}
inc = d["included"]
for e in inc:
    assert ("budget" in recs[e["decision_id"]]) == (e["budget"] is not None), e
    assert e["budget"] == recs[e["decision_id"]].get("budget"), e
want = collections.Counter((e["family"], e["replication"], e["condition"], e["budget"] or None) for e in inc)
got = {(c["family"], c["replication"], c["condition"], c["budget"]): c["decisions"] for c in d["cells"]}
assert got == dict(want), (got, want)
assert any(e["budget"] == "" for e in inc) and any(e["budget"] is None for e in inc)
P
expect_status "verify re-derives decisions without a budget" 0 "$COHORT" verify --store st-nb f-nb.json

# refusals: exit 2, file:line and field, no output file
head -1 "$D/decisions.jsonl" >one.jsonl
sed 's/"shown":\[\]/"shown":"e2e4"/' one.jsonl >bad1.jsonl
expect_fail2 "a decision whose shown is not an array" 'bad1.jsonl:1: "shown": expected an array' fz --decisions bad1.jsonl
sed 's/"condition":"none"/"condition":"top0"/' one.jsonl >bad2.jsonl
expect_fail2 "an unknown condition" 'bad2.jsonl:1: "condition": expected none, top<k>' fz --decisions bad2.jsonl
cat one.jsonl one.jsonl >dup.jsonl
expect_fail2 "a decision_id given twice: both records named" \
	'dup.jsonl:2: "decision_id": "d0001" appears twice \(also dup.jsonl:1\)' fz --decisions dup.jsonl
cp one.jsonl dup2.jsonl
expect_fail2 "a decision_id given twice, in two logs: both named" \
	'dup2.jsonl:1: "decision_id": "d0001" appears twice \(also one.jsonl:1\)' fz --decisions one.jsonl \
	--decisions dup2.jsonl
expect_fail2 "decisions without candidates" 'decisions needs --candidates' "$COHORT" freeze --spec "$D/spec.json" --decisions one.jsonl
fz --decisions bad1.jsonl -o no.json >/dev/null 2>&1
[ ! -e no.json ] && ok "a refused log leaves no output file" || notok "no output on refusal" "no.json exists"

# A decision's moves are looked up among its position's legal moves' UCI
# texts, made once (cand_legal_move): against chess_uci_among on every
# text of squares and promotion letters and some that are none, in the
# example's positions and in four more (castling both ways, promotions of
# both sides, en passant).
$PY - "$D/candidates.jsonl" >special.jsonl <<'P'
import json, sys
head = json.loads(open(sys.argv[1]).readline())
print(json.dumps(head, sort_keys=True, separators=(",", ":")))
for pid, fen, mv, side in [
        ("p1", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", "e1g1", "white"),
        ("p2", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", "c4c5", "white"),
        ("p3", "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", "c5c4", "black"),
        ("p4", "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", "e5f6", "white")]:
    print(json.dumps({"candidates": [{"cp": 10, "pv": [mv], "uci": mv}], "fen": fen, "opening": "o9",
        "position_id": pid, "split": "explore",
        "stratum": {"kind": "tactical", "phase": "middlegame", "to_move": side}},
        sort_keys=True, separators=(",", ":")))
P
check "unit: a move looked up by its UCI text is chess_uci_among's (tests/unit/cand_legal.c)" \
	"$BUILD/tests/unit/cand_legal" "$D/candidates.jsonl" special.jsonl "$ROOT/examples/engine-panel/candidates.jsonl"

# The flat decision reader (protocol/decision.c) against the tree reader:
# every record of the example and a thousand mutations of them (each field
# dropped, nulled, of another type, out of range, escaped, non-ASCII, the
# keys shuffled), read both ways, the flat one's yes always the tree's
# decision; both ways taken.
$PY - "$D/decisions.jsonl" >mut.jsonl <<'P'
import json, random, sys
rng = random.Random(11)
recs = [json.loads(l) for l in open(sys.argv[1])]
odd = [None, True, 0, -1, 1.5, 1e300, 2 ** 60, "", "x", "\u00e9\n", [], {}, ["e2e4"], "2026-13-01T00:00:00Z"]
for i in range(1000):
    r = json.loads(json.dumps(rng.choice(recs)))
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        path = [r]
        k = rng.choice(list(r))
        if isinstance(r[k], dict) and r[k] and rng.random() < 0.5:
            path, k = [r[k]], rng.choice(list(r[k]))
        o = path[0]
        if rng.random() < 0.2:
            del o[k]
        else:
            o[k] = rng.choice(odd)
    items = list(r.items())
    rng.shuffle(items)
    print(json.dumps(dict(items), ensure_ascii=rng.random() < 0.5))
P
cat "$D/decisions.jsonl" >>mut.jsonl
# Records of two shapes the same but for a key's name, in turn: "proposed"
# and, in its place, "provided" (no field), its value the same (what the
# reader keeps of a shape must be that shape's).
$PY - "$D/decisions.jsonl" >>mut.jsonl <<'P'
import json, sys
r = next(json.loads(l) for l in open(sys.argv[1]) if '"proposed"' in l)
t = dict(r)
t["provided"] = t.pop("proposed")
for _ in range(3):
    for x in (r, t):
        print(json.dumps(x, sort_keys=True, separators=(",", ":")))
P
if "$BUILD/tests/unit/decision_flat" mut.jsonl >mut.out 2>mut.err; then
	read -r nrec _ nflat _ <mut.out
	[ "$nflat" -gt 0 ] && [ "$nflat" -lt "$nrec" ] &&
		ok "decisions: the flat reader's yes is the tree reader's decision ($(cat mut.out))" ||
		notok "decisions: both readers taken" "$(cat mut.out)"
else
	notok "decisions: the flat reader agrees with the tree reader" "$(cat mut.err mut.out)"
fi
