# chess.test.sh: the chess core and PGN reader (chess/): perft against
# published counts, the FEN/SAN/UCI rules, malformed PGN, and the PGN files
# of tests/data/pgn: games and results as PROVENANCE.md counts them, every
# game replayed legally, python-chess's end positions, the files' own SAN,
# the writer's round trip, variants refused by name, a tampered move caught.
U=$BUILD/tests/unit
D=$ROOT/tests/data/pgn
PY=/usr/bin/python3
games=200
[ "${COHORT_SANITIZED:-0}" = 1 ] && games=50

check "unit: perft of the Chess Programming Wiki positions and Sedlak's cases (tests/unit/chess_perft.c)" \
	"$U/chess_perft"
check "unit: FEN, SAN, UCI, game states, $games random games read back (tests/unit/chess_rules.c)" \
	"$U/chess_rules" $games
check "unit: malformed and edge-case PGN, the writer (tests/unit/chess_pgn.c)" "$U/chess_pgn" selftest

# counts FILE GAMES W B D STAR UNSUPPORTED NULLS: the first line of `count`
counts() {
	_want="games $2 (1-0 $3, 0-1 $4, 1/2-1/2 $5, * $6), unsupported $7, refused 0, null moves $8, replay failures 0, PlyCount mismatches 0"
	"$U/chess_pgn" count "$D/$1" >"$TMP/count" 2>&1
	_got=$(head -n 1 "$TMP/count")
	if [ "$_got" = "$_want" ]; then ok "pgn $1: $2 games as counted, all legal"; else
		notok "pgn $1" "got: $_got"; fi
	_msgs=$(grep -c ' is not supported$' "$TMP/count")
	if [ "$7" = 0 ]; then :; elif [ "$_msgs" = "$7" ]; then ok "pgn $1: $7 variant games named"; else
		notok "pgn $1: variant games named" "$_msgs lines: $(sed -n 2,3p "$TMP/count")"; fi
}
counts tcec/TCEC_Match_1.pgn 48 12 5 31 0 0 0
counts tcec/TCEC_Season_2_-_Elite-Match.pgn 40 9 5 26 0 0 0
counts tcec/TCEC_Season_2_-_Division_A.pgn 30 8 3 19 0 0 0
counts tcec/TCEC_Cup_9_Final.pgn 4 1 0 3 0 0 0
counts tcec/TCEC_Cup_9_Round16.pgn 32 10 1 21 0 0 0
counts tcec/TCEC_Season_29_-_4k_Minifinal_Testing.pgn 2 1 1 0 0 0 0
counts tcec/TCEC_Season_29_-_Frd_5_Final_Testing.pgn 2 1 0 1 0 2 0
counts python-chess/anastasian-lewis.pgn 1 1 0 0 0 0 1
counts python-chess/antichess-programfox.pgn 2 1 0 1 0 2 0
counts python-chess/chessbase-empty-line.pgn 1 0 1 0 0 0 0
counts python-chess/cutechess-fischerrandom.pgn 4 2 2 0 0 4 0
counts python-chess/kasparov-deep-blue-1997.pgn 6 3 0 3 0 0 0
counts python-chess/knightvuillaume-jannlee-zh-lichess.pgn 1 0 1 0 0 1 0
counts python-chess/molinari-bordais-1979.pgn 1 0 1 0 0 0 0
counts python-chess/nepomniachtchi-liren-game1.pgn 1 0 0 1 0 0 0
counts python-chess/saturs-jannlee-zh-lichess.pgn 1 0 1 0 0 1 0
counts python-chess/stockfish-learning.pgn 1 1 0 0 0 0 0
counts python-chess/uci-moves.pgn 1 0 0 1 0 0 0
counts python-chess/utf8-bom.pgn 2 0 0 0 2 0 0

"$U/chess_pgn" count "$D/python-chess/cutechess-fischerrandom.pgn" | sed -n 2p >c960.txt
echo 'cutechess-fischerrandom.pgn:1: game 1: variant "fischerandom" (Chess960) is not supported' >c960.want
same_bytes "pgn: Chess960 refused with file, line and game" c960.txt c960.want

# python-chess's test.py: test_uci_moves and test_z0 give these end positions.
"$U/chess_pgn" fen "$D/python-chess/uci-moves.pgn" >uci.fen
echo "8/8/2B5/4k3/4Pp2/1b6/1P3K2/8 b - - 0 57" >uci.want
same_bytes "pgn: UCI movetext ends where python-chess ends it" uci.fen uci.want
"$U/chess_pgn" fen "$D/python-chess/anastasian-lewis.pgn" >z0.fen
echo "5rk1/2p1R2p/p5pb/2PPR3/8/2Q2B2/5P2/4K2q w - - 3 43" >z0.want
same_bytes "pgn: a game with the null move Z0 ends where python-chess ends it" z0.fen z0.want

# The SAN written for every move is the file's own: its movetext with
# comments, variations, NAGs, numbers and results taken out.
cat >san.py <<'EOF'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read().replace("\r\n", "\n").lstrip("\ufeff")
for game in re.split(r"\n\s*\n(?=\[)", text):
    mt = re.sub(r"^\s*\[.*\]\s*$", "", game, flags=re.M)
    mt = re.sub(r"\{[^}]*\}", "", mt)
    mt = re.sub(r";[^\n]*", "", mt)
    while re.search(r"\([^()]*\)", mt):
        mt = re.sub(r"\([^()]*\)", "", mt)
    words = [re.sub(r"^\d+\.+", "", w) for w in re.sub(r"\$\d+", "", mt).split()]
    words = [w for w in words if w and w not in ("1-0", "0-1", "1/2-1/2", "*")]
    if words:  # a blank line inside a tag section splits no game
        print(" ".join(words))
EOF
for f in tcec/TCEC_Match_1.pgn tcec/TCEC_Season_2_-_Elite-Match.pgn tcec/TCEC_Season_2_-_Division_A.pgn \
	tcec/TCEC_Cup_9_Final.pgn tcec/TCEC_Cup_9_Round16.pgn tcec/TCEC_Season_29_-_4k_Minifinal_Testing.pgn \
	python-chess/kasparov-deep-blue-1997.pgn python-chess/nepomniachtchi-liren-game1.pgn \
	python-chess/molinari-bordais-1979.pgn python-chess/stockfish-learning.pgn \
	python-chess/chessbase-empty-line.pgn; do
	"$U/chess_pgn" san "$D/$f" >san.got
	$PY san.py "$D/$f" >san.want
	same_bytes "pgn $f: SAN written as the file writes it ($(wc -w <san.want) moves)" san.got san.want
done

for f in tcec/TCEC_Match_1.pgn tcec/TCEC_Season_2_-_Elite-Match.pgn tcec/TCEC_Cup_9_Round16.pgn \
	python-chess/anastasian-lewis.pgn python-chess/uci-moves.pgn python-chess/utf8-bom.pgn \
	python-chess/chessbase-empty-line.pgn; do
	check "pgn $f: written and read back, same tags and moves, lines of 79 columns" \
		"$U/chess_pgn" roundtrip "$D/$f"
done

# A tampered move is caught, named, and the other games still read.
sed '0,/ Nf6 /s// Nf5 /' "$D/tcec/TCEC_Match_1.pgn" >tampered.pgn
"$U/chess_pgn" count tampered.pgn >tampered.out
if grep -q '^games 48 (1-0 12, 0-1 5, 1/2-1/2 30, \* 0), unsupported 0, refused 1,' tampered.out &&
	grep -q '^tampered.pgn:[0-9]*: game 1, move 1\.\.\. Nf5: illegal in this position$' tampered.out; then
	ok "pgn: a tampered move is refused by game, move and line; 47 games still read"
else notok "pgn: tampered move" "$(head -c 300 tampered.out)"; fi
