# pairs.test.sh: opening suites and colour-reversed pairs in the freeze
# (every opening in the suite, every game from its opening, broken pairs
# listed), and the pair statistics of cohort fit --pairs against a second
# implementation (tests/pairs_check.py) and a simulation with known pair
# correlation.
PY=/usr/bin/python3
MAKE=$ROOT/tests/pairs_make.py

mkdir -p good
$PY "$MAKE" good --pairs 6 --seed 3
expect_status "freeze: a suite and its pairs hold" 0 \
	$COHORT freeze --spec good/spec.json --openings good/suite.jsonl --store good/store -o good/freeze.json good/ledger.jsonl
$PY - good/freeze.json good/suite.jsonl >good.out 2>&1 <<'EOF'
import hashlib, json, sys
d = json.load(open(sys.argv[1]))
p = d["pairs"]
sid = "sha256:" + hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest()
assert p == {"broken": [], "games": 72, "pairs": 36, "suite": sid}, p
for g in d["games"]:
    assert g["opening"].startswith("o") and g["pair"] == g["game_id"][:-1] + ("b" if g["game_id"][-1] == "w" else "w"), g
    assert list(g) == sorted(g), g
EOF
[ $? = 0 ] && ok "freeze: pairs section (72 games, 36 pairs, the suite's sha256) and entries with opening and pair" ||
	notok "freeze: pairs section" "$(cat good.out)"
$COHORT freeze --spec good/spec.json --openings good/suite.jsonl -o again.json good/ledger.jsonl
same_bytes "freeze: the same bytes again" again.json good/freeze.json
expect_status "verify: the freeze with its suite holds (the suite is in the store)" 0 \
	$COHORT verify --store good/store good/freeze.json
if grep -q '"check":"pair","detail":"every pair is whole","ok":true' "$TMP/out"; then
	ok "verify: says every pair is whole"; else notok "verify: pairs" "$(head -c 400 "$TMP/out")"; fi

# Without an opening suite, pairs are read by the flat reader: the same
# entries, "suite" null; and the flat reader agrees with the tree reader
# on these records and their mutants.
$PY -c 'import json,sys; s=json.load(open(sys.argv[1])); del s["opening_suite"]; print(json.dumps(s))' good/spec.json >spec0.json
expect_status "freeze: pairs without a suite" 0 $COHORT freeze --spec spec0.json --store s0 -o f0.json good/ledger.jsonl
$PY -c '
import json, sys
a, b = json.load(open("good/freeze.json")), json.load(open("f0.json"))
assert b["pairs"]["suite"] is None and a["games"] == b["games"], b["pairs"]' && ok "freeze: without a suite the same entries, suite null" ||
	notok "freeze: pairs without a suite" "differs"
expect_status "verify: pairs without a suite hold" 0 $COHORT verify --store s0 f0.json
check "flat and tree readers agree on records with pairs, and on 100 mutants each" \
	"$BUILD/tests/unit/rec_diff" spec0.json 100 good/ledger.jsonl

# A ledger without pairs and a spec without a suite: no "pairs" section.
(cd "$ROOT/examples" && $COHORT freeze --spec luna/spec.json -o "$TMP/luna.json" luna/ledger.jsonl)
if grep -q '"pairs"\|"opening"' luna.json; then notok "no pairs, no section" "found"; else
	ok "freeze: a ledger without pairs has no pairs section and no opening in its entries"; fi

# Broken pairs: each kind listed, on stderr and in the manifest; exit 1,
# the manifest written all the same; verify finds each.
$PY - good/ledger.jsonl >broken.jsonl <<'EOF'
import json, sys
L = [json.loads(l) for l in open(sys.argv[1])]
by = {r["game_id"]: r for r in L}
def g(c, a, p, col):
    return by["m-%s-a%d-p%03d-%s" % (c, a, p, col)]
g("none", 1, 1, "b")["color"] = "white"                     # both White
g("none", 1, 2, "w")["pair"] = "m-none-a1-p003-b"           # names another game
del by["m-none-a1-p004-b"]                                  # partner in no ledger
g("none", 1, 5, "b")["status"] = "provider_error"           # partner excluded
g("none", 2, 1, "b")["anchor"]["elo"] = 1500; g("none", 2, 1, "b")["block"] = 1  # another anchor
g("top5", 1, 1, "b")["opening"] = "o2"; g("top5", 1, 1, "b")["moves"] = ["d2d4", "d7d5", "c2c4", "e7e6"]
g("top5", 1, 2, "b")["condition"] = "top2"                  # another condition
del g("top5", 1, 3, "b")["pair"]                            # names no pair
for r in by.values():
    print(json.dumps(r))
EOF
expect_status "freeze: broken pairs exit 1" 1 $COHORT freeze --spec good/spec.json --openings good/suite.jsonl --store bstore -o broken.json broken.jsonl
cp "$TMP/err" broken.err
$PY - broken.json broken.err >broken.out 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
why = {b["game_id"]: b["why"] for b in d["pairs"]["broken"]}
want = {
    "m-none-a1-p001-b": "both games have the model play white",
    "m-none-a1-p001-w": "both games have the model play white",
    "m-none-a1-p002-w": "its pair names another game, \"m-none-a1-p003-w\"",
    "m-none-a1-p002-b": "its pair names another game, \"m-none-a1-p003-b\"",
    "m-none-a1-p004-w": "its pair is in no ledger",
    "m-none-a1-p005-w": "its pair was excluded (provider_error)",
    "m-none-a2-p001-w": "its pair was played against anchor 1500, this game against 1800",
    "m-none-a2-p001-b": "its pair was played against anchor 1800, this game against 1500",
    "m-top5-a1-p001-w": "its pair started from opening \"o2\", this game from \"o1\"",
    "m-top5-a1-p001-b": "its pair started from opening \"o1\", this game from \"o2\"",
    "m-top5-a1-p002-w": "its pair is of family m, condition top2",
    "m-top5-a1-p002-b": "its pair is of family m, condition top5",
    "m-top5-a1-p003-w": "its pair names no pair",
}
assert why == want, sorted(set(why.items()) ^ set(want.items()))
err = open(sys.argv[2]).read()
for g, w in want.items():
    assert "cohort freeze: broken pair: game %s (pair " % g in err and w in err, (g, err)
assert d["pairs"]["pairs"] == 36 - 8 and d["pairs"]["games"] == 69, d["pairs"]
EOF
[ $? = 0 ] && ok "freeze: every kind of broken pair named, in the manifest and on stderr" ||
	notok "freeze: broken pairs" "$(cat broken.out)"
expect_status "verify: a freeze with broken pairs is a finding (exit 1)" 1 $COHORT verify --store bstore broken.json
if [ "$(grep -o '"check":"pair","detail":"game [^"]*' "$TMP/out" | wc -l)" = 13 ]; then
	ok "verify: each broken pair is a finding"; else notok "verify: broken pairs" "$(head -c 400 "$TMP/out")"; fi
$COHORT freeze --spec good/spec.json --openings good/suite.jsonl --format table broken.jsonl >broken.txt 2>/dev/null
grep -q '^pairs: 28 whole, 13 broken, of 69 games naming a pair; opening suite sha256:' broken.txt &&
	grep -q '^  broken pair: game m-none-a1-p004-w (pair m-none-a1-p004-b): its pair is in no ledger$' broken.txt &&
	ok "freeze --format table: the pairs and each broken one" || notok "freeze table pairs" "$(tail -5 broken.txt)"

# A game not starting from its opening, and an opening not in the suite:
# input errors naming the line and field; nothing written.
bad_game() { # NAME PATTERN PYTHON-EDIT
	$PY - good/ledger.jsonl "$3" >bad.jsonl <<'EOF'
import json, sys
L = [json.loads(l) for l in open(sys.argv[1])]
r = L[4]
exec(sys.argv[2])
for x in L:
    print(json.dumps(x))
EOF
	rm -f badout.json
	expect_fail2 "freeze: $1" "$2" $COHORT freeze --spec good/spec.json --openings good/suite.jsonl -o badout.json bad.jsonl
	[ -e badout.json ] && notok "freeze: $1: nothing written" "badout.json exists"
}
bad_game "a game not starting from its opening" \
	'^cohort freeze: bad\.jsonl:5: "moves": after its first 4 plies the game is not at its opening.s position \("o3"\): it did not start from its opening$' \
	'r["moves"] = ["e2e4", "e7e5", "g1f3", "b8c6"]'
bad_game "a game ending before its opening's position" \
	'bad\.jsonl:5: "moves": the game ends after 2 plies, before its opening.s position \("o3", ply 4\)' \
	'r["moves"] = r["moves"][:2]; r["plies"] = 2'
bad_game "an illegal move" 'bad\.jsonl:5: "moves"\[1\]: ' 'r["moves"][1] = "e1e8"'
bad_game "a terminal game without moves" 'bad\.jsonl:5: "moves": missing: a game of an opening suite needs its moves' \
	'del r["moves"]'
bad_game "a game set up at another position" 'bad\.jsonl:5: "pgn_tags": it starts from a position set up that is not its opening.s' \
	'r["pgn_tags"] = {"FEN": "4k3/8/8/8/8/8/8/4K2R w K - 0 1"}; del r["moves"]'
bad_game "an opening not in the suite" 'bad\.jsonl:5: "opening": "o99" is not in the opening suite sha256:' \
	'r["opening"] = "o99"'
bad_game "a pair naming the game itself" 'bad\.jsonl:5: "pair": names the game itself' \
	'r["pair"] = r["game_id"]'
bad_game "an empty pair" 'bad\.jsonl:5: "pair": expected the game_id of the game played' \
	'r["pair"] = ""'
# A live game without moves is not checked; a live game with moves is.
$PY - good/ledger.jsonl >live.jsonl <<'EOF'
import json, sys
L = [json.loads(l) for l in open(sys.argv[1])]
for k in ("moves", "result", "termination", "plies", "ended_at"):
    del L[4][k]
L[4]["status"] = "live"
for x in L:
    print(json.dumps(x))
EOF
expect_status "freeze: a live game without moves is not checked (its pair is then broken)" 1 \
	$COHORT freeze --spec good/spec.json --openings good/suite.jsonl -o live.json live.jsonl

# The suite: named in the spec, given, the same; and well formed.
expect_fail2 "freeze: the spec names a suite, none given" '"opening_suite": the spec names the opening suite sha256:[0-9a-f]{64}: give it with --openings' \
	$COHORT freeze --spec good/spec.json good/ledger.jsonl
expect_fail2 "freeze: a suite given, the spec names none" '"opening_suite": missing: the spec names no opening suite' \
	$COHORT freeze --spec spec0.json --openings good/suite.jsonl good/ledger.jsonl
sed 's/"o8"/"o9"/' good/suite.jsonl >other.jsonl
expect_fail2 "freeze: another suite than the spec's" '^cohort freeze: other\.jsonl: its identity is sha256:[0-9a-f]{64}, but the spec.s "opening_suite" is sha256:' \
	$COHORT freeze --spec good/spec.json --openings other.jsonl good/ledger.jsonl
bad_suite() { # NAME PATTERN CONTENT
	printf '%s\n' "$3" >suite-bad.jsonl
	id=sha256:$(sha256sum suite-bad.jsonl | cut -c1-64)
	$PY -c 'import json,sys; s=json.load(open(sys.argv[1])); s["opening_suite"]=sys.argv[2]; print(json.dumps(s))' good/spec.json "$id" >spec-bad.json
	expect_fail2 "suite: $1" "$2" $COHORT freeze --spec spec-bad.json --openings suite-bad.jsonl good/ledger.jsonl
}
H='{"kind":"cohort.openings/1","name":"s"}'
bad_suite "an opening twice" 'suite-bad\.jsonl:3: "opening": "a" given twice' "$H
{\"moves\":[\"e2e4\"],\"opening\":\"a\"}
{\"moves\":[\"d2d4\"],\"opening\":\"a\"}"
bad_suite "moves that do not reach the FEN" 'suite-bad\.jsonl:2: "moves": they do not reach its "fen"' "$H
{\"fen\":\"rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1\",\"moves\":[\"e2e4\"],\"opening\":\"a\"}"
bad_suite "a bad FEN" 'suite-bad\.jsonl:2: "fen": fen: ' "$H
{\"fen\":\"8/8/8 w - - 0 1\",\"opening\":\"a\"}"
bad_suite "neither FEN nor moves" 'suite-bad\.jsonl:2: expected "fen" or "moves"' "$H
{\"opening\":\"a\"}"
bad_suite "no header" 'suite-bad\.jsonl:1: "kind": ' '{"moves":["e2e4"],"opening":"a"}'
bad_suite "no opening" 'suite-bad\.jsonl: the suite holds no opening' "$H"
printf '%s' '{"kind":"cohort.spec/1","name":"x","as_of":"2026-08-01T00:00:00Z","families":["m"],"conditions":["none"],"opening_suite":"sha256:12","ladder":{"block_games":10,"start":1500,"max":3000,"promote":[[0.9,400]],"stop_below":0.35,"max_repeats":1}}' >spec-id.json
expect_fail2 "spec: an opening_suite that is not an identity" '"opening_suite": expected an identity' \
	$COHORT freeze --spec spec-id.json good/ledger.jsonl

# A suite of FENs: games set up at the opening (pgn_tags FEN) and games
# from the initial position that reach it by their moves both start from it.
cat >fen-suite.jsonl <<'EOF'
{"kind":"cohort.openings/1","name":"fens"}
{"fen":"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2","opening":"kp"}
EOF
$PY - good/ledger.jsonl fen-suite.jsonl good/spec.json >fen.jsonl <<'EOF'
import hashlib, json, sys
L = [json.loads(l) for l in open(sys.argv[1])][:4]
for i, r in enumerate(L):
    r["opening"] = "kp"
    if i % 2:
        r["pgn_tags"] = {"FEN": "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"}
        r["moves"] = ["g1f3"]
    else:
        r["moves"] = ["e2e4", "e7e5", "g1f3"]
    r["plies"] = len(r["moves"])
    print(json.dumps(r))
s = json.load(open(sys.argv[3]))
s["opening_suite"] = "sha256:" + hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest()
open("fen-spec.json", "w").write(json.dumps(s))
EOF
expect_status "freeze: a FEN suite, games set up there or reaching it" 0 \
	$COHORT freeze --spec fen-spec.json --openings fen-suite.jsonl -o fen.json fen.jsonl
check "schemas: the suite, the spec, the ledger and the freezes with pairs validate" sh -c "
	$PY '$ROOT/tests/validate.py' '$ROOT/schemas/openings.schema.json' good/suite.jsonl fen-suite.jsonl &&
	$PY '$ROOT/tests/validate.py' '$ROOT/schemas/spec.schema.json' good/spec.json &&
	$PY '$ROOT/tests/validate.py' '$ROOT/schemas/ledger-record.schema.json' good/ledger.jsonl &&
	$PY '$ROOT/tests/validate.py' '$ROOT/schemas/freeze.schema.json' good/freeze.json f0.json broken.json fen.json"

# ---- fit --pairs: against a second implementation (tests/pairs_check.py) ----
K=$ROOT/tests/pairs_check.py
mkdir -p two nd sat
$PY "$MAKE" two --pairs 15 --families a,b --rho 0.9 --seed 7
$COHORT freeze --spec two/spec.json --openings two/suite.jsonl -o two/freeze.json two/ledger.jsonl
$COHORT fit --pairs -o two/fit.json two/freeze.json
$COHORT fit --pairs -o good/fit.json good/freeze.json
check "fit --pairs: two families, penalty estimated: every number against pairs_check.py" $PY "$K" two/freeze.json two/fit.json
check "fit --pairs: one family: every number against pairs_check.py" $PY "$K" good/freeze.json good/fit.json
$COHORT fit --pairs --black-penalty 35 --level 0.8 -o two/fit35.json two/freeze.json
check "fit --pairs: penalty assumed, level 0.8: against pairs_check.py" $PY "$K" two/freeze.json two/fit35.json
# broken pairs: their games are clusters alone
$COHORT fit --pairs -o broken.fit.json broken.json
check "fit --pairs: broken pairs' games alone: against pairs_check.py" $PY "$K" broken.json broken.fit.json
$PY -c 'import json,sys; p=json.load(open(sys.argv[1]))["pairs"]; assert (p["pairs"], p["alone"]) == (28, 14), p' broken.fit.json &&
	ok "fit --pairs: 28 whole pairs, 14 games alone, as the freeze says" || notok "fit --pairs counts" "$(head -c 300 broken.fit.json)"
# no draws: nu 0 is not a parameter
$PY "$MAKE" nd --pairs 20 --nu 0
$COHORT freeze --spec nd/spec.json --openings nd/suite.jsonl -o nd/freeze.json nd/ledger.jsonl
$COHORT fit --pairs -o nd/fit.json nd/freeze.json
check "fit --pairs: no draw (nu 0): against pairs_check.py" $PY "$K" nd/freeze.json nd/fit.json
# a saturated condition: no pair interval, its games add nothing
$PY "$MAKE" sat --pairs 4 --conditions none=1500,top2=3900
$COHORT freeze --spec sat/spec.json --openings sat/suite.jsonl -o sat/freeze.json sat/ledger.jsonl
$COHORT fit --pairs -o sat/fit.json sat/freeze.json
$PY -c 'import json,sys; c=json.load(open(sys.argv[1]))["conditions"][1]; assert c["status"] == "all_wins" and c["pair_interval"] == [None, None] and c["design_effect"] is None, c' sat/fit.json &&
	ok "fit --pairs: a saturated condition has null pair interval and design effect" || notok "fit --pairs saturated" "$(head -c 300 sat/fit.json)"
check "fit --pairs: with a saturated condition: against pairs_check.py" $PY "$K" sat/freeze.json sat/fit.json
# the check can fail: a planted error of 0.1 Elo
$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); d["conditions"][1]["pair_interval"][0] += 0.1; print(json.dumps(d))' two/fit.json >planted.json
if $PY "$K" two/freeze.json planted.json >/dev/null 2>&1; then notok "pairs_check.py sees a planted error" "passed"; else
	ok "pairs_check.py sees a pair interval 0.1 Elo off"; fi
check "fit --pairs: outputs validate against schemas/fit.schema.json" $PY "$ROOT/tests/validate.py" \
	"$ROOT/schemas/fit.schema.json" two/fit.json good/fit.json two/fit35.json nd/fit.json sat/fit.json broken.fit.json
$COHORT fit --pairs good/freeze.json >again.fit.json
same_bytes "fit --pairs: the same bytes again" again.fit.json good/fit.json
expect_status "verify: a fit --pairs derives again from its freeze" 0 $COHORT verify --store good/store good/freeze.json good/fit.json
$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); d["pairs"]["pentanomial"][0]["counts"][0] += 1; print(json.dumps(d, separators=(",", ":"), sort_keys=True), end="")' good/fit.json >tampered.fit.json
expect_status "verify: a tampered pentanomial count is a finding" 1 $COHORT verify --store good/store good/freeze.json tampered.fit.json
$COHORT fit --pairs --format table good/freeze.json >table.txt
grep -q '^pairs: 36 whole, 0 games alone' table.txt && grep -q '^black penalty from the pairs ' table.txt &&
	grep -Eq '^none +1500 +[0-9]+ / [0-9]+ / [0-9]+ / [0-9]+ / [0-9]+ +6 ' table.txt &&
	ok "fit --pairs --format table: pair intervals, the penalty, the pentanomial table" || notok "fit --pairs table" "$(cat table.txt)"
# without --pairs the document is what it was
$COHORT fit good/freeze.json >plain.json
if grep -q 'pair_interval\|pentanomial\|"pairs"' plain.json; then notok "fit without --pairs" "has pair fields"; else
	ok "fit without --pairs: no pair fields"; fi
expect_fail2 "fit --pairs: a blocks document is refused" '"kind": --pairs needs a freeze' \
	$COHORT fit --pairs "$ROOT/examples/luna-blocks.json"
expect_fail2 "fit --pairs: a freeze without pairs is refused" '"pairs": missing: --pairs needs a freeze whose games name their pairs' \
	$COHORT fit --pairs luna.json

# ---- the simulation: coverage where the pair correlation is known ----
# 300 replicates each (900 rating intervals): with independent games
# (rho 0) both kinds cover near 0.95; with the games of a pair coupled
# (rho 0.6) the profile intervals under-cover and the pair-aware ones
# still cover.  (docs/design.md quotes 2,000 replicates.)
"$BUILD/tests/unit/pairs_cover" 300 0 40 >cover0.txt
"$BUILD/tests/unit/pairs_cover" 300 0.6 40 >cover6.txt
cat cover0.txt cover6.txt
$PY - cover0.txt cover6.txt <<'EOF' >cover.out 2>&1
import re, sys
def read(p):
    t = open(p).read()
    return [float(x) for x in re.search(r"ratings profile ([0-9.]+) pair ([0-9.]+); penalty profile ([0-9.]+) pair ([0-9.]+); mean design effect ([0-9.]+)", t).groups()]
a, b = read(sys.argv[1]), read(sys.argv[2])
assert 0.93 <= a[0] <= 0.97 and 0.93 <= a[1] <= 0.97 and 0.9 <= a[4] <= 1.1, ("rho 0", a)
assert b[0] <= 0.915, ("rho 0.6: the profile intervals should under-cover", b)
assert 0.93 <= b[1] <= 0.97 and 0.92 <= b[3] <= 0.98 and b[4] >= 1.3, ("rho 0.6: pair-aware", b)
EOF
[ $? = 0 ] && ok "simulation: pair-aware intervals cover at 0.95 (rho 0 and 0.6), profile intervals under-cover at rho 0.6" ||
	notok "simulation coverage" "$(cat cover.out)"
