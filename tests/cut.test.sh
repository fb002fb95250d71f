# cut.test.sh: files read whole through a mapping (a bundle's files, a
# freeze given to verify, a store's packs) cut by another process while
# they are read: exit 2 naming the file, never SIGBUS, and no output
# (common/map.h).  A ledger cut while freeze reads it is in lost.test.sh.

# cut_while NAME FILE PATTERN CMD...: run CMD, which stops itself once it
# has FILE mapped (lib.sh's stop_at_map), cut FILE to 4 KB, let CMD go on;
# CMD must exit 2 with stderr matching PATTERN.
cut_while() {
	_n=$1 _f=$2 _pat=$3
	shift 3
	stop_at_map "$(readlink -f "$_f")" "$@" >cut.out 2>cut.err
	_pid=$!
	stopped_wait $_pid || notok "$_n: the program stopped at the mapping" "it ended first: $(head -c 300 cut.err)"
	truncate -s 4096 "$_f"
	kill -CONT $_pid 2>/dev/null
	wait $_pid
	_rc=$?
	if [ $_rc = 2 ] && grep -Eq -- "$_pat" cut.err; then
		ok "$_n"
	else
		notok "$_n" "exit $_rc: $(head -c 300 cut.err)"
	fi
}

CUT=': cut short while being read: read it again once whatever writes it is done$'

# bundle: a large file of the publication, cut while it is hashed and scanned
mkdir -p b
yes 'a quiet line of ledger text, nothing secret in it, only words' | head -c 8000000 >b/big.txt
printf '{"kind":"cohort.bundle-spec/1","name":"c","as_of":"2026-07-20T00:00:00Z","items":[{"role":"log","path":"big.txt"}]}' >b/s.json
cut_while "bundle: a file cut while it is read: exit 2, named" b/big.txt "^cohort bundle: big\\.txt$CUT" \
	"$COHORT" bundle --spec b/s.json -o b/out.tar
[ ! -e b/out.tar ] && ! ls b/out.tar.cohort-tmp.* >/dev/null 2>&1 && ok "bundle: no archive from a cut file" ||
	notok "bundle: no archive from a cut file" "$(ls b)"
rm -f b/big.txt

# verify: a freeze whose store's pack is cut while verify reads it, and a
# freeze cut while verify reads it
mkdir -p v
cp "$ROOT/examples/luna/spec.json" v/
for i in $(seq 1 100); do sed "s/\"game_id\":\"luna-/\"game_id\":\"c$i-luna-/" "$ROOT/examples/luna/ledger.jsonl"; done >v/big.jsonl
(cd v && "$COHORT" freeze --spec spec.json --store store -o freeze.json big.jsonl) || notok "verify: the freeze to cut" "freeze failed"
rm -f v/big.jsonl
pack=$(ls v/store/pack/*.pack)
cp "$pack" pack.bak
cut_while "verify: a store's pack cut while it is read: exit 2, named" "$pack" "^cohort verify: .*\\.pack$CUT" \
	"$COHORT" verify -o v/report.json v/freeze.json
[ ! -e v/report.json ] && ! ls v/report.json.cohort-tmp.* >/dev/null 2>&1 &&
	ok "verify: no report from a cut pack" || notok "verify: no report from a cut pack" "$(ls v)"
cp pack.bak "$pack"
rm -f pack.bak
"$COHORT" verify v/freeze.json >/dev/null 2>&1 && ok "verify: the pack whole again verifies" ||
	notok "verify: the pack whole again verifies" "$("$COHORT" verify v/freeze.json 2>&1 | head -c 300)"
cut_while "verify: a freeze cut while it is read: exit 2, named" v/freeze.json "^cohort verify: v/freeze\\.json$CUT" \
	"$COHORT" verify v/freeze.json
rm -rf v b
