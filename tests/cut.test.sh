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

# --- a mapped file is known by what was opened, never by its name -----------
# verify and report of an archive from a folder that holds, under every
# name the bag's files go by (with and without luna-publication/ and data/,
# and the last part alone), a one-byte file: the same outcome as from
# anywhere else.  (The guard once looked a mapped file up by the name in
# its messages, relative to the current folder, and called the archive
# cut short here.)
luna_evidence luna
"$COHORT" bundle --spec luna/bundle.json -o luna.tar >/dev/null 2>&1 || notok "the Luna archive" "bundle failed"
"$COHORT" verify -o want-verify.json luna.tar >/dev/null 2>&1
"$COHORT" report -o want-report.html luna.tar >/dev/null 2>&1
mkdir crowd
tar -tf luna.tar | while read -r p; do
	case $p in */) continue ;; esac
	for q in "$p" "${p#*/}" "${p#*/data/}" "${p##*/}"; do
		mkdir -p "crowd/$(dirname "$q")" 2>/dev/null
		[ -d "crowd/$q" ] || printf x >"crowd/$q"
	done
done
(cd crowd && "$COHORT" verify -o ../crowd-verify.json ../luna.tar) >/dev/null 2>crowd.err
rc=$?
[ $rc = 0 ] && cmp -s crowd-verify.json want-verify.json &&
	ok "verify ARCHIVE from a folder of same-named files of other sizes: holds, the same report" ||
	notok "verify ARCHIVE among same-named files" "exit $rc: $(head -c 300 crowd.err)"
(cd crowd && "$COHORT" report -o ../crowd-report.html ../luna.tar) >/dev/null 2>crowd.err
rc=$?
[ $rc = 0 ] && cmp -s crowd-report.html want-report.html &&
	ok "report ARCHIVE from a folder of same-named files of other sizes: the same page" ||
	notok "report ARCHIVE among same-named files" "exit $rc: $(head -c 300 crowd.err)"

# An extracted file cut while verify has it mapped is still caught, from
# any folder: bundle.json cut by three bytes (inside its last page, so no
# SIGBUS: only the size tells), and the ledger cut to 4 KB.
cut_extracted() { # NAME ARCHIVE SUFFIX BYTES|to:SIZE
	_n=$1 _a=$2
	shift 2
	rm -f cut.json
	stop_at_map "$1" "$COHORT" verify -o cut.json "$_a" >cut.out 2>cut.err
	_pid=$!
	if stopped_wait $_pid; then
		_f=$(grep -o "/[^ ]*$1\$" "/proc/$_pid/maps" | head -n 1)
		_sz=$(stat -c %s "$_f")
		case $2 in to:*) truncate -s "${2#to:}" "$_f" ;; *) truncate -s $((_sz - $2)) "$_f" ;; esac
	else
		notok "$_n: the program stopped at the mapping" "it ended first: $(head -c 300 cut.err)"
	fi
	kill -CONT $_pid 2>/dev/null
	wait $_pid
	_rc=$?
	_name=${1##*/}
	if [ $_rc = 2 ] && grep -Eq "^cohort verify: ${_name%.*}\\.${_name##*.}$CUT" cut.err &&
		[ ! -e cut.json ]; then
		ok "$_n"
	else
		notok "$_n" "exit $_rc: $(head -c 300 cut.err)"
	fi
}
cut_extracted "verify ARCHIVE: the extracted bundle.json cut by 3 bytes while mapped: exit 2, named" \
	luna.tar /luna-publication/data/bundle.json 3
(cd crowd && cut_extracted "the same from a folder of same-named files" \
	../luna.tar /luna-publication/data/bundle.json 3)
cut_extracted "verify ARCHIVE: the extracted ledger cut to 4 KB while mapped: exit 2, named" \
	luna.tar /luna-publication/data/ledger.jsonl to:4096
rm -rf crowd luna luna.tar
