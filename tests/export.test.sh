# export.test.sh: cohort export pgn and cohort export blocks --format ordo:
# the PGN of results reads back with the chess core's reader and holds as
# many games of each pairing, result and colour as the blocks; exported
# games read back legal; games with moves, and from a FEN, come back as
# the same records; a damaged store, illegal moves and bad options refused.
PY=/usr/bin/python3
U=$BUILD/tests/unit
D=$ROOT/tests/data/pgn

cp -r "$ROOT/examples/luna" "$ROOT/examples/deepseek" "$ROOT/examples/luna-blocks.json" .
"$COHORT" freeze --spec luna/spec.json --store luna/store -o luna/freeze.json luna/ledger.jsonl
"$COHORT" freeze --spec deepseek/spec.json --store deepseek/store -o deepseek/freeze.json \
	deepseek/ledger.jsonl

# --- blocks for Ordo: the same games per pairing --------------------------------
# expected: one line per game, "WHITE<TAB>BLACK<TAB>RESULT<TAB>WHITEELO<TAB>BLACKELO",
# from the document's blocks
cat >pairs.py <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
fams = doc.get("spec", {}).get("families", [])
for b in doc["blocks"]:
    fam = b.get("family") or (fams[0] if len(fams) == 1 else "")
    unit = "%s/%s" % (fam, b["condition"]) if fam else b["condition"]
    a = b["anchor"]
    anchor = "anchor-%s" % (int(a) if a == int(a) else a)
    black = b["color"] == "black"
    for res, n in (("win", b["w"]), ("draw", b["d"]), ("loss", b["l"])):
        for _ in range(n):
            r = "1/2-1/2" if res == "draw" else ("1-0" if (res == "win") != black else "0-1")
            elo = str(int(a) if a == int(a) else a)
            w, bl = (anchor, unit) if black else (unit, anchor)
            print("\t".join([w, bl, r, elo if black else "-", "-" if black else elo]))
EOF
for doc in luna/freeze.json deepseek/freeze.json luna-blocks.json; do
	name=$(echo "$doc" | tr / -)
	"$COHORT" export blocks --format ordo -o "$name.pgn" "$doc"
	if "$U/pgn_pairs" "$name.pgn" >got.txt 2>err.txt; then ok "export blocks $doc: the chess core's reader reads every game"; else
		notok "export blocks $doc: the reader reads every game" "$(head -c 300 err.txt)"; fi
	sort got.txt | uniq -c >got.count
	$PY pairs.py "$doc" | sort | uniq -c >want.count
	same_bytes "export blocks $doc: the same games per pairing, colour and result as its blocks ($(wc -l <got.txt) games)" \
		got.count want.count
done
"$COHORT" export blocks --format ordo --anchors anchors.csv -o luna-ordo.pgn luna/freeze.json
cat >anchors.want <<'EOF'
"anchor-1320",1320
"anchor-1520",1520
"anchor-1720",1720
"anchor-1920",1920
"anchor-2120",2120
"anchor-2320",2320
"anchor-2520",2520
"anchor-2420",2420
"anchor-2820",2820
EOF
same_bytes "export blocks --anchors: Ordo's file of fixed anchors, each once, in order of first use" \
	anchors.csv anchors.want
same_bytes "export blocks: the same PGN with and without --anchors" luna-ordo.pgn luna-freeze.json.pgn
printf '{"kind": "cohort.blocks/1", "blocks": [{"condition": "top2", "anchor": 1320.5, "color": "white", "w": 1, "d": 1, "l": 0}]}' >half.json
"$COHORT" export blocks --format ordo half.json >half.pgn
"$U/pgn_pairs" half.pgn >half.txt
printf 'top2\tanchor-1320.5\t1-0\t-\t1320.5\ntop2\tanchor-1320.5\t1/2-1/2\t-\t1320.5\n' >half.want
same_bytes "export blocks: a blocks document without families, a White block, an anchor between whole Elo" \
	half.txt half.want
expect_fail2 "export blocks: --format is required" 'cohort export blocks: --format is required' \
	"$COHORT" export blocks luna/freeze.json
expect_fail2 "export blocks: only ordo" "cohort export blocks: --format: expected ordo, got 'bayeselo'" \
	"$COHORT" export blocks --format bayeselo luna/freeze.json
expect_fail2 "export blocks: --store belongs to export pgn" 'cohort export blocks: --store belongs to export pgn' \
	"$COHORT" export blocks --format ordo --store luna/store luna/freeze.json
printf '{"kind": "cohort.fit/1"}' >fit.json
expect_fail2 "export blocks: another kind of document is refused" 'fit\.json' \
	"$COHORT" export blocks --format ordo fit.json

# --- export pgn ---------------------------------------------------------------------
"$COHORT" export pgn -o luna.pgn luna/freeze.json
check "export pgn: the chess core's reader reads every game" "$U/pgn_pairs" luna.pgn
check "export pgn: one game per included game" test "$(grep -c '^\[CohortGameId ' luna.pgn)" = 220
check "export pgn: games in the freeze's order" $PY -c "
import json, re
ids = [g['game_id'] for g in json.load(open('luna/freeze.json'))['games']]
assert re.findall(r'^\[CohortGameId \"(.*)\"\]$', open('luna.pgn').read(), re.M) == ids
"
grep -q '^\[WhiteTimeControl "0.1/move"\]$' luna.pgn && grep -q '^\[WhiteElo "2820"\]$' luna.pgn &&
	grep -q '^\[Black "luna-2026-06-30"\]$' luna.pgn && grep -q '^\[Termination "normal"\]$' luna.pgn
[ $? = 0 ] && ok "export pgn: cutechess-cli's tags for the players, the anchor's Elo and time, the termination" ||
	notok "export pgn: standard tags" "$(head -30 luna.pgn)"
"$COHORT" export pgn --store luna/store deepseek/freeze.json >/dev/null 2>err.txt
check "export pgn: a store without the freeze's records is refused, naming the game" \
	grep -q '^cohort export pgn: deepseek/freeze.json: game "deepseek-none-b01-g01": its record sha256:[0-9a-f]* is not in the store$' err.txt
cp -r luna/store damaged
pack=$(ls damaged/pack/*.pack)
$PY -c "
import sys
p = sys.argv[1]; b = bytearray(open(p, 'rb').read()); i = b.index(b'\"plies\":57'); b[i + 8] = ord('8')
open(p, 'wb').write(b)" "$pack"
expect_fail2 "export pgn: a stored record that does not hash to its identity is refused" \
	'does not hash to its identity' "$COHORT" export pgn --store damaged luna/freeze.json
echo old >kept.pgn
"$COHORT" export pgn --store damaged -o kept.pgn luna/freeze.json 2>/dev/null
echo old >want.txt
same_bytes "export pgn: a refusal leaves the -o file as it was" kept.pgn want.txt

# --- games with moves come back as the same records ---------------------------------
cat >engines.json <<'EOF'
{"kind": "cohort.pgn-map/1",
 "model": [{"name": "Stockfish*"}, "White"], "family": "sf", "condition": "cup", "block": {"every": 10},
 "anchor.time_s": 1, "anchor.elo": 3600,
 "started_at": [{"tag": "GameStartTime"}, "2021-01-01T00:00:00Z"],
 "ended_at": [{"tag": "GameEndTime"}, "2021-01-01T00:00:00Z"], "wall_s": [{"tag": "GameDuration"}, 0],
 "tokens": {"value": {"input": 0, "output": 0, "reasoning": 0, "cached": 0}},
 "worker_hours": 0, "requests": {"value": []}}
EOF
cat >sf-spec.json <<'EOF'
{"kind": "cohort.spec/1", "name": "cup", "as_of": "2030-01-01T00:00:00Z", "families": ["sf"],
 "conditions": ["cup"], "ladder": {"block_games": 10, "start": 3600, "max": 3600,
 "promote": [[0.9, 100]], "stop_below": 0.0, "max_repeats": 10}}
EOF
"$COHORT" import pgn --map engines.json -o cup.jsonl "$D/tcec/TCEC_Cup_9_Round16.pgn" "$D/tcec/TCEC_Cup_9_Final.pgn"
"$COHORT" freeze --spec sf-spec.json --store cups -o cup.json cup.jsonl
"$COHORT" export pgn -o cup.pgn --store cups cup.json
"$COHORT" import pgn -o cupback.jsonl cup.pgn
"$COHORT" freeze --spec sf-spec.json --store cups2 -o cup2.json cupback.jsonl
same_bytes "export pgn: TCEC games with their moves and kept tags come back as the same records" cup.json cup2.json
cat >san.py <<'EOF'
import re, sys
def game(path, gid):
    text = open(path, encoding="utf-8").read().replace("\r\n", "\n")
    for g in re.split(r"\n\s*\n(?=\[)", text):
        if gid is None or '[CohortGameId "%s"]' % gid in g:
            mt = re.sub(r"\{[^}]*\}", " ", re.sub(r"^(\[.*\]|;.*)$", "", g, flags=re.M))
            return [w for w in re.sub(r"\d+\.+", " ", mt).split() if w not in ("1-0", "0-1", "1/2-1/2", "*")]
got, want = game(sys.argv[1], "TCEC_Cup_9_Round16-1"), game(sys.argv[2], None)
assert got == want and len(got) == 77, (got[:5], want[:5])
EOF
check "export pgn: ... a game's moves written as its file wrote them" $PY san.py cup.pgn "$D/tcec/TCEC_Cup_9_Round16.pgn"

# a game from a FEN: the moves from there, its opening the canonical FEN
cat >fen.pgn <<'EOF'
[Event "endgame"]
[White "Stockfish"]
[Black "Weak"]
[Result "1-0"]
[SetUp "1"]
[FEN "4k3/8/4K3/8/8/8/8/R7 w - - 0 1"]

1. Ra8# 1-0
EOF
"$COHORT" import pgn --map engines.json -o fen.jsonl fen.pgn
check "import: a game from a FEN: its moves from there, its opening that FEN, mate found" $PY -c "
import json
r = json.loads(open('fen.jsonl').read())
assert r['moves'] == ['a1a8'] and r['opening'] == '4k3/8/4K3/8/8/8/8/R7 w - - 0 1', r
assert r['termination'] == 'checkmate' and r['result'] == 'win' and r['plies'] == 1 and 'pgn_tags' in r
"
"$COHORT" freeze --spec sf-spec.json --store fens -o fen.json fen.jsonl
"$COHORT" export pgn --store fens fen.json >fen2.pgn
check "export pgn: a game from a FEN is written with SetUp and FEN" grep -q '^\[FEN "4k3/8/4K3/8/8/8/8/R7 w - - 0 1"\]$' fen2.pgn
"$COHORT" import pgn fen2.pgn >fen2.jsonl
same_bytes "export pgn: ... and reads back as the same record" fen.jsonl fen2.jsonl

# records whose moves are not legal, or disagree with their plies
sed -e 's/"moves":\["a1a8"\]/"moves":["a1b2"]/' fen.jsonl >bad.jsonl
sed -e 's/"plies":1,/"plies":2,/' fen.jsonl >plies.jsonl
"$COHORT" freeze --spec sf-spec.json --store bads -o bad.json bad.jsonl
expect_fail2 "export pgn: a recorded move that is not legal is refused, naming the game and move" \
	'bad\.json: game "fen-1": "moves"\[0\]: ' "$COHORT" export pgn --store bads bad.json
"$COHORT" freeze --spec sf-spec.json --store plies -o plies.json plies.jsonl
expect_fail2 "export pgn: plies that disagree with the moves are refused" \
	'game "fen-1": "plies" is 2, but "moves" holds 1' "$COHORT" export pgn --store plies plies.json
expect_fail2 "export pgn: a document that is not a freeze" '"kind": expected "cohort.freeze/1"' \
	"$COHORT" export pgn luna-blocks.json
expect_status "export: usage: no subcommand" 2 "$COHORT" export
expect_status "export: usage: an unknown subcommand" 2 "$COHORT" export csv luna/freeze.json
