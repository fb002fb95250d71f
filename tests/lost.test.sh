# lost.test.sh: nothing lost.  Inputs are never modified, whatever -o
# names; outputs are written atomically.
EX=$ROOT/examples
PY=/usr/bin/python3
cp -r "$EX/luna" luna
cp -r "$EX/deepseek" deepseek
cp -r "$EX/paired-toy" toy
cp "$EX/luna-blocks.json" blocks.json
"$COHORT" freeze --spec luna/spec.json --store luna/store -o luna/freeze.json luna/ledger.jsonl &&
	"$COHORT" freeze --spec deepseek/spec.json -o deepseek/freeze.json deepseek/ledger.jsonl &&
	"$COHORT" fit -o luna/fit.json luna/freeze.json ||
	notok "lost: the inputs are made" "freeze or fit failed"

# --- -o naming an input ------------------------------------------------------
# Each row: the input the output names, then the command, with @ where the
# output goes.  Every command is refused (exit 2) with the input named,
# under the input's own name, a symbolic link to it and a hard link to it,
# and the input is left as it was.
# files of the commands that refuse before reading them (any bytes do),
# a key, and a bundle spec of the Luna ledger and freeze
printf 'not an archive\n' >A.tar
printf '[Event "x"]\n\n1. e4 *\n' >game.pgn
printf '{}' >pgnmap.json
printf '{}' >sim.json
printf 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n' >positions.epd
printf '#!/bin/sh\nexit 1\n' >engine.sh
printf 'signed\n' >signed.txt
printf 'secret\n' >pw
"$COHORT" sign --generate -p key.pub -s key --password-file pw >/dev/null 2>&1 ||
	notok "lost: a key is made" "sign --generate failed"
printf '{"kind":"cohort.bundle-spec/1","name":"l","as_of":"2026-07-20T00:00:00Z","items":[{"role":"ledger","path":"ledger.jsonl"},{"role":"freeze","path":"freeze.json","store":"store"}]}' >luna/ob.json
RECON="reconcile --freeze deepseek/freeze.json --ledger deepseek/ledger.jsonl --requests deepseek/requests.jsonl --billing deepseek/billing.csv"
while IFS='|' read -r input cmd; do
	[ -n "$input" ] || continue
	cp "$input" keep
	rm -f link hard
	ln -s "$TMP/$input" link
	ln "$input" hard
	for out in "$input" link hard; do
		line=$(printf '%s' "$cmd" | sed "s|@|$out|")
		# shellcheck disable=SC2086
		expect_fail2 "-o $out naming $input: $line" "^cohort [a-z ]+: $out: is (an|the) input" \
			"$COHORT" $line
		same_bytes "-o $out: $input is untouched" "$input" keep
	done
	rm -f link hard
done <<EOF
luna/spec.json|canon -o @ luna/spec.json
luna/ledger.jsonl|freeze --spec luna/spec.json -o @ luna/ledger.jsonl
luna/spec.json|freeze --spec luna/spec.json -o @ luna/ledger.jsonl
luna/freeze.json|verify --store luna/store -o @ luna/freeze.json
luna/fit.json|verify -o @ luna/freeze.json luna/fit.json
blocks.json|fit -o @ blocks.json
luna/freeze.json|bound -o @ luna/freeze.json
deepseek/requests.jsonl|$RECON -o @
deepseek/ledger.jsonl|$RECON --db @
luna/freeze.json|ladder next --condition top2 -o @ luna/freeze.json
luna/spec.json|ladder simulate --spec luna/spec.json --truth 1100:1300:100 --starts 1320 --reps 2 --seed 1 --emit-ledger @
toy/candidates.jsonl|candidates verify -o @ toy/candidates.jsonl
toy/decisions.jsonl|freeze --spec toy/spec.json --candidates toy/candidates.jsonl --decisions toy/decisions.jsonl -o @
toy/prereg.json|freeze --spec toy/spec.json --prereg toy/prereg.json --candidates toy/candidates.jsonl --decisions toy/decisions.jsonl -o @
luna/freeze.json|fit -o @ luna/freeze.json
luna/freeze.json|export pgn --store luna/store -o @ luna/freeze.json
blocks.json|export blocks --format ordo -o @ blocks.json
luna/freeze.json|fingerprint --prereg toy/prereg.json -o @ luna/freeze.json
toy/prereg.json|fingerprint --prereg toy/prereg.json -o @ luna/freeze.json
luna/fit.json|distance -o @ luna/fit.json
luna/fit.json|gate A -o @ luna/fit.json
toy/prereg.json|gate A --prereg toy/prereg.json -o @ luna/fit.json
luna/fit.json|merge -o @ luna/fit.json
luna/freeze.json|paired -o @ luna/freeze.json
luna/fit.json|plot curve -o @ luna/fit.json
toy/prereg.json|prereg -o @ toy/prereg.json
sim.json|simulate paired --seed 1 --emit em -o @ sim.json
sim.json|simulate paired --seed 1 --emit @ sim.json
game.pgn|import pgn -o @ game.pgn
pgnmap.json|import pgn --map pgnmap.json -o @ game.pgn
positions.epd|candidates build --engine engine.sh --nodes 1 -o @ positions.epd
engine.sh|candidates build --engine engine.sh --nodes 1 -o @ positions.epd
luna/spec.json|ladder next --condition top2 --spec luna/spec.json -o @ luna/freeze.json
deepseek/billing.csv|$RECON -o @
A.tar|report -o @ A.tar
key|sign -s key --password-file pw -x @ signed.txt
signed.txt|sign -s key --password-file pw -x @ signed.txt
pw|sign -s key --password-file pw -x @ signed.txt
luna/ob.json|bundle --spec luna/ob.json -o @
luna/freeze.json|bundle --spec luna/ob.json -o @
luna/freeze.json|bundle --check --spec luna/ob.json -o @
luna/ledger.jsonl|report --spec luna/ob.json -o @
EOF

# The outputs no option names: sign's FILE.minisig, bundle's ARCHIVE.minisig
# and ARCHIVE.intoto.jsonl beside the archive, and an input given as "-"
# (standard input, a file).
cp key keep
ln -s key signed2.txt.minisig
expect_fail2 "sign's FILE.minisig a link to the key" "^cohort sign: signed2.txt.minisig: is the input key" \
	"$COHORT" sign -s key --password-file pw signed2.txt
same_bytes "sign's FILE.minisig: the key is untouched" key keep
ln -s key ar.minisig
expect_fail2 "bundle --sign: ARCHIVE.minisig a link to the key" "^cohort bundle: ar.minisig: is the input key" \
	"$COHORT" bundle --spec luna/ob.json --sign key --password-file pw -o ar
ln key ar2.intoto.jsonl
expect_fail2 "bundle --attest: ARCHIVE.intoto.jsonl a hard link to the key" \
	"^cohort bundle: ar2.intoto.jsonl: is the input key" \
	"$COHORT" bundle --spec luna/ob.json --sign key --password-file pw --attest -o ar2
[ ! -e ar ] && [ ! -e ar2 ] && ok "bundle --sign refused: no archive written" || notok "bundle --sign refused" "$(ls ar*)"
same_bytes "bundle --sign: the key is untouched" key keep
cp luna/spec.json keep
expect_fail2 "canon -o naming its standard input" "^cohort canon: luna/spec.json: is the standard input" \
	sh -c 'exec "$0" canon -o luna/spec.json - <luna/spec.json' "$COHORT"
same_bytes "canon -o naming its standard input: the input is untouched" luna/spec.json keep

# --- outputs honour the umask ------------------------------------------------
# Files are created 0666 less the umask and folders 0777 less it, as cp
# and mkdir do; a store's packs and indexes too.
for m in 027 022 077 002; do
	rm -rf um && mkdir um
	(umask $m &&
		"$COHORT" canon -o um/c.json luna/spec.json &&
		"$COHORT" freeze --spec luna/spec.json --store um/store -o um/f.json luna/ledger.jsonl &&
		"$COHORT" $RECON --db um/r.db -o um/r.json >/dev/null) 2>um.err
	want=$(printf '%o' $((0666 & ~0$m)))
	wantd=$(printf '%o' $((0777 & ~0$m)))
	bad=
	for f in um/c.json um/f.json um/r.db um/r.json um/store/cohort-store um/store/pack/*; do
		[ "$(stat -c %a "$f")" = "$want" ] || bad="$bad $f:$(stat -c %a "$f")"
	done
	for d in um/store um/store/pack; do
		[ "$(stat -c %a "$d")" = "$wantd" ] || bad="$bad $d:$(stat -c %a "$d")"
	done
	[ -z "$bad" ] && ok "umask $m: files $want, folders $wantd" ||
		notok "umask $m: files $want, folders $wantd" "$bad $(head -c 200 um.err)"
done

# --- a full disk -------------------------------------------------------------
# A write that fails (here: past the file size limit, SIGXFSZ ignored, so
# write(2) says EFBIG) names the file, exits 2 and leaves nothing behind.
mkdir -p full
"$COHORT" fit -o luna/fit.json luna/freeze.json 2>/dev/null
"$COHORT" bound -o luna/bound.json luna/freeze.json 2>/dev/null
printf '{"kind":"cohort.bundle-spec/1","name":"l","as_of":"2026-07-20T00:00:00Z","items":[{"role":"ledger","path":"ledger.jsonl"},{"role":"freeze","path":"freeze.json","store":"store"}]}' >luna/b.json
(trap '' XFSZ; ulimit -f 256; exec "$COHORT" bundle --spec luna/b.json -o full/l.tar) >full.out 2>full.err
rc=$?
[ $rc = 2 ] && grep -q '^cohort bundle: full/l.tar: ' full.err && ok "bundle on a full disk names the archive" ||
	notok "bundle on a full disk names the archive" "exit $rc: $(cat full.err)"
[ -z "$(ls full)" ] && ok "bundle on a full disk leaves nothing" || notok "bundle on a full disk leaves nothing" "$(ls full)"
(trap '' XFSZ; ulimit -f 64; exec "$COHORT" freeze --spec luna/spec.json -o full/f.json luna/ledger.jsonl) >full.out 2>full.err
rc=$?
[ $rc = 2 ] && grep -q '^cohort freeze: full/f.json: ' full.err && ok "freeze on a full disk names the manifest" ||
	notok "freeze on a full disk names the manifest" "exit $rc: $(cat full.err)"
[ -z "$(ls full)" ] && ok "freeze on a full disk leaves nothing" || notok "freeze on a full disk leaves nothing" "$(ls full)"

# The manifest is written as it is made, beside the store's new pack made
# ready: when its writing fails, the new pack (one record here, under the
# limit) is not moved into the store, and no temporary file stays.
"$COHORT" freeze --spec luna/spec.json --store fst -o f1.json luna/ledger.jsonl
head -n 1 luna/ledger.jsonl | sed 's/"game_id":"luna-/"game_id":"new-luna-/' | cat luna/ledger.jsonl - >plus1.jsonl
ls -a fst/pack >packs.before
(trap '' XFSZ; ulimit -f 32; exec "$COHORT" freeze --spec luna/spec.json --store fst -o full/f.json plus1.jsonl) >full.out 2>full.err
rc=$?
ls -a fst/pack >packs.after
[ $rc = 2 ] && grep -q '^cohort freeze: full/f.json: write error' full.err && cmp -s packs.before packs.after &&
	[ -z "$(ls full)" ] && ok "a manifest that cannot be written: the store gains no pack, nothing stays" ||
	notok "a manifest that cannot be written leaves the store as it was" "exit $rc: $(cat full.err; diff packs.before packs.after)"
"$COHORT" freeze --spec luna/spec.json --store fst -o f2.json plus1.jsonl
[ "$(ls fst/pack | wc -l)" = 4 ] && ok "written after all: the store gains the new record's pack" ||
	notok "the store gains the new pack" "$(ls fst/pack)"

# --- temporary files ---------------------------------------------------------
# A killed freeze leaves its temporary files: the manifest's beside -o and
# a partial pack in the store.  They are named for their process
# (NAME.cohort-tmp.PID.XXXXXX), and the next run that writes into the
# folder removes them once their process is gone and nobody holds their
# lock; a store's are never bundled.
dead_pid() { sh -c 'echo $$'; }
tmps() { find "$@" -name '*.cohort-tmp.*' 2>/dev/null | sort; }
# a ledger of more chunks than one thread's ring holds (three of 4 MiB),
# so records reach the store while the rest is still to come
for i in $(seq 1 30); do sed "s/\"game_id\":\"luna-/\"game_id\":\"c$i-luna-/" luna/ledger.jsonl; done >big.jsonl
rm -rf k && mkdir -p k/out && mkfifo k/fifo
sh -c "cat big.jsonl; exec sleep $(patience 600)" >k/fifo &
writer=$!
COHORT_JOBS=1 "$COHORT" freeze --spec luna/spec.json --store k/store -o k/out/f.json - <k/fifo >/dev/null 2>&1 &
victim=$!
# (waits while the freeze runs, the limit only catching a hang)
i=0 n=$(($(patience 120) * 10))
while [ $i -lt $n ] && [ -z "$(tmps k/store/pack)" ] && kill -0 $victim 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
kill -9 $victim 2>/dev/null
wait $victim 2>/dev/null
kill $writer 2>/dev/null
wait $writer 2>/dev/null
left=$(tmps k)
case "$left" in
*"k/out/f.json.cohort-tmp.$victim."*"k/store/pack/.new.cohort-tmp.$victim."*) ok "a killed freeze leaves temporary files named for its process" ;;
*) notok "a killed freeze leaves temporary files named for its process" "$left" ;;
esac
# beside them: a live process's (the test's own shell, no lock), a dead
# process's whose lock is held (as by a process of the same id in another
# container), and a file that only looks like one
d=$(dead_pid)
: >"k/out/g.json.cohort-tmp.$$.aaaaaa"
: >"k/store/pack/.new.cohort-tmp.$d.bbbbbb"
: >"k/out/notes.cohort-tmp.txt"
(exec 9>>"k/store/pack/.new.cohort-tmp.$d.bbbbbb" && flock 9 && exec sleep "$(patience 600)") &
holder=$!
# the lock is taken before the next freeze starts, however busy the machine
i=0 n=$(($(patience 120) * 20))
while [ $i -lt $n ] && flock -n "k/store/pack/.new.cohort-tmp.$d.bbbbbb" true 2>/dev/null; do
	sleep 0.05
	i=$((i + 1))
done
expect_status "the next freeze into the folders runs" 0 \
	"$COHORT" freeze --spec luna/spec.json --store k/store -o k/out/f.json luna/ledger.jsonl
cat >k/want <<TMP
k/out/g.json.cohort-tmp.$$.aaaaaa
k/out/notes.cohort-tmp.txt
k/store/pack/.new.cohort-tmp.$d.bbbbbb
TMP
find k -name '*cohort-tmp*' | sort >k/got
same_bytes "it removes the killed run's files, only those" k/got k/want
kill $holder 2>/dev/null
wait $holder 2>/dev/null
expect_status "verify holds after the sweep" 0 "$COHORT" verify --store k/store k/out/f.json

# a killed bundle's archive is removed by the next bundle into its folder
"$COHORT" fit -o luna/fit.json luna/freeze.json 2>/dev/null
: >"k/out/l.tar.cohort-tmp.$d.cccccc"
expect_status "bundle into the folder" 0 "$COHORT" bundle --spec luna/b.json -o k/out/l.tar
[ ! -e "k/out/l.tar.cohort-tmp.$d.cccccc" ] && ok "the next bundle removes a killed bundle's archive" ||
	notok "the next bundle removes a killed bundle's archive" "$(ls k/out)"

# a store's temporary files are never published, and the gate says so
cp -r luna pub
: >"pub/store/pack/.new.cohort-tmp.$$.dddddd"
: >"pub/store/pack/.new-Ab12Cd"
: >"pub/store/pack/.idx-Ab12Ce"
expect_status "bundle of a store holding temporary files" 0 "$COHORT" bundle --spec pub/b.json -o pub.tar
tar -tf pub.tar | grep -e 'cohort-tmp' -e '\.new-' -e '\.idx-' >pub.bad
[ ! -s pub.bad ] && ok "the archive holds none of them" || notok "the archive holds none of them" "$(cat pub.bad)"
n=$(grep -c '^cohort bundle: note: store/pack/\.[a-z]*[-.].*: not bundled: a temporary file' "$TMP/err")
[ "$n" = 3 ] && ok "the gate notes each one it left out" || notok "the gate notes each one it left out" "$n: $(cat "$TMP/err")"

# every rename into a folder is followed by an fsync of the folder
if command -v strace >/dev/null 2>&1 && strace -o /dev/null true 2>/dev/null; then
	mkdir -p sy
	strace -f -e trace=rename,openat,fsync -o trace.txt "$COHORT" freeze --spec luna/spec.json \
		--store sy/store -o sy/f.json luna/ledger.jsonl >/dev/null 2>&1
	awk '/rename\(/ { pending++ } /O_DIRECTORY/ && /= [0-9]+$/ { fd = $NF }
		/fsync\(/ { if (pending && $2 ~ "^fsync\\(" fd "\\)") pending = 0 }
		END { exit pending != 0 }' trace.txt && grep -q 'rename(' trace.txt &&
		ok "each rename is followed by an fsync of its folder" ||
		notok "each rename is followed by an fsync of its folder" "$(grep -e rename -e fsync -e DIRECTORY trace.txt | tail -8)"
else
	ok "each rename is followed by an fsync of its folder (skipped: no strace here)"
fi

# --- hostile ledgers ---------------------------------------------------------
# A ledger given as a pipe reads as the file does; a SQLite database given
# as one is refused (SQLite reads only files).
"$COHORT" freeze --spec luna/spec.json luna/ledger.jsonl >pipe.want
rm -f lp && mkfifo lp
cat luna/ledger.jsonl >lp &
"$COHORT" freeze --spec luna/spec.json lp >pipe.got 2>pipe.err
wait
same_bytes "a ledger given as a named pipe" pipe.want pipe.got
bash -c '"$1" freeze --spec luna/spec.json <(cat luna/ledger.jsonl)' sh "$COHORT" >pipe.got2 2>pipe.err
same_bytes "a ledger given as <(...)" pipe.want pipe.got2
# a pipe shorter than the bytes read to tell its kind
head -n 1 luna/ledger.jsonl | head -c 9 >short.txt
expect_fail2 "a pipe of nine bytes is read as they are" '/dev/fd/[0-9]+:1:10: expected' \
	bash -c '"$1" freeze --spec luna/spec.json <(cat short.txt)' sh "$COHORT"
$PY - luna/ledger.jsonl games.sqlite <<'PYEOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[2])
db.execute("CREATE TABLE games (game_id TEXT)")
db.commit()
PYEOF
expect_fail2 "a SQLite ledger given as a pipe" \
	'^cohort freeze: /dev/fd/[0-9]+: a SQLite database, given as a pipe: SQLite reads only a file' \
	bash -c '"$1" freeze --spec luna/spec.json <(cat games.sqlite)' sh "$COHORT"

# a games "table" that is a view, a recursive one that never ends, or a
# virtual table: refused at once
$PY - rec.sqlite plain-view.sqlite <<'PYEOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("CREATE VIEW games AS WITH RECURSIVE n(rowid, game_id) AS "
           "(SELECT 1, 'g1' UNION ALL SELECT rowid + 1, 'g' || (rowid + 1) FROM n) "
           "SELECT rowid, game_id FROM n")
db.commit()
db = sqlite3.connect(sys.argv[2])
db.execute("CREATE TABLE t (game_id TEXT)")
db.execute("CREATE VIEW games AS SELECT rowid, * FROM t")
db.commit()
PYEOF
expect_fail2 "a recursive view as the games table" \
	'^cohort freeze: rec\.sqlite: sqlite: "games" is a view, not a table' \
	timeout "$(patience 120)" "$COHORT" freeze --spec luna/spec.json rec.sqlite
expect_fail2 "a view as the games table" \
	'^cohort freeze: plain-view\.sqlite: sqlite: "games" is a view, not a table' \
	"$COHORT" freeze --spec luna/spec.json plain-view.sqlite
if sqlite3 :memory: 'CREATE VIRTUAL TABLE x USING fts5(a)' 2>/dev/null; then
	rm -f virt.sqlite
	sqlite3 virt.sqlite 'CREATE VIRTUAL TABLE games USING fts5(game_id)'
	expect_fail2 "a virtual table as the games table" \
		'^cohort freeze: virt\.sqlite: sqlite: "games" is a virtual table' \
		"$COHORT" freeze --spec luna/spec.json virt.sqlite
fi

# a ledger cut while freeze reads it: a message and exit 2, not SIGBUS.
# freeze holds at most three chunks of 4 MiB ahead of its one worker, so
# it is still reading when the file is cut.
for i in 1 2 3 4; do sed "s/\"game_id\":\"c/\"game_id\":\"$i-c/" big.jsonl; done >cut.jsonl
COHORT_JOBS=1 "$COHORT" freeze --spec luna/spec.json -o cut.json cut.jsonl >cut.out 2>cut.err &
victim=$!
i=0 n=$(($(patience 60) * 20))
while [ $i -lt $n ] && kill -0 $victim 2>/dev/null; do
	pos=0
	for fd in /proc/$victim/fd/*; do
		case "$(readlink "$fd" 2>/dev/null)" in
		*/cut.jsonl) pos=$(awk '/^pos:/ { print $2 }' "/proc/$victim/fdinfo/${fd##*/}" 2>/dev/null) ;;
		esac
	done
	[ "${pos:-0}" -gt 0 ] && break
	sleep 0.05
	i=$((i + 1))
done
truncate -s 100000 cut.jsonl
wait $victim
rc=$?
if [ $rc = 2 ] && grep -q '^cohort freeze: cut\.jsonl: cut short while being read' cut.err &&
	[ ! -e cut.json ] && ! ls cut.json.cohort-tmp.* >/dev/null 2>&1; then
	ok "a ledger cut while being read: exit 2, named, nothing written"
else
	notok "a ledger cut while being read: exit 2, named, nothing written" "exit $rc: $(head -c 300 cut.err)"
fi

# a PGN given to freeze says it is PGN and what to give instead
printf '[Event "casual"]\n[Site "?"]\n\n1. e4 e5 2. Nf3 Nc6 *\n' >games.pgn
expect_fail2 "a PGN with tags given as a ledger" \
	'^cohort freeze: games\.pgn:1: this is PGN, not a game ledger: .*give freeze the ledger the harness wrote' \
	"$COHORT" freeze --spec luna/spec.json games.pgn
printf '\357\273\277\n1.e4 e5 *\n' >moves.pgn
expect_fail2 "PGN move text (after a byte-order mark) given as a ledger" \
	'^cohort freeze: moves\.pgn:1: this is PGN' "$COHORT" freeze --spec luna/spec.json moves.pgn
printf '[1.5]\n' >array.jsonl
expect_fail2 "a JSON array line is not taken for PGN" '^cohort freeze: array\.jsonl:1: expected a JSON object' \
	"$COHORT" freeze --spec luna/spec.json array.jsonl

# a file name holding a newline or ESC is shown escaped in a message: one
# line, no control character reaches the terminal
bad=$(printf 'x\033[2Jy\nz.jsonl')
"$COHORT" freeze --spec luna/spec.json "$bad" >esc.out 2>esc.err
rc=$?
if [ $rc = 2 ] && [ "$(grep -c '' esc.err)" = 1 ] && ! LC_ALL=C grep -q "$(printf '\033')" esc.err &&
	grep -q '^cohort freeze: x\\x1b\[2Jy\\nz\.jsonl: cannot open' esc.err; then
	ok "a file name with ESC and a newline is shown escaped"
else
	notok "a file name with ESC and a newline is shown escaped" "exit $rc: $(od -c esc.err | head -3)"
fi
"$COHORT" fit -o "$bad" "$bad" >esc.out 2>esc.err
[ "$(grep -c '' esc.err)" = 1 ] && ok "a usage error shows the name escaped too" ||
	notok "a usage error shows the name escaped too" "$(od -c esc.err | head -3)"
