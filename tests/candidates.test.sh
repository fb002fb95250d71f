# candidates.test.sh: `cohort candidates build` and `verify`: manifests
# built with the chess modes of tests/unit/fake_uci (engines right and
# wrong on purpose) and with Debian's stockfish; their bytes, identity and
# schema; bad positions and broken engines (exit 2, no file, no process
# left); and verify's findings and notes on tampered manifests.
PY=/usr/bin/python3
P=$ROOT/tests/data/positions
FAKE=$BUILD/tests/unit/fake_uci
SF=$(command -v stockfish 2>/dev/null || echo /usr/games/stockfish)
mkdir -p eng
for m in chess chess-illegal-pv chess-illegal-eval chess-illegal-best chess-bound chess-hang chess-die hello; do
	printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$FAKE" "$m" >"eng/$m"
	chmod +x "eng/$m"
done
# not UCI, and gone from its input before "uci" can reach it: the send
# fails every time, and what it printed must still be the message
printf '#!/bin/sh\nexec 0<&-\necho hello\nsleep 0.3\n' >eng/hello-closed
chmod +x eng/hello-closed
# the same engine as eng/chess, another binary
cp eng/chess eng/chess-copy && echo '# rebuilt' >>eng/chess-copy

# left_behind NAME: no fake engine of ours still runs (nor a zombie)
left_behind() {
	if pgrep -f "fake_uci chess" >"$TMP/pids" 2>/dev/null; then
		notok "$1" "engine processes left: $(cat "$TMP/pids" | tr '\n' ' ')"
	else ok "$1"; fi
}
# no_file NAME FILE: neither FILE nor a temporary file beside it
no_file() {
	if [ -e "$2" ] || ls "$2".cohort-tmp.* >/dev/null 2>&1; then notok "$1" "$2 (or a temporary file) was left"
	else ok "$1"; fi
}
# edit IN OUT CODE: rewrite a manifest with Python CODE over `lines`
# (the parsed lines, header first), each written back canonically
edit() {
	$PY - "$1" "$2" "$3" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
exec(sys.argv[3])
with open(sys.argv[2], "w", encoding="utf-8") as f:
    for o in lines:
        f.write(json.dumps(o, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n")
EOF
}
# identity FILE: the identity the report gives for MANIFEST
identity() {
	$PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["subject"][0]["id"])' "$1"
}

# ---- build with the fake engine ----
expect_status "build: fake engine, JSON Lines positions" 0 \
	"$COHORT" candidates build --engine eng/chess --nodes 300 --evals -o fake.jsonl "$P/suite.jsonl"
[ -s "$TMP/err" ] && notok "build: nothing on stderr when it is not a terminal" "$(head -c 200 "$TMP/err")" ||
	ok "build: nothing on stderr when it is not a terminal"
[ -s "$TMP/out" ] && notok "build -o: nothing on stdout" "$(head -c 200 "$TMP/out")" || ok "build -o: nothing on stdout"
"$COHORT" candidates build --engine eng/chess --nodes 300 --evals "$P/suite.jsonl" >fake-stdout.jsonl 2>/dev/null
same_bytes "build: standard output and -o give the same bytes" fake.jsonl fake-stdout.jsonl
"$COHORT" candidates build --engine eng/chess --nodes 300 --evals --name suite -o fake-epd.jsonl "$P/suite.epd"
same_bytes "build: EPD and JSON Lines give the same manifest" fake.jsonl fake-epd.jsonl
check "build: the manifest validates against schemas/candidates.schema.json (every line)" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/candidates.schema.json" fake.jsonl
check "build: header first, positions in position_id order, each line canonical JSON + LF" $PY -c '
import json, sys
raw = open(sys.argv[1], "rb").read()
assert raw.endswith(b"\n")
lines = raw.split(b"\n")[:-1]
objs = [json.loads(l) for l in lines]
for l, o in zip(lines, objs):
    assert l == json.dumps(o, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(), l[:80]
assert objs[0]["kind"] == "cohort.candidates/1"
ids = [o["position_id"] for o in objs[1:]]
assert ids == sorted(ids) and len(ids) == 5, ids
h = objs[0]["engine"]
assert h["name"] == "Fake Chess 1.0" and h["nodes"] == 300 and h["multipv"] == 10, h
assert h["options"] == {"Threads": 1, "Hash": 16}, h["options"]
' fake.jsonl
expect_status "verify: the fake manifest holds" 0 "$COHORT" candidates verify -o fake-report.json fake.jsonl
want="sha256:$(sha256sum fake.jsonl | cut -d' ' -f1)"
got=$(identity fake-report.json)
[ "$got" = "$want" ] && ok "identity = sha256sum of the file" || notok "identity = sha256sum" "$got, sha256sum $want"
check "verify report validates against schemas/verify.schema.json" \
	$PY "$ROOT/tests/validate.py" "$ROOT/schemas/verify.schema.json" fake-report.json
check "build: every other legal move in evals, none a candidate" $PY -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
p = [o for o in lines[1:] if o["position_id"] == "p01-start"][0]
c = [x["uci"] for x in p["candidates"]]
assert len(c) == 10 and len(p["evals"]) == 10 and not set(c) & set(p["evals"]), p
assert all(x["pv"][0] == x["uci"] and x["depth"] == 3 for x in p["candidates"])
assert [x["san"] for x in p["candidates"]][:3] == ["g3", "b3", "f4"], p["candidates"][:3]
' fake.jsonl
if command -v script >/dev/null 2>&1; then
	script -qec "'$COHORT' candidates build --engine eng/chess --nodes 30 -o tty.jsonl '$P/suite.jsonl'" /dev/null >tty.out 2>&1
	"$COHORT" candidates build --engine eng/chess --nodes 30 -o notty.jsonl "$P/suite.jsonl" 2>notty.err
	grep -q 'cohort candidates: build 5/5 positions' tty.out && same_bytes "build: progress on a terminal, the same manifest" tty.jsonl notty.jsonl ||
		notok "build: progress on a terminal" "$(od -c tty.out | head -3)"
fi

# options
"$COHORT" candidates build --engine eng/chess --nodes 50 --multipv 2 --option threads=3 --option Style=wild \
	--option 'Book File=a b=c.bin' -o opts.jsonl "$P/suite.jsonl" 2>opts.err
check "build: options sent are recorded with the engine's spelling and types" $PY -c '
import json, sys
h = json.loads(open(sys.argv[1]).readline())["engine"]
assert h["options"] == {"Threads": 3, "Hash": 16, "Style": "Wild", "Book File": "a b=c.bin"}, h
assert h["multipv"] == 2
' opts.jsonl
expect_fail2 "build: an option the engine lacks" "has no option \"Nothing\"" \
	"$COHORT" candidates build --engine eng/chess --nodes 50 --option Nothing=1 -o x.jsonl "$P/suite.jsonl"
expect_fail2 "build: MultiPV is --multipv" "MultiPV: set it with --multipv" \
	"$COHORT" candidates build --engine eng/chess --nodes 50 --option multipv=3 -o x.jsonl "$P/suite.jsonl"
expect_fail2 "build: an option out of range" "Threads.*outside 1\.\.8" \
	"$COHORT" candidates build --engine eng/chess --nodes 50 --option Threads=99 -o x.jsonl "$P/suite.jsonl"
expect_fail2 "build: an option given twice" "\"Hash\" given twice" \
	"$COHORT" candidates build --engine eng/chess --nodes 50 --option Hash=8 --option hash=9 -o x.jsonl "$P/suite.jsonl"
expect_fail2 "build: a button" "is a button" \
	"$COHORT" candidates build --engine eng/chess --nodes 50 --option 'Clear Hash=' -o x.jsonl "$P/suite.jsonl"
expect_fail2 "build: --option without =" "expected NAME=VALUE" \
	"$COHORT" candidates build --engine eng/chess --nodes 50 --option Hash -o x.jsonl "$P/suite.jsonl"
expect_fail2 "build: --multipv above 256" "multipv: expected a whole number from 1 to 256" \
	"$COHORT" candidates build --engine eng/chess --nodes 50 --multipv 257 "$P/suite.jsonl"
expect_fail2 "build: --nodes 0" "nodes: expected a whole number" \
	"$COHORT" candidates build --engine eng/chess --nodes 0 "$P/suite.jsonl"
expect_fail2 "build: no --engine" "--engine is required" \
	"$COHORT" candidates build --nodes 5 "$P/suite.jsonl"
expect_fail2 "candidates: no subcommand" "expected build or verify" "$COHORT" candidates
no_file "build: no output file after refused options" x.jsonl

# ---- bad positions: exit 2 naming FILE:LINE, no file, no engine started ----
bad_pos() { # NAME PATTERN CONTENT [EXT]
	printf '%s\n' "$3" >"bad.${4:-jsonl}"
	expect_fail2 "positions: $1" "$2" "$COHORT" candidates build --engine eng/chess --nodes 50 -o bad-out.jsonl "bad.${4:-jsonl}"
	no_file "positions: $1: no output file" bad-out.jsonl
}
start='"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"'
bad_pos "an invalid FEN" '^cohort candidates: bad.jsonl:2: "fen": fen: ' \
	"{\"position_id\": \"a\", $start}
{\"position_id\": \"b\", \"fen\": \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1\"}"
bad_pos "a duplicate position_id" 'bad.jsonl:4: "position_id": "a" given twice \(first on line 1\)' \
	"{\"position_id\": \"a\", $start}
{\"position_id\": \"b\", $start}

{\"position_id\": \"a\", $start}"
bad_pos "an unknown field" 'bad.jsonl:1: "spilt": unknown field' "{\"position_id\": \"a\", $start, \"spilt\": \"explore\"}"
bad_pos "a split outside the words" 'bad.jsonl:1: "split": expected explore, confirm or heldout' \
	"{\"position_id\": \"a\", $start, \"split\": \"train\"}"
bad_pos "to_move against the FEN" 'bad.jsonl:1: "stratum": "to_move": the FEN has white to move' \
	"{\"position_id\": \"a\", $start, \"stratum\": {\"to_move\": \"black\"}}"
bad_pos "a checkmate" 'bad.jsonl:1: "fen": the side to move has no legal move \(checkmate\)' \
	'{"position_id": "m", "fen": "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"}'
bad_pos "not JSON" 'bad.jsonl:1:' '{"position_id": "a",'
bad_pos "EPD: no id" 'bad.epd:1: EPD: no id operation' 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4;' epd
bad_pos "EPD: a bad FEN" 'bad.epd:2: EPD: fen: ' '8/8/8/8/8/8/8/K6k w - - id "a";
8/8/8/8/8/8/8/K6 w - - id "b";' epd
bad_pos "EPD: an operation without ;" 'bad.epd:1: EPD: operation id: no' 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id "a"' epd
bad_pos "EPD: a duplicate id" 'bad.epd:2: "position_id": "a" given twice \(first on line 1\)' \
	'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id "a";
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id a;' epd
printf '# a comment\n\n8/8/8/8/8/8/8/K6k w - - id "k"; hmvc 7; fmvn 40; c0 "a; b";\n' >defaults.epd
"$COHORT" candidates build --engine eng/chess --nodes 50 --multipv 1 defaults.epd >defaults.jsonl 2>defaults.err
check "EPD: defaults (split, opening, phase, kind) and hmvc/fmvn" $PY -c '
import json, sys
h, p = [json.loads(l) for l in open(sys.argv[1])]
assert h["name"] == "defaults", h
assert p["fen"] == "8/8/8/8/8/8/8/K6k w - - 7 40" and p["split"] == "explore" and p["opening"] == "k", p
assert p["stratum"] == {"phase": "endgame", "kind": "quiet", "to_move": "white"}, p
' defaults.jsonl

# ---- broken engines: exit 2 with what they said, no file, no process ----
# (a search deadline of 1 s for the engine that hangs, the subject of that
# case; the others get the default, which only a hang reaches)
bad_engine() { # NAME ENGINE PATTERN
	_to=
	[ "$2" = chess-hang ] && _to="--timeout 1"
	# shellcheck disable=SC2086
	expect_fail2 "engine: $1" "$3" "$COHORT" candidates build --engine "eng/$2" --nodes 50 $_to \
		-o broken.jsonl "$P/suite.jsonl"
	no_file "engine: $1: no output file" broken.jsonl
	left_behind "engine: $1: no process left"
}
bad_engine "dies" chess-die 'position p01-start: engine eng/chess-die: .*killed by signal 9.*stderr: "fake: crash"'
bad_engine "hangs" chess-hang 'position p01-start: engine eng/chess-hang: timed out after 1 s'
bad_engine "an illegal pv move" chess-illegal-pv \
	'position p01-start: engine eng/chess-illegal-pv: multipv 2: pv move 2: b2b3: illegal in this position; its pv: b2b3 b2b3'
bad_engine "an illegal bestmove" chess-illegal-best 'engine eng/chess-illegal-best: bestmove: a1a1: illegal'
bad_engine "not UCI" hello 'engine eng/hello: not a UCI engine.*first lines: "hello"'
bad_engine "not UCI, its input closed at once" hello-closed 'engine eng/hello-closed: not a UCI engine.*first lines: "hello"'
bad_engine "not there" no-such-engine 'eng/no-such-engine'
expect_fail2 "engine: an illegal pv in evals" \
	'position p01-start: searchmoves ([a-h1-8]{4}): engine eng/chess-illegal-eval: multipv 1: pv move 2: [a-h1-8]{4}: illegal' \
	"$COHORT" candidates build --engine eng/chess-illegal-eval --nodes 50 --evals -o broken.jsonl "$P/suite.jsonl"
no_file "engine: an illegal pv in evals: no output file" broken.jsonl
left_behind "engine: an illegal pv in evals: no process left"
expect_fail2 "build: an output folder that does not exist" 'nodir/x.jsonl: cannot write' \
	"$COHORT" candidates build --engine eng/chess --nodes 50 -o nodir/x.jsonl "$P/suite.jsonl"

# ---- verify: findings, notes ----
verify_finds() { # NAME STATUS CHECK PATTERN MANIFEST [OPTIONS...]
	_n=$1 _s=$2 _c=$3 _p=$4 _m=$5
	shift 5
	"$COHORT" candidates verify "$@" "$_m" >vr.json 2>vr.err
	_rc=$?
	if [ $_rc != "$_s" ]; then notok "verify: $_n" "exit $_rc, want $_s: $(head -c 300 vr.err)"
	elif ! $PY -c '
import json, re, sys
r = json.load(open("vr.json"))
want_ok = sys.argv[3] == "note"
hits = [c for c in r["checks"] if c["check"] == sys.argv[1] and re.search(sys.argv[2], c.get("detail", ""))
        and c["ok"] == want_ok]
sys.exit(0 if hits else 1)' "$_c" "$_p" "$([ "$_s" = 0 ] && echo note || echo finding)"; then
		notok "verify: $_n" "no $_c check matching /$_p/: $(head -c 600 vr.json)"
	else ok "verify: $_n"; fi
}
edit fake.jsonl pv.jsonl 'lines[2]["candidates"][1]["pv"][1] = lines[2]["candidates"][1]["pv"][0]'
verify_finds "a tampered pv move" 1 pv 'candidates\[1\] \([a-h1-8]+\): pv move 2: .*illegal' pv.jsonl
edit fake.jsonl san.jsonl 'lines[1]["candidates"][0]["san"] = "Nf3"'
verify_finds "a wrong SAN" 1 san 'san "Nf3", its SAN is' san.jsonl
edit fake.jsonl order.jsonl 'c = lines[1]["candidates"]; c[0], c[1] = c[1], c[0]'
verify_finds "reordered candidates (same depth, no bound): a finding" 1 score-order \
	'candidates\[0\] \([a-h1-8]+\) cp -?[0-9]+ below candidates\[1\]' order.jsonl
edit fake.jsonl order-depth.jsonl 'c = lines[1]["candidates"]; c[0], c[1] = c[1], c[0]; c[1]["depth"] = 2'
verify_finds "reordered candidates of two depths: a note" 0 score-order 'note: .*at depth 3 below .* at depth 2' order-depth.jsonl
"$COHORT" candidates build --engine eng/chess-bound --nodes 50 -o bound.jsonl "$P/suite.jsonl"
verify_finds "a score above the one before, marked a bound: a note" 0 score-order \
	'note: candidates\[0\] .* below candidates\[1\] .*\(lower bound\), where the engine marked a bound' bound.jsonl
verify_finds "bounds recorded: the rebuilt bounds agree" 0 score-order 'note: ' bound.jsonl --engine eng/chess-bound
$PY - fake.jsonl >spaced.jsonl <<'EOF'
import json, sys
for l in open(sys.argv[1]):
    print(json.dumps(json.loads(l)))
EOF
verify_finds "a file that is not its canonical lines: a note" 0 canonical 'note: the file' spaced.jsonl
verify_finds "the same engine: the same lines" 0 analysis 'all 5 positions analysed again' fake.jsonl --engine eng/chess
verify_finds "a wrong binary digest" 1 engine-digest 'the engine.s binary has SHA-256 [0-9a-f]{64}, the manifest.s' \
	fake.jsonl --engine eng/chess-copy
$PY -c 'import json; r = json.load(open("vr.json")); assert [c for c in r["checks"] if c["check"] == "analysis" and c["ok"]]' &&
	ok "verify: another binary that analyses alike: only the digest differs" ||
	notok "verify: another binary that analyses alike" "$(head -c 300 vr.json)"
FAKE_UCI_SHIFT=1
export FAKE_UCI_SHIFT
verify_finds "an engine that answers differently: the position and first difference" 1 analysis \
	'^candidates\[0\]\.cp: -?[0-9]+ in the manifest, -?[0-9]+ now$' fake.jsonl --engine eng/chess
unset FAKE_UCI_SHIFT
verify_finds "a sample of positions" 0 analysis '^2 of 5 positions \(sample seed 7\)' fake.jsonl \
	--engine eng/chess --sample 2 --seed 7
cp vr.json sample1.json
"$COHORT" candidates verify --engine eng/chess --sample 2 --seed 7 fake.jsonl >sample2.json
same_bytes "verify: the same seed, the same report" sample1.json sample2.json
edit fake.jsonl gone.jsonl 'del lines[3]["evals"]["a1a2" if "a1a2" in lines[3]["evals"] else list(lines[3]["evals"])[0]]'
verify_finds "an evals move missing: the analysis differs there" 1 analysis '^evals\.[a-h1-8]+: in the analysis, not in the manifest' \
	gone.jsonl --engine eng/chess
expect_status "verify --format table" 1 "$COHORT" candidates verify --format table pv.jsonl
grep -q '^FAIL pv ' "$TMP/out" && grep -q 'checks hold, 0 notes, 1 finding$' "$TMP/out" && ok "verify table: FAIL line and counts" ||
	notok "verify table" "$(cat "$TMP/out" | head -5)"
edit fake.jsonl illegal.jsonl 'lines[1]["candidates"][0]["uci"] = "e2e5"'
expect_fail2 "verify: a manifest the reader refuses (an illegal move)" 'illegal.jsonl:2: "candidates"\[0\]: e2e5: illegal' \
	"$COHORT" candidates verify illegal.jsonl
expect_fail2 "verify: --sample needs --engine" "need --engine" "$COHORT" candidates verify --sample 2 fake.jsonl
expect_fail2 "verify: an engine that dies" "engine eng/chess-die" "$COHORT" candidates verify --engine eng/chess-die fake.jsonl
left_behind "verify: no process left"

# ---- stockfish ----
if [ ! -x "$SF" ]; then
	notok "stockfish installed" "not found in PATH nor /usr/games; run: sh mk/deps.sh test"
else
	expect_status "stockfish: build" 0 "$COHORT" candidates build --engine "$SF" --nodes 5000 --multipv 5 -o sf1.jsonl "$P/suite.jsonl"
	"$COHORT" candidates build --engine "$SF" --nodes 5000 --multipv 5 -o sf2.jsonl "$P/suite.jsonl"
	same_bytes "stockfish: two builds, the same bytes" sf1.jsonl sf2.jsonl
	"$COHORT" candidates build --engine "$SF" --nodes 5000 --multipv 5 --name suite -o sf-epd.jsonl "$P/suite.epd"
	same_bytes "stockfish: EPD and JSON Lines, the same bytes" sf1.jsonl sf-epd.jsonl
	"$COHORT" candidates build --engine "$SF" --nodes 1500 --multipv 3 --evals -o sfe1.jsonl "$P/suite.jsonl" &&
		"$COHORT" candidates build --engine "$SF" --nodes 1500 --multipv 3 --evals -o sfe2.jsonl "$P/suite.jsonl"
	same_bytes "stockfish: two builds with evals, the same bytes" sfe1.jsonl sfe2.jsonl
	check "stockfish manifests validate against the schema" \
		$PY "$ROOT/tests/validate.py" "$ROOT/schemas/candidates.schema.json" sf1.jsonl sfe1.jsonl
	check "stockfish: header and the mate in one" $PY -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
e = lines[0]["engine"]
assert e["name"].startswith("Stockfish") and e["options"] == {"Threads": 1, "Hash": 16} and e["nodes"] == 5000, e
assert len(e["binary_sha256"]) == 64
mate = [p for p in lines[1:] if p["position_id"] == "p05-back-rank"][0]["candidates"][0]
assert mate["uci"] == "d1d8" and mate["san"] == "Rd8#" and mate["mate"] == 1, mate
' sf1.jsonl
	want=$(sha256sum "$(readlink -f "$SF")" | cut -d' ' -f1)
	grep -q "\"binary_sha256\":\"$want\"" sf1.jsonl && ok "stockfish: binary_sha256 is the resolved binary's sha256sum" ||
		notok "stockfish: binary_sha256" "want $want: $(head -c 200 sf1.jsonl)"
	verify_finds "stockfish: a clean manifest holds with --engine" 0 analysis 'all 5 positions analysed again' \
		sf1.jsonl --engine "$SF"
	verify_finds "stockfish: evals manifest holds with --engine" 0 analysis 'all 5 positions analysed again' \
		sfe1.jsonl --engine "$SF"
	edit sf1.jsonl sf-nodes.jsonl 'lines[0]["engine"]["nodes"] = 3000'
	verify_finds "stockfish: other nodes than the lines were searched with: findings" 1 analysis '' \
		sf-nodes.jsonl --engine "$SF"

	# A manifest a harness wrote straight from Stockfish's UCI output
	# (tests/ucimanifest.py): no depth, no bound, no SAN, a seldepth of its
	# own, python's spacing.  The node limit leaves lines of two iterations
	# out of score order with no mark: notes, each one python finds.
	head -n 24 "$ROOT/examples/engine-panel/positions.jsonl" >pos24.jsonl
	$PY "$ROOT/tests/ucimanifest.py" "$SF" 20000 10 pos24.jsonl harness.jsonl
	verify_finds "a harness's Stockfish manifest: unmarked rises are notes" 0 score-order \
		'no bound marked and no depth recorded' harness.jsonl
	$PY - harness.jsonl vr.json >rises.txt <<'PYEOF'
import json, sys
v = lambda c: c["cp"] if "cp" in c else (100000 - 100 * c["mate"] if c["mate"] > 0 else -100000 - 100 * c["mate"])
lines = [json.loads(l) for l in open(sys.argv[1])][1:]
want = sorted((p["position_id"], i) for p in lines for i in range(1, len(p["candidates"]))
              if v(p["candidates"][i - 1]) < v(p["candidates"][i]))
r = json.load(open(sys.argv[2]))
got = sorted((c["subject"], int(c["detail"].split("] ")[0].split("[")[1]) + 1) for c in r["checks"]
             if c["check"] == "score-order" and c["detail"].startswith("note: "))
bad = [c for c in r["checks"] if not c["ok"]]
print("ok" if want == got and want and not bad and r["ok"] else "want %d rises %s, notes %s, findings %s" % (len(want), want[:3], got[:3], bad[:2]))
PYEOF
	[ "$(cat rises.txt)" = ok ] && ok "verify: every unmarked rise python finds is a note, none a finding ($(grep -c . harness.jsonl) lines)" ||
		notok "verify: every unmarked rise python finds is a note" "$(cat rises.txt)"
	verify_finds "a harness's Stockfish manifest, analysed again: the moves, scores and lines recorded" 0 \
		analysis '^8 of 24 positions \(sample seed 1\) analysed again: the same moves, scores and lines where the manifest records them$' \
		harness.jsonl --engine "$SF" --sample 8 --seed 1
	for f in 'candidates\[\]\.depth: written by cohort.s analysis, not recorded in the manifest' \
		'candidates\[\]\.seldepth: recorded in the manifest, not written by cohort.s analysis' \
		'^the header.s options \(Threads 1, Hash 16\), nodes 20000 and MultiPV 10 sent'; do
		$PY -c 'import json,re,sys; r=json.load(open("vr.json")); sys.exit(not [c for c in r["checks"] if c["ok"] and re.search(sys.argv[1], c["detail"])])' "$f" &&
			ok "verify --engine: says /$f/" || notok "verify --engine: says /$f/" "$(head -c 600 vr.json)"
	done
	edit harness.jsonl harness-cp.jsonl 'for p in lines[1:]: p["candidates"][2]["cp"] = p["candidates"][2].get("cp", 0) + 7'
	verify_finds "a harness's manifest with a score changed: a finding" 1 analysis \
		'^candidates\[2\]\.cp: -?[0-9]+ in the manifest, -?[0-9]+ now$' harness-cp.jsonl --engine "$SF" --sample 8 --seed 1
	edit harness.jsonl harness-pv.jsonl 'for p in lines[1:]: p["candidates"][1]["pv"] = p["candidates"][1]["pv"][:1]'
	verify_finds "a harness's manifest with a pv cut: a finding" 1 analysis \
		'^candidates\[1\]\.pv: 1 entries in the manifest, [0-9]+ now$' harness-pv.jsonl --engine "$SF" --sample 8 --seed 1
fi

# ---- the command line ----
expect_status "candidates --help" 0 "$COHORT" candidates --help
grep -q '^usage: cohort candidates build ' "$TMP/out" && grep -q '^       cohort candidates verify ' "$TMP/out" &&
	[ ! -s "$TMP/err" ] && ok "candidates --help: both usages on stdout" ||
	notok "candidates --help: both usages on stdout" "$(head -3 "$TMP/out")"
for sub in build verify; do
	expect_status "candidates $sub --help" 0 "$COHORT" candidates $sub --help
	grep -q "^usage: cohort candidates $sub " "$TMP/out" && [ ! -s "$TMP/err" ] &&
		ok "candidates $sub --help: its usage on stdout" ||
		notok "candidates $sub --help: its usage on stdout" "$(head -3 "$TMP/out")"
done
"$COHORT" --help | grep -q '^  candidates ' && ok "cohort --help lists candidates" || notok "cohort --help lists candidates" ""
expect_fail2 "verify: --seed needs --sample" "--seed needs --sample" "$COHORT" candidates verify --engine eng/chess --seed 3 fake.jsonl
expect_fail2 "verify: two manifests" "expected one MANIFEST" "$COHORT" candidates verify fake.jsonl fake.jsonl
expect_fail2 "verify: --format xml" "--format: expected json or table" "$COHORT" candidates verify --format xml fake.jsonl
