# import.test.sh: cohort import pgn: the round trips (a freeze and a
# simulated ledger exported and imported again give the same records and
# the same freeze), the PGN files of tests/data/pgn read with a map (their
# results as PROVENANCE.md counts them, from the model's side), the
# python-chess edge cases, the rules the last position decides, malformed
# PGN and maps refused by file, line, game and move with nothing written.
D=$ROOT/tests/data/pgn
PY=/usr/bin/python3
U=$BUILD/tests/unit

cp -r "$ROOT/examples/luna" "$ROOT/examples/deepseek" .
"$COHORT" freeze --spec luna/spec.json --store luna/store -o luna/freeze.json luna/ledger.jsonl
"$COHORT" freeze --spec deepseek/spec.json --store deepseek/store -o deepseek/freeze.json \
	deepseek/ledger.jsonl

# --- round trips: freeze -> export pgn -> import pgn -> freeze ----------------
"$COHORT" export pgn -o luna.pgn luna/freeze.json
expect_status "import: the Luna freeze's PGN imports" 0 "$COHORT" import pgn -o luna.jsonl luna.pgn
"$COHORT" freeze --spec luna/spec.json --store luna2 -o luna2.json luna.jsonl
same_bytes "import: Luna exported and imported freezes to the same bytes (every record the same)" \
	luna/freeze.json luna2.json
check "import: the records validate against schemas/ledger-record.schema.json" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/ledger-record.schema.json" luna.jsonl

# DeepSeek is live: only the included games are exported, and they come back
# with the same identities, blocks and condition totals.
"$COHORT" export pgn deepseek/freeze.json | "$COHORT" import pgn - >ds.jsonl
"$COHORT" freeze --spec deepseek/spec.json --store ds2 -o ds2.json ds.jsonl
cat >sections.py <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for k in ("games", "blocks"):
    assert a[k] == b[k], k
strip = lambda cs: [{k: v for k, v in c.items() if k not in ("state", "ladder")} for c in cs]
assert strip(a["conditions"]) == strip(b["conditions"])
assert len(b["excluded"]) == 0
EOF
check "import: DeepSeek's included games come back with the same identities and blocks" \
	$PY sections.py deepseek/freeze.json ds2.json

# ladder simulate --emit-ledger -> freeze -> export pgn -> import pgn -> freeze
"$COHORT" ladder simulate --spec luna/spec.json --truth 1200:2800:800 --starts 1320,2120 --reps 2 \
	--seed 11 --emit-ledger sim.jsonl --emit-spec simspec.json -o audit.json
"$COHORT" freeze --spec simspec.json --store sims -o sim.json sim.jsonl
"$COHORT" export pgn --store sims -o sim.pgn sim.json
"$COHORT" import pgn -o simback.jsonl sim.pgn
"$COHORT" freeze --spec simspec.json --store sims2 -o sim2.json simback.jsonl
cat >wdl.py <<'EOF'
import json, sys
def cells(p):
    return sorted((b["condition"], b["anchor"], b["color"], b["block"], b["w"], b["d"], b["l"])
                  for b in json.load(open(p))["blocks"])
a, b = cells(sys.argv[1]), cells(sys.argv[2])
assert a == b and len(a) > 4, (len(a), len(b))
print(len(a))
EOF
check "import: a simulated ledger through PGN freezes to the same W-D-L per condition, anchor, colour, block" \
	$PY wdl.py sim.json sim2.json
same_bytes "import: ... and to the same freeze, byte for byte" sim.json sim2.json
sort sim.jsonl >a.sorted
sort simback.jsonl >b.sorted
same_bytes "import: ... every simulated record read back exactly" a.sorted b.sorted

# --- the PGN files of tests/data/pgn ------------------------------------------
cat >engines.json <<'EOF'
{"kind": "cohort.pgn-map/1",
 "model": "White", "family": "tcec", "condition": {"tag": "Event"}, "block": {"every": 10},
 "anchor.time_s": [{"tag": "TimeControl"}, 1], "anchor.elo": [{"tag": "{anchor}Elo"}, 3000],
 "started_at": [{"tag": "GameStartTime"}, "2010-01-01T00:00:00Z"],
 "ended_at": [{"tag": "GameEndTime"}, "2010-01-01T00:00:00Z"],
 "tokens": {"value": {"input": 0, "output": 0, "reasoning": 0, "cached": 0}},
 "wall_s": [{"tag": "GameDuration"}, 0], "worker_hours": 0, "requests": {"value": []}}
EOF
check "import: the test map validates against schemas/pgn-map.schema.json" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/pgn-map.schema.json" engines.json
cat >results.py <<'EOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
w = sum(r["result"] == "win" for r in recs); l = sum(r["result"] == "loss" for r in recs)
d = sum(r["result"] == "draw" for r in recs)
for r in recs:
    assert r["status"] == "terminal" and r["color"] == "white", r["game_id"]
    assert r["plies"] == len(r["moves"]), r["game_id"]
print(len(recs), w, l, d)
EOF
# file games 1-0 0-1 1/2-1/2, from PROVENANCE.md: the model plays White
while read -r f want; do
	"$COHORT" import pgn --map engines.json -o got.jsonl "$D/$f" 2>err.txt
	got=$($PY results.py got.jsonl 2>&1)
	if [ "$got" = "$want" ]; then ok "import $f: $want (games, wins, losses, draws as counted)"; else
		notok "import $f" "got '$got', want '$want': $(head -c 200 err.txt)"; fi
done <<'EOF'
tcec/TCEC_Match_1.pgn 48 12 5 31
tcec/TCEC_Season_2_-_Elite-Match.pgn 40 9 5 26
tcec/TCEC_Season_2_-_Division_A.pgn 30 8 3 19
tcec/TCEC_Cup_9_Final.pgn 4 1 0 3
tcec/TCEC_Cup_9_Round16.pgn 32 10 1 21
tcec/TCEC_Season_29_-_4k_Minifinal_Testing.pgn 2 1 1 0
python-chess/kasparov-deep-blue-1997.pgn 6 3 0 3
python-chess/molinari-bordais-1979.pgn 1 0 1 0
python-chess/nepomniachtchi-liren-game1.pgn 1 0 0 1
python-chess/uci-moves.pgn 1 0 0 1
python-chess/chessbase-empty-line.pgn 1 0 1 0
EOF

"$COHORT" import pgn --map engines.json "$D/tcec/TCEC_Cup_9_Final.pgn" >cup.jsonl
cat >cup.py <<'EOF'
import json
r = [json.loads(l) for l in open("cup.jsonl")]
g = r[0]
assert g["started_at"] == "2021-10-27T11:59:59.758Z" and g["ended_at"] == "2021-10-27T13:08:05.611Z", g
assert g["wall_s"] == 4085 and g["anchor"] == {"elo": 3645, "engine": "Stockfish dev15_20211015", "time_s": 1}
assert g["model"] == {"requested": "LCZero 0.28-dev+_609958", "returned": "LCZero 0.28-dev+_609958"}
assert g["termination"] == "adjudication" and "Termination" not in g["pgn_tags"]
assert g["pgn_tags"]["TerminationDetails"] == "TCEC draw rule" and g["pgn_tags"]["WhiteElo"] == "3622"
assert g["game_id"] == "TCEC_Cup_9_Final-1" and [x["block"] for x in r] == [1, 1, 1, 1]
assert g["moves"][:2] == ["d2d4", "g8f6"] and g["plies"] == 151
EOF
check "import: cutechess-style tags: UTC times, GameDuration, the anchor's Elo, kept tags" $PY cup.py

# 50-move rule draws are found from the moves; the Termination tag that says
# otherwise is kept
"$COHORT" import pgn --map engines.json "$D/tcec/TCEC_Season_2_-_Elite-Match.pgn" >elite.jsonl
cat >elite.py <<'EOF'
import json, collections
c = collections.Counter((json.loads(l)["termination"], json.loads(l).get("pgn_tags", {}).get("Termination"))
                        for l in open("elite.jsonl"))
assert c == {("gui_adjudication", None): 36, ("fifty_move_rule", "50-move rule"): 4}, c
EOF
check "import: fifty-move draws found from the moves, other Termination tags in the ledger's spelling" $PY elite.py
"$COHORT" import pgn --map engines.json "$D/python-chess/molinari-bordais-1979.pgn" >mate.jsonl
check "import: a game ending in mate is a checkmate, lost by the mated side" \
	grep -q '"result":"loss","started_at":"2010-01-01T00:00:00Z","status":"terminal","termination":"checkmate"' mate.jsonl

# python-chess's edge cases refused by name, each in its file, line and game
expect_fail2 "import: a ChessBase null move is refused" \
	'anastasian-lewis\.pgn:1: game 1: 1 null move: not a game of chess$' \
	"$COHORT" import pgn --map engines.json "$D/python-chess/anastasian-lewis.pgn"
expect_fail2 "import: Chess960 refused, every game named" \
	'cutechess-fischerrandom\.pgn:142: game 4: variant "fischerandom" \(Chess960\) is not supported' \
	"$COHORT" import pgn --map engines.json "$D/python-chess/cutechess-fischerrandom.pgn"
check "import: ... and a count at the end" grep -q '^cohort import pgn: 4 games refused, 0 read$' "$TMP/err"
expect_fail2 "import: Crazyhouse refused" 'game 1: variant "Crazyhouse" is not supported' \
	"$COHORT" import pgn --map engines.json "$D/python-chess/saturs-jannlee-zh-lichess.pgn"
cat >bom.json <<'EOF'
{"kind": "cohort.pgn-map/1", "model": "White", "family": "tcec", "condition": {"tag": "Event"},
 "block": 1, "anchor.engine": "stockfish", "anchor.elo": 1320, "anchor.time_s": 0.1,
 "started_at": "2024-04-25T00:00:00Z", "tokens": {"value": {"input": 0, "output": 0, "reasoning": 0, "cached": 0}},
 "wall_s": 0, "worker_hours": 0, "requests": {"value": []}}
EOF
"$COHORT" import pgn --map bom.json "$D/python-chess/utf8-bom.pgn" >bom.jsonl
check "import: a byte-order mark and unfinished games without moves: live, no result, no moves" \
	$PY -c "
import json
r = [json.loads(l) for l in open('bom.jsonl')]
assert [x['status'] for x in r] == ['live', 'live'] and all('result' not in x and 'moves' not in x for x in r)
assert r[0]['pgn_tags'] == {'Date': '2024.04.25', 'ECO': 'A00', 'SourceVersionDate': '2024.04.25'}, r[0]['pgn_tags']
assert r[0]['condition'] == 'A' and r[1]['condition'] == 'B'
"
# cutechess writes local zones; a zone name would need a guess
cat >sfl.json <<'EOF'
{"kind": "cohort.pgn-map/1", "model": {"name": "*-learning"}, "family": "sf", "condition": "learning",
 "block": 1, "anchor.time_s": 5, "anchor.elo": 3000,
 "tokens": {"value": {"input": 0, "output": 0, "reasoning": 0, "cached": 0}},
 "worker_hours": 0, "requests": {"value": []}}
EOF
expect_fail2 "import: a time stamp in a named zone (PST) is refused, not guessed" \
	'stockfish-learning\.pgn:1: game 1: tag GameStartTime: "2019-01-14T06:46:35\.929 PST": time zone "PST" is not UTC' \
	"$COHORT" import pgn --map sfl.json "$D/python-chess/stockfish-learning.pgn"
sed -e 's/ PST"/ -0800"/' "$D/python-chess/stockfish-learning.pgn" >sfl.pgn
"$COHORT" import pgn --map sfl.json sfl.pgn >sfl.jsonl
check "import: +hhmm offsets as RFC 3339, a glob names the model, a time control without a time per move" \
	$PY -c "
import json
r = json.loads(open('sfl.jsonl').read())
assert r['started_at'] == '2019-01-14T06:46:35.929-08:00' and r['color'] == 'black' and r['result'] == 'loss', r
assert r['anchor']['time_s'] == 5 and r['wall_s'] == 2454 and r['termination'] == 'adjudication'
assert r['pgn_tags']['Opening'] == 'St. George (Baker) defense' and 'TimeControl' in r['pgn_tags']
"

# --- fields out of any tag with a pattern ---------------------------------------
# a harness that writes the condition and block into Event, and the model's
# snapshot into its player name
cat >arena.pgn <<'EOF'
[Event "luna arena: top5, block 2"]
[White "stockfish-18 (1320)"]
[Black "luna-2026-06-30 [high]"]
[Result "0-1"]

1. f3 e5 2. g4 Qh4# 0-1

[Event "luna arena: none, block 11"]
[White "luna-2026-06-30 [low]"]
[Black "stockfish-18 (1520)"]
[Result "1/2-1/2"]

1. e4 e5 1/2-1/2

[Event "warm-up game"]
[White "luna-2026-06-30 [low]"]
[Black "stockfish-18 (1520)"]
[Result "1-0"]

1. e4 e5 1-0
EOF
cat >arena.json <<'EOF'
{"kind": "cohort.pgn-map/1", "model": {"name": "luna-*"},
 "family": {"tag": "{model}", "pattern": "^([a-z]+)-"},
 "condition": [{"tag": "Event", "pattern": "arena: ([a-z0-9]+),"}, "unassigned"],
 "block": [{"tag": "Event", "pattern": "block ([0-9]+)$"}, 1],
 "model.returned": {"tag": "{model}", "pattern": "^[^ ]+", "group": 0},
 "model.requested": {"tag": "{model}", "pattern": "^([^ ]+)"},
 "anchor.engine": {"tag": "{anchor}", "pattern": "^([^ ]+) \\("},
 "anchor.elo": {"tag": "{anchor}", "pattern": "\\(([0-9]+)\\)$"},
 "anchor.time_s": 0.1, "started_at": "2026-06-22T00:00:00Z", "ended_at": "2026-06-22T00:00:00Z",
 "tokens": {"value": {"input": 0, "output": 0, "reasoning": 0, "cached": 0}},
 "wall_s": 0, "worker_hours": 0, "requests": {"value": []}}
EOF
check "import: a map with patterns validates against schemas/pgn-map.schema.json" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/pgn-map.schema.json" arena.json
"$COHORT" import pgn --map arena.json -o arena.jsonl arena.pgn
check "import: condition, block, family, names and Elo out of Event and the player names by pattern; the tags kept whole" \
	$PY -c '
import json
r = [json.loads(l) for l in open("arena.jsonl")]
got = [(x["family"], x["condition"], x["block"], x["model"]["returned"], x["model"]["requested"],
        x["anchor"]["engine"], x["anchor"]["elo"], x["color"], x["result"]) for x in r]
want = [("luna", "top5", 2, "luna-2026-06-30", "luna-2026-06-30", "stockfish-18", 1320, "black", "win"),
        ("luna", "none", 11, "luna-2026-06-30", "luna-2026-06-30", "stockfish-18", 1520, "white", "draw"),
        ("luna", "unassigned", 1, "luna-2026-06-30", "luna-2026-06-30", "stockfish-18", 1520, "white", "win")]
assert got == want, got
assert r[0]["pgn_tags"] == {"Event": "luna arena: top5, block 2", "White": "stockfish-18 (1320)",
                            "Black": "luna-2026-06-30 [high]"}, r[0]["pgn_tags"]
'
printf '{"kind": "cohort.pgn-map/1", "model": {"name": "luna-*"}, "condition": {"tag": "Event", "pattern": "arena: ([a-z0-9]+),"}}' >nomatch.json
expect_fail2 "import: a pattern that does not match gives nothing, and says so" \
	'arena\.pgn:15: game 3: no value for .*"condition" \(tag Event "warm-up game" does not match its pattern\)' \
	"$COHORT" import pgn --map nomatch.json arena.pgn
printf '{"kind": "cohort.pgn-map/1", "model": {"name": "luna-*"}, "block": {"tag": "Event", "pattern": "([a-z]+)"}}' >notnum.json
expect_fail2 "import: the part a pattern matches must be of the field's type" \
	'game 1: tag Event: expected a whole number from 1, found "luna"' "$COHORT" import pgn --map notnum.json arena.pgn

# --- the map is a bundle's item ---------------------------------------------------
# the arena's games, their map and the ledger imported with it, bundled;
# verify checks the map as the import reads it
mkdir -p arena
cp arena.pgn arena.json arena/
"$COHORT" import pgn --map arena/arena.json -o arena/ledger.jsonl arena/arena.pgn
cat >arena/bundle.json <<'EOF'
{"kind": "cohort.bundle-spec/1", "name": "arena", "as_of": "2030-01-01T00:00:00Z",
 "require": ["games", "pgn-map", "ledger"],
 "items": [{"role": "games", "path": "arena.pgn"}, {"role": "pgn-map", "path": "arena.json"},
           {"role": "ledger", "path": "ledger.jsonl"}]}
EOF
"$COHORT" bundle --spec arena/bundle.json -o arena.tar >arena.id 2>arena.err
check "bundle: a PGN tag map is an item (cohort.pgn-map/1 is a kind cohort checks)" test -s arena.tar
"$COHORT" verify arena.tar >arena.verify 2>&1
check "verify: the bundled map is checked as the import reads it" $PY -c '
import json
d = json.load(open("arena.verify"))
c = [x for x in d["checks"] if x["check"] == "input"]
assert d["ok"] and len(c) == 1 and c[0]["ok"] and "setting 15 fields" in c[0]["detail"], c
'
printf '{"kind": "cohort.pgn-map/1", "condition": {"tag": "Event", "pattern": "a("}}' >arena/arena.json
"$COHORT" bundle --spec arena/bundle.json -o bad-arena.tar >/dev/null 2>&1
expect_status "verify: a bundled map the import would refuse is a finding (exit 1)" 1 "$COHORT" verify bad-arena.tar
check "verify: ... with the import's message" grep -q '"check":"input","detail":"arena.json: \\"condition\\": \\"pattern\\": ' "$TMP/out"
"$COHORT" verify arena.json >map.verify
check "verify MAP: a map file alone is checked as the import reads it" grep -q '"check":"input","detail":"a cohort.pgn-map/1 setting 15 fields' map.verify

# --- refusals ------------------------------------------------------------------
sed '0,/ Nf6 /s// Nf5 /' "$D/tcec/TCEC_Match_1.pgn" >tampered.pgn
expect_fail2 "import: an illegal move is refused with file, line, game and move" \
	'^cohort import pgn: tampered\.pgn:[0-9]+: game 1, move 1\.\.\. Nf5: illegal in this position$' \
	"$COHORT" import pgn --map engines.json tampered.pgn
check "import: ... and the other 47 games are still read" grep -q '^cohort import pgn: 1 game refused, 47 read$' "$TMP/err"
head -c 100000 "$D/tcec/TCEC_Match_1.pgn" >truncated.pgn
expect_fail2 "import: a truncated file: its last game is refused, named" \
	'^cohort import pgn: truncated\.pgn:[0-9]+: game 28: ' \
	"$COHORT" import pgn --map engines.json truncated.pgn
printf '[Event "x"]\n[White "A\351"]\n[Black "B"]\n[Result "1-0"]\n\n1. e4 1-0\n' >latin1.pgn
expect_fail2 "import: a tag value that is not UTF-8 is refused, by line and game" \
	'^cohort import pgn: latin1\.pgn:2: game 1: .*UTF-8' "$COHORT" import pgn --map engines.json latin1.pgn
printf '[White "A"]\n[Black "B"]\n[Result "1/2-1/2"]\n\n1. f3 e5 2. g4 Qh4# 1/2-1/2\n' >mated.pgn
expect_fail2 "import: a checkmate whose result is not the mating side's win is refused" \
	'mated\.pgn:1: game 1: the game ends in checkmate, but its result is 1/2-1/2' \
	"$COHORT" import pgn --map engines.json mated.pgn
printf '[Event "e"]\n[White "A"]\n[Black "B"]\n[Result "1-0"]\n[PlyCount "5"]\n\n1. e4 e5 1-0\n' >plies.pgn
expect_fail2 "import: a PlyCount that disagrees with the movetext is refused" \
	'plies\.pgn:1: game 1: tag PlyCount is 5, but the movetext has 2 moves' \
	"$COHORT" import pgn --map engines.json plies.pgn
expect_fail2 "import: without a map, a cutechess PGN names what is missing" \
	'game 1: which player is the model\? \(tag CohortColor is absent\)' \
	"$COHORT" import pgn plies.pgn
printf '{"kind": "cohort.pgn-map/1", "model": "White"}' >thin.json
expect_fail2 "import: every missing field listed, with why its sources gave nothing" \
	'game 1: no value for "family" \(tag CohortFamily is absent\).*"anchor.time_s" or "anchor.nodes" \(tag BlackTimeControl is absent; tag TimeControl is absent\)' \
	"$COHORT" import pgn --map thin.json plies.pgn
printf '[White "Luna 1"]\n[Black "Luna 2"]\n[Result "1-0"]\n\n1. e4 1-0\n' >both.pgn
printf '{"kind": "cohort.pgn-map/1", "model": {"name": "Luna*"}}' >glob.json
expect_fail2 "import: a model pattern that both players match is refused" \
	'both\.pgn:1: game 1: both players match "Luna\*"' "$COHORT" import pgn --map glob.json both.pgn
cp "$D/python-chess/uci-moves.pgn" again.pgn
cat >fixed.json <<'EOF'
{"kind": "cohort.pgn-map/1", "model": "White", "game_id": "same", "family": "f", "condition": "c",
 "block": 1, "anchor.time_s": 1, "anchor.elo": 1, "anchor.engine": "e", "started_at": "2020-01-01T00:00:00Z",
 "ended_at": "2020-01-01T00:00:00Z", "tokens": {"value": {"input": 0, "output": 0, "reasoning": 0, "cached": 0}},
 "wall_s": 0, "worker_hours": 0, "requests": {"value": []}}
EOF
expect_fail2 "import: a game id that another game has is refused, naming both" \
	'again\.pgn:1: game 1: "game_id": "same" is also the id of .*uci-moves\.pgn:1: game 1' \
	"$COHORT" import pgn --map fixed.json "$D/python-chess/uci-moves.pgn" again.pgn

# maps
mapfail() { # NAME PATTERN MAP
	printf '%s' "$3" >bad.json
	expect_fail2 "import map: $1" "$2" "$COHORT" import pgn --map bad.json plies.pgn
}
mapfail "an unknown key is refused by name" '^cohort import pgn: bad\.json: "anchor\.elox": unknown key \(expected kind, model, game_id' \
	'{"kind": "cohort.pgn-map/1", "anchor.elox": 1}'
mapfail "another kind is refused" 'bad\.json: "kind": expected "cohort\.pgn-map/1"' '{"kind": "cohort.spec/1"}'
mapfail "every is for blocks" 'bad\.json: "family": "every": unknown source' \
	'{"kind": "cohort.pgn-map/1", "family": {"every": 10}}'
mapfail "a format's unknown placeholder" 'bad\.json: "game_id"\[1\]: "format": a placeholder other than' \
	'{"kind": "cohort.pgn-map/1", "game_id": ["x", {"format": "{round}"}]}'
mapfail "a constant of the wrong type" 'bad\.json: "anchor\.elo": expected a number' \
	'{"kind": "cohort.pgn-map/1", "anchor.elo": "high"}'
mapfail "a tag name that is not one" 'bad\.json: "opening": "tag": expected a PGN tag name' \
	'{"kind": "cohort.pgn-map/1", "opening": {"tag": "two words"}}'
mapfail "a pattern that is not a regular expression" 'bad\.json: "condition": "pattern": ' \
	'{"kind": "cohort.pgn-map/1", "condition": {"tag": "Event", "pattern": "a("}}'
mapfail "a group the pattern does not have" 'bad\.json: "condition"\[0\]: "group": expected a whole number from 0 to 1' \
	'{"kind": "cohort.pgn-map/1", "condition": [{"tag": "Event", "pattern": "(a)b", "group": 2}]}'
mapfail "a group without a pattern" 'bad\.json: "condition": "group" goes with "pattern"' \
	'{"kind": "cohort.pgn-map/1", "condition": {"tag": "Event", "group": 1}}'
mapfail "a member beside tag that is neither pattern nor group" 'bad\.json: "condition": "patern": unknown beside "tag"' \
	'{"kind": "cohort.pgn-map/1", "condition": {"tag": "Event", "patern": "x"}}'
mapfail "a comment source is for an object field" 'bad\.json: "condition": "note": unknown source' \
	'{"kind": "cohort.pgn-map/1", "condition": {"note": "cohort"}}'
mapfail "a JSON error with its place" '^cohort import pgn: bad\.json:1:[0-9]+: ' '{"kind": "cohort.pgn-map/1",'

# no output file on error, an existing one left as it was
echo old >kept.jsonl
"$COHORT" import pgn --map engines.json -o kept.jsonl tampered.pgn 2>/dev/null
echo old >want.txt
same_bytes "import: a refusal leaves the -o file as it was" kept.jsonl want.txt
"$COHORT" import pgn --map engines.json -o none.jsonl tampered.pgn 2>/dev/null
if [ -e none.jsonl ] || ls none.jsonl.tmp.* >/dev/null 2>&1; then notok "import: no file on error" "left behind"; else
	ok "import: a refusal writes no file and leaves no temporary"; fi
expect_status "import: usage: no file" 2 "$COHORT" import pgn
expect_status "import: usage: no subcommand" 2 "$COHORT" import
