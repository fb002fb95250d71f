# portable.test.sh: `cohort export pgn` read by other programs: python-chess
# (tests/vendor/python-chess) and chess.js (tests/node, installed by
# mk/node.sh) each read every exported game, and tests/pgn_check.py holds
# what they read against the ledger records (players, result, moves, the
# fields' tags, the comment's requests; every tag plain); the PGN imports
# back into the same freeze; --players condition names the condition and
# the anchor, so that a rating program rates them (Ordo's model, again by
# tests/ordo-ml.py, the same as on `export blocks`); values no tag can hold
# travel in the comment; planted faults fail the checks.
PY=/usr/bin/python3
EP=$ROOT/examples/engine-panel
CHECK="$PY $ROOT/tests/pgn_check.py"

if sh "$ROOT/mk/node.sh" 2>node.err; then ok "chess.js installed from tests/node/package-lock.json"; else
	notok "chess.js installed from tests/node/package-lock.json" "$(tail -c 300 node.err)"; fi
NODE_PATH=$ROOT/build/node/node_modules
export NODE_PATH
V=$ROOT/tests/vendor/python-chess
blobs=$(for f in __init__ pgn engine svg; do git hash-object "$V/chess/$f.py"; done | tr '\n' ' ')
check "python-chess 1.11.2 as PROVENANCE.md lists it, unmodified" $PY -c '
import re, sys
want = re.findall(r"\| `chess/\S+` \| `chess/\S+` \| `([0-9a-f]{40})` \|", open(sys.argv[1]).read())
assert want == sys.argv[2].split(), (want, sys.argv[2])' "$V/PROVENANCE.md" "$blobs"
# read NAME PGN: NAME.py.jsonl and NAME.js.jsonl, what each reader read
read_both() {
	$PY "$ROOT/tests/pgn_read.py" "$2" >"$1.py.jsonl" 2>"$1.py.err" || echo '{"errors": ["python-chess failed"]}' >>"$1.py.jsonl"
	node "$ROOT/tests/pgn_read.js" "$2" >"$1.js.jsonl" 2>"$1.js.err" || echo '{"errors": ["chess.js failed"]}' >>"$1.js.jsonl"
}
# agree NAME FREEZE LEDGER [--players condition]: both readers' games hold
agree() {
	_n=$1 _f=$2 _l=$3
	shift 3
	for _r in py js; do
		_who=python-chess
		[ $_r = js ] && _who=chess.js
		if $CHECK "$_n.$_r.jsonl" "$_f" "$_l" "$@" >"$_n.$_r.check" 2>&1; then
			ok "$_n: $_who reads $(head -1 "$_n.$_r.check"), each as its record has it"
		else
			notok "$_n: $_who reads every game as its record has it" "$(head -c 400 "$_n.$_r.check")"
		fi
	done
}

# same_games NAME FREEZE1 FREEZE2: the same included games, by identity,
# and the same blocks
same_games() {
	if $PY -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["games"] == b["games"] and a["blocks"] == b["blocks"], "differ"
print(len(a["games"]))' "$2" "$3" >same.out 2>&1; then ok "$1 ($(cat same.out) games)"; else notok "$1" "$(tail -1 same.out)"; fi
}

cp -r "$ROOT/examples/luna" "$ROOT/examples/deepseek" .
gzip -dc "$EP/ledger-r1.jsonl.gz" >panel.jsonl
"$COHORT" freeze --spec luna/spec.json --store luna/store -o luna.json luna/ledger.jsonl
"$COHORT" freeze --spec deepseek/spec.json --store deepseek/store -o deepseek.json deepseek/ledger.jsonl
"$COHORT" freeze --spec "$EP/spec-r1.json" --store panel.store -o panel.json panel.jsonl

# --- each exported game read by both, and imported back -------------------------------
for c in "luna luna/spec.json luna/store luna/ledger.jsonl" \
	"deepseek deepseek/spec.json deepseek/store deepseek/ledger.jsonl" \
	"panel $EP/spec-r1.json panel.store panel.jsonl"; do
	set -- $c
	"$COHORT" export pgn --store "$3" -o "$1.pgn" "$1.json"
	read_both "$1" "$1.pgn"
	agree "$1" "$1.json" "$4"
	"$COHORT" import pgn -o "$1.back.jsonl" "$1.pgn"
	"$COHORT" freeze --spec "$2" --store "$1.back" -o "$1.back.json" "$1.back.jsonl"
	same_games "$1: the exported PGN imports back as the same records (their identities)" "$1.json" "$1.back.json"
done
check "export pgn: no tag holds a quote or a backslash, and every Cohort tag's name is letters only" \
	$PY -c '
import re, sys
for f in sys.argv[1:]:
    for line in open(f, encoding="utf-8"):
        if line.startswith("["):
            m = re.fullmatch(r"\[(\w+) \"([^\"\\]*)\"\]\n", line)
            assert m and (not m[1].startswith("Cohort") or m[1].isalpha()), line
' luna.pgn deepseek.pgn panel.pgn
check "export pgn: the fields no tag holds are one comment line before the moves" \
	$PY -c '
import json, sys
text = open("panel.pgn", encoding="utf-8").read()
notes = [l for l in text.split("\n") if l.startswith(";")]
assert len(notes) == 680 and all(l.startswith("; cohort {") for l in notes), notes[:1]
assert all(json.loads(l[9:])["replication"] == "r1" for l in notes)
'

# --- --players condition: the names a rating program rates ------------------------------
"$COHORT" export pgn --players condition --anchors anchors.csv --store luna/store -o cond.pgn luna.json
read_both cond cond.pgn
agree cond luna.json luna/ledger.jsonl --players condition
"$COHORT" import pgn -o cond.back.jsonl cond.pgn
"$COHORT" freeze --spec luna/spec.json --store cond.back -o cond.back.json cond.back.jsonl
same_games "export pgn --players condition: imports back as the same records (CohortModel, CohortAnchorEngine)" \
	luna.json cond.back.json
"$COHORT" export blocks --format ordo --anchors blocks-anchors.csv -o blocks.pgn luna.json
sort anchors.csv >a.sorted
sort blocks-anchors.csv >b.sorted
same_bytes "export pgn --anchors: the anchors export blocks names, each once" a.sorted b.sorted
$PY "$ROOT/tests/ordo-ml.py" cond.pgn 35 --anchors anchors.csv | sort >cond.ml
$PY "$ROOT/tests/ordo-ml.py" blocks.pgn 35 --anchors blocks-anchors.csv | sort >blocks.ml
same_bytes "export pgn --players condition: Ordo's model rates the conditions as on export blocks ($(tr '\n' ' ' <cond.ml | cut -c1-60)...)" \
	cond.ml blocks.ml
check "export pgn --players condition: the five conditions rated" test "$(grep -c '' cond.ml)" = 5
expect_fail2 "export pgn: --players takes model or condition" "--players: expected model or condition, got 'engine'" \
	"$COHORT" export pgn --players engine --store luna/store luna.json
expect_fail2 "export pgn: --anchors goes with --players condition" "--anchors goes with --players condition" \
	"$COHORT" export pgn --anchors a.csv --store luna/store luna.json

# --- values no tag can hold travel in the comment ------------------------------------------
$PY - <<'PYEOF'
import json
out = open("odd.jsonl", "w")
for i, line in enumerate(open("luna/ledger.jsonl")):
    r = json.loads(line)
    if i == 0:
        r["model"]["returned"] = 'luna "2026" \\ snapshot'
        r["seed"] = {"a": [1, "}"], "b": None}
        r["pgn_tags"] = {"Event": 'The "Cup"', "Stage2": "final", "Site": "?x"}
        r["anchor"]["build"] = "sf-18"
        r["tokens"]["audio"] = 3
    if i == 1:
        r["game_id"] = "luna \"odd\" id"
    out.write(json.dumps(r) + "\n")
PYEOF
"$COHORT" freeze --spec luna/spec.json --store odd.store -o odd.json odd.jsonl
"$COHORT" export pgn --store odd.store -o odd.pgn odd.json
read_both odd odd.pgn
agree odd odd.json odd.jsonl 2>/dev/null
"$COHORT" import pgn -o odd.back.jsonl odd.pgn
"$COHORT" freeze --spec luna/spec.json --store odd.back -o odd.back.json odd.back.jsonl
same_games "export pgn: quotes, backslashes, a digit in a tag's name, other fields and members travel in the comment and import back" \
	odd.json odd.back.json
check "export pgn: ... and the odd game's tags are plain (its model's name in the comment)" $PY -c '
import json
g = [json.loads(l) for l in open("odd.js.jsonl")]
first = [x for x in g if "Stage2" in x["note"]] if all(x["note"] is not None for x in g) else []
assert len(first) == 1, len(first)
n = json.loads(first[0]["note"][7:])
assert n["model"]["returned"] == "luna \"2026\" \\ snapshot" and n["seed"] == {"a": [1, "}"], "b": None}, n
assert n["pgn_tags"] == {"Event": "The \"Cup\"", "Stage2": "final"} and "Site" not in n["pgn_tags"], n["pgn_tags"]
assert first[0]["tags"]["Site"] == "?x" and "Black" not in first[0]["tags"] or first[0]["tags"]["Black"] == "?"
'

# --- planted faults: the checks see them -------------------------------------------------
sed 's/^\[CohortFamily "luna"\]$/[CohortFamily "lu\\"na"]/' luna.pgn >planted.pgn
read_both planted planted.pgn
if $CHECK planted.js.jsonl luna.json luna/ledger.jsonl >planted.out 2>&1; then
	notok "pgn check: a quote escaped in a tag (as JSON in tags once was) fails chess.js" "$(head -1 planted.out)"
else ok "pgn check: a quote escaped in a tag (as JSON in tags once was) fails chess.js ($(head -1 planted.out))"; fi
$PY -c '
import sys
t = open("panel.pgn", encoding="utf-8").read()
i = t.index("1. e4 c5 2. Nc3")
open("swapped.pgn", "w", encoding="utf-8").write(t[:i] + "1. e4 c5 2. Nf3" + t[i + 15:])' 2>/dev/null
read_both swapped swapped.pgn
if $CHECK swapped.py.jsonl panel.json panel.jsonl >swapped.out 2>&1; then
	notok "pgn check: one move changed fails the moves' check" "$(head -1 swapped.out)"
else ok "pgn check: one move changed fails the moves' check ($(head -1 swapped.out))"; fi

# --- the comment on import --------------------------------------------------------------
$PY -c '
t = open("luna.pgn", encoding="utf-8").read()
open("badnote.pgn", "w").write(t.replace("; cohort {\"requests\":", "; cohort {\"requests\"=", 1))'
expect_fail2 "import pgn: a comment that is not JSON is refused, naming the game" \
	'luna\.pgn|badnote\.pgn:1: game 1: the comment "; cohort": expected a JSON object' \
	"$COHORT" import pgn badnote.pgn
$PY -c '
t = open("luna.pgn", encoding="utf-8").read()
open("twice.pgn", "w").write(t.replace("; cohort {", "; cohort {\"wall_s\":1,", 1))'
expect_fail2 "import pgn: a field the tags and the comment both give is refused" \
	'twice\.pgn:1: game 1: "wall_s" is set twice' "$COHORT" import pgn twice.pgn
