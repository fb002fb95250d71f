# manifest.test.sh: the manifest's bytes are written directly, not from a
# tree: they must be canonical (`cohort canon` and an independent writer,
# Python's json with sorted keys, give the same bytes back) on the example
# cohorts and on a ledger of escaped and non-ASCII game_ids and conditions,
# both colors, fractional anchors and every exclusion reason, with "repo"
# present and absent; the refusals keep their messages.
EX=$ROOT/examples
PY=/usr/bin/python3
U=$BUILD/tests/unit/freeze_write

cat >gen.py <<'PYEOF'
import json, sys
conds = ["none", "t\tab", "caf\u00e9 \"q\"", "nul\u0000\u0001\u001f\u007f", "\U0001F600\u2028\\"]
spec = {"kind": "cohort.spec/1", "name": "escapes", "as_of": "2026-07-20T00:00:00Z",
        "families": ["luna", "\u00e9t\u00e9"], "conditions": conds,
        "ladder": {"block_games": 4, "start": 1320, "max": 3190,
                   "promote": [[0.9, 400], [0.8, 300], [0.65, 200]], "stop_below": 0.35,
                   "max_repeats": 1},
        "protocol": {"note": "z\u00e9\ttab", "a": [1, 2.5, None, True]}}
ids = ["g\u00e9-\"q\"", "g\\back", "g\nnl", "g\u0000z", "\U0001F600", "\u2028sep",
       "\u007fdel", "\u00ff", "\uffff", "a/b", "ctl\u0001\u001f", "tab\t", "plain"]
n = 0
def rec(gid, cond, block, color, elo, result, status="terminal", family="luna",
        started="2026-06-22T08:03:48Z", ended="2026-06-22T09:20:11Z"):
    global n
    n += 1
    r = {"game_id": gid, "family": family, "model": {"requested": "m", "returned": "m"},
         "condition": cond, "color": color,
         "anchor": {"engine": "stockfish-18", "elo": elo, "time_s": 0.1},
         "opening": "startpos", "block": block, "status": status, "started_at": started,
         "tokens": {"input": 1000 + n, "output": 7 * n, "reasoning": 3 * n, "cached": n},
         "wall_s": 100.125 + n / 7, "worker_hours": 0.001 * n + 1 / 3, "requests": ["r%d" % n]}
    if status == "terminal":
        r.update(result=result, termination="checkmate", plies=40 + n, ended_at=ended)
    elif result:
        r["result"] = result
    return r
recs, k = [], 0
for ci, c in enumerate(conds):
    for b in (1, 2):
        for color in ("white", "black"):
            for g in range(4):
                recs.append(rec("%s-%s-b%d-%s-%d" % (ids[k % len(ids)], c, b, color, g), c, b,
                                color, 1320 if b == 1 else (1520.5 if ci % 2 else 1720),
                                ["win", "draw", "loss", "win"][(g + ci + b) % 4]))
                k += 1
for i, gid in enumerate(ids):
    recs.append(rec(gid, conds[i % len(conds)], 1, "black", 1320, "win"))
recs.append(rec("x-family-\u00e9", "none", 1, "black", 1320, "win", family="other"))
recs.append(rec("x-cond\t1", "unknown \u00e9", 1, "black", 1320, "win"))
recs.append(rec("x-cut\"", "none", 9, "black", 1320, "win", started="2026-07-21T00:00:00Z",
                ended="2026-07-21T01:00:00Z"))
recs.append(rec("x-live\\", "none", 9, "black", 1320, None, status="live"))
recs.append(rec("x-perr\u0000", "none", 9, "black", 1320, None, status="provider_error"))
recs.append(rec("x-abort\U0001F600", "none", 9, "black", 1320, "loss", status="aborted"))
recs.reverse()
json.dump(spec, open("esc-spec.json", "w", encoding="utf-8"), ensure_ascii=False, indent=1)
with open("esc.jsonl", "w", encoding="utf-8") as f:
    for r in recs:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
def edit(name, pick, elo):
    with open(name, "w", encoding="utf-8") as f:
        for i, r in enumerate(recs):
            if pick(i, r):
                r = dict(r, anchor=dict(r["anchor"], elo=elo))
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
grp = [i for i, r in enumerate(recs) if r["condition"] == "t\tab" and r["block"] == 2
       and r["color"] == "white"]
edit("esc-group.jsonl", lambda i, r: i == grp[1], 1999)
edit("esc-two.jsonl", lambda i, r: r["condition"] == "t\tab" and r["block"] == 2
     and r["color"] == "black", 1999)
PYEOF
$PY gen.py

# The independent writer: Python's json, keys sorted, no spaces, UTF-8 as
# is.  For these documents (ASCII keys, numbers Python prints as ECMAScript
# does) that is RFC 8785.
cat >canon.py <<'PYEOF'
import json, sys
raw = open(sys.argv[1], "rb").read()
d = json.loads(raw.decode("utf-8"))
again = json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
if again != raw:
    i = next((i for i in range(min(len(raw), len(again))) if raw[i] != again[i]), None)
    sys.exit("differ at byte %s: %r / %r" % (i, raw[i - 20:i + 20] if i else raw[:40],
                                             again[i - 20:i + 20] if i else again[:40]))
PYEOF
canonical() { # NAME FILE
	"$COHORT" canon "$2" >"$2.canon" 2>&1
	same_bytes "$1: cohort canon gives the same bytes" "$2" "$2.canon"
	check "$1: Python's sorted compact json gives the same bytes" $PY canon.py "$2"
}

for ex in luna deepseek; do
	"$COHORT" freeze --spec "$EX/$ex/spec.json" -o $ex.json "$EX/$ex/ledger.jsonl"
	canonical "$ex" $ex.json
	check "unit: $ex: written bytes are canonical and equal the tree's, repo or not" \
		"$U" "$EX/$ex/spec.json" "$EX/$ex/ledger.jsonl"
done

expect_status "freeze the escapes ledger" 0 "$COHORT" freeze --spec esc-spec.json --store esc-store -o esc.json esc.jsonl
canonical "escapes" esc.json
check "unit: escapes: written bytes are canonical and equal the tree's, repo or not" \
	"$U" esc-spec.json esc.jsonl
# The escapes as RFC 8785 writes them, found in the bytes (short escapes
# for the five it names, \u00XX for other controls, UTF-8 for the rest).
$PY - esc.json <<'PYEOF' >esc.found
import sys
raw = open(sys.argv[1], "rb").read()
for name, want in [
        ("tab in a condition", rb'"condition":"t\tab"'),
        ("e-acute and quotes in a condition", '"condition":"caf\u00e9 \\"q\\""'.encode()),
        ("controls, NUL and DEL in a condition", b'"condition":"nul\\u0000\\u0001\\u001f\x7f"'),
        ("astral, U+2028 and backslash in a condition", '"condition":"\U0001F600\u2028\\\\"'.encode()),
        ("e-acute and quotes in a game_id", '"game_id":"g\u00e9-\\"q\\"-'.encode()),
        ("backslash in a game_id", rb'"game_id":"g\\back-'),
        ("newline in a game_id", rb'"game_id":"g\nnl-'),
        ("NUL in a game_id", rb'"game_id":"g\u0000z-'),
        ("controls in a game_id", rb'"game_id":"ctl\u0001\u001f-'),
        ("tab in an excluded game_id", rb'"game_id":"x-cond\t1"'),
        ("NUL in an excluded game_id", rb'"game_id":"x-perr\u0000"'),
        ("tab in the spec", rb'"note":"z' + "\u00e9".encode() + rb'\ttab"')]:
    print("%s %s" % ("ok" if want in raw else "not ok", name))
if b"\t" in raw or b"\n" in raw or b"\x00" in raw:
    print("not ok raw controls in the bytes")
PYEOF
while read -r st name; do
	case $st in ok) ok "escapes: $name" ;; *) notok "escapes: ${name#ok }" "not in esc.json" ;; esac
done <esc.found
$PY - esc.json <<'PYEOF' >esc.tab
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
print(" ".join(sorted(x["reason"] for x in d["excluded"])))
print(len(d["games"]), len(d["blocks"]), "repo" in d)
print(" ".join(sorted(set(b["color"] for b in d["blocks"]))))
print(" ".join("%g" % a for c in d["conditions"] for a in c["anchors"]))
PYEOF
cat >esc.want <<'TAB'
aborted after_cut condition family live provider_error
93 20 False
black white
1320 1720 1320 1520.5 1320 1720 1320 1520.5 1320 1720
TAB
same_bytes "escapes: every exclusion reason, both colors, fractional anchors, no repo" esc.tab esc.want
expect_status "verify the escapes freeze" 0 "$COHORT" verify --store esc-store esc.json

mkdir harness && (cd harness && git init -q && echo p >p && git add p &&
	GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@a GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@a git commit -qm x)
"$COHORT" freeze --spec esc-spec.json --repo harness -o esc-repo.json esc.jsonl
canonical "escapes with repo" esc-repo.json
if grep -q '"kind":"cohort.freeze/1","repo":{"commit":"[0-9a-f]\{40\}","dirty":false},"spec":' esc-repo.json; then
	ok "escapes: repo between kind and spec"; else notok "escapes: repo" "$(grep -o '"repo":{[^}]*}' esc-repo.json)"; fi
expect_status "verify the freeze with repo" 0 "$COHORT" verify --store esc-store esc-repo.json

# --format table with -o: the same manifest bytes, and the table.
"$COHORT" freeze --spec esc-spec.json --format table -o esc-t.json esc.jsonl >esc-table.txt
same_bytes "--format table -o writes the same manifest" esc.json esc-t.json
if grep -q 'caf' esc-table.txt; then ok "--format table prints the conditions"; else notok "--format table" "$(head -3 esc-table.txt)"; fi

# Refusals keep their messages, exit 2 and leave no output (a condition
# holding a tab is shown with it escaped, "t\tab").
refused() { # NAME PATTERN LEDGER
	rm -f out.json
	expect_fail2 "$1" "$2" "$COHORT" freeze --spec esc-spec.json -o out.json "$3"
	if [ -e out.json ] || ls out.json.cohort-tmp.* >/dev/null 2>&1; then notok "$1: no output left" "found"; fi
}
refused "a block played at two anchors in one color" \
	'^cohort freeze: esc-group.jsonl:[0-9]+: "anchor": block 2 of luna t\\tab was played at 1520.5 and at 1999$' esc-group.jsonl
refused "a block played at two anchors across colors" \
	'^cohort freeze: esc-two.jsonl:[0-9]+: "anchor": block 2 of luna t\\tab was played at two anchors$' esc-two.jsonl
cat esc.jsonl esc.jsonl >esc-dup.jsonl
refused "a duplicate game_id" \
	'^cohort freeze: esc-dup.jsonl:[0-9]+: "game_id": duplicate ".*" \(first at esc-dup.jsonl:[0-9]+\)$' esc-dup.jsonl
