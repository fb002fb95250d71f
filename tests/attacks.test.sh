# attacks.test.sh: the adversarial suite of `cohort verify ARCHIVE`.  Each
# attack starts from the Luna archive (as `make demo` writes it), edits the
# bag as an attacker would, rewrites the bag's own digests, Payload-Oxum
# and bag-info.txt to match (tests/bagtool.py), and expects the verifier to
# name what is wrong: a specific failing check, not merely a non-zero exit.
PY=/usr/bin/python3
BT="$PY $ROOT/tests/bagtool.py"
# Each verify runs under a limit that only catches a hang (lib.sh's
# patience); how long the cost attacks take is measured in bench/verify.sh.

luna_evidence luna
"$COHORT" bundle --spec luna/bundle.json -o luna.tar >/dev/null 2>bundle.err ||
	notok "the Luna archive bundles" "$(cat bundle.err)"
"$COHORT" verify luna.tar >/dev/null 2>&1 && ok "the untouched Luna archive verifies" ||
	notok "the untouched Luna archive verifies" "$("$COHORT" verify --format table luna.tar 2>&1 | grep -v '^ok')"

# fresh NAME: the Luna bag, extracted into NAME/luna-publication
fresh() {
	rm -rf "$1"
	mkdir -p "$1"
	tar -xf luna.tar -C "$1" 2>/dev/null
	BAG=$1/luna-publication
}

# attack NAME DIR WANT PATTERN [SECONDS]: rebag DIR's bag, pack it as
# DIR.tar, verify it (a hang caught after SECONDS, default 600, scaled by
# patience); exit status WANT and, for
# a finding, a failing check in the table matching PATTERN (grep -E), for
# an error, stderr matching it.
attack() {
	_n=$1 _d=$2 _want=$3 _pat=$4 _secs=${5:-600}
	$BT rebag "$_d/luna-publication" && $BT tar "$_d/luna-publication" "$_d.tar" ||
		{ notok "$_n" "could not build the attack"; return; }
	verify_attack "$_n" "$_d.tar" "$_want" "$_pat" "$_secs"
}

# verify_attack NAME ARCHIVE WANT PATTERN [SECONDS]: as attack, on a ready archive.
verify_attack() {
	_n=$1 _a=$2 _want=$3 _pat=$4 _secs=$(patience "${5:-600}")
	timeout "$_secs" "$COHORT" verify --format table "$_a" >"$TMP/att.out" 2>"$TMP/att.err"
	_got=$?
	if [ "$_got" = 124 ]; then
		notok "$_n" "still running after $_secs s: a hang"
	elif [ "$_got" != "$_want" ]; then
		notok "$_n" "exit $_got, want $_want: $(grep -v '^ok' "$TMP/att.out" | head -5) $(head -c 300 "$TMP/att.err")"
	elif [ "$_want" = 1 ] && ! grep -E -- "^FAIL +$_pat" "$TMP/att.out" >/dev/null; then
		notok "$_n" "no failing check /$_pat/: $(grep -v '^ok' "$TMP/att.out" | head -8)"
	elif [ "$_want" = 2 ] && ! grep -E -- "$_pat" "$TMP/att.err" >/dev/null; then
		notok "$_n" "stderr does not match /$_pat/: $(head -c 300 "$TMP/att.err")"
	else
		ok "$_n"
	fi
}

# --- the BagIt layer --------------------------------------------------------

# A manifest of 200,000 lines naming files that are not in the bag: every
# line is checked, the first thousand findings listed and the rest counted,
# in time near-linear in the lines (the duplicate check sorts them); and
# one line that names a file already named.
fresh many
dup=$(($(grep -c '' "$BAG/manifest-sha256.txt") + 1))
sed -n 3p "$BAG/manifest-sha256.txt" >>"$BAG/manifest-sha256.txt"
$BT manifest-lines "$BAG" 200000
(cd "$BAG" && sha256sum bag-info.txt bagit.txt manifest-sha256.txt >tagmanifest-sha256.txt)
$BT tar "$BAG" many.tar
verify_attack "200,000 manifest lines naming absent files: every one found" many.tar 1 \
	'payload +data/absent/0000000 +listed in manifest-sha256.txt but missing'
grep -Eq "^FAIL +manifest +manifest-sha256.txt +line $dup: \"data/[^\"]*\" is listed twice" "$TMP/att.out" &&
	ok "a line given twice among 200,000 is named" ||
	notok "a line given twice among 200,000 is named" "$(grep -v '^ok' "$TMP/att.out" | grep -v absent | head -5)"
grep -Eq '^FAIL +manifest +manifest-sha256.txt +199001 more findings, not listed' "$TMP/att.out" &&
	[ "$(grep -c absent "$TMP/att.out")" -le 1001 ] &&
	ok "the findings past the first thousand are counted, not listed" ||
	notok "findings counted" "$(grep -c absent "$TMP/att.out") lines; $(grep 'more findings' "$TMP/att.out")"

# Sparse entries (GNU tar --sparse): a file all holes and one of data and
# holes, read as their bytes (holes are zeros), as GNU tar and sha256sum
# read them.  The valid bag verifies; one whose manifest gives the empty
# digest for the all-hole file does not.
mkdir -p sparse/s/data
printf 'BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n' >sparse/s/bagit.txt
truncate -s 100M sparse/s/data/holes.bin
{ printf 'head'; dd if=/dev/zero bs=1M count=3 2>/dev/null; printf 'middle'; } >sparse/s/data/mixed.bin
truncate -s 9M sparse/s/data/mixed.bin
(cd sparse/s && printf 'Payload-Oxum: %s.2\n' "$(cat data/holes.bin data/mixed.bin | wc -c)" >bag-info.txt &&
	sha256sum data/holes.bin data/mixed.bin >manifest-sha256.txt &&
	sha256sum bag-info.txt bagit.txt manifest-sha256.txt >tagmanifest-sha256.txt)
(cd sparse/s && fallocate -d data/mixed.bin 2>/dev/null; true)
(cd sparse && tar --sparse --format=pax -cf valid.tar s)
tar -tvf sparse/valid.tar >/dev/null 2>&1 && mkdir -p sparse/x && tar -xf sparse/valid.tar -C sparse/x &&
	(cd sparse/x/s && sha256sum -c --quiet manifest-sha256.txt) >/dev/null 2>&1 &&
	ok "GNU tar and sha256sum: the sparse bag holds" || notok "GNU tar and sha256sum on the sparse bag" "$(tar -tvf sparse/valid.tar 2>&1)"
verify_attack "a valid bag of sparse entries verifies" sparse/valid.tar 0 ''
sed -i "s/^[0-9a-f]*  data\/holes.bin/$(printf '' | sha256sum | cut -c1-64)  data\/holes.bin/" sparse/s/manifest-sha256.txt
(cd sparse/s && sha256sum bag-info.txt bagit.txt manifest-sha256.txt >tagmanifest-sha256.txt)
(cd sparse && tar --sparse --format=pax -cf empty.tar s)
verify_attack "a 100 MiB all-hole entry given the empty digest" sparse/empty.tar 1 \
	'payload +data/holes.bin +sha256 is 20492a4d0d84f8beb1767f6616229f85d44c2827b64bdbfb260ee12fa1109e0e, manifest-sha256.txt says e3b0c442'

# A small archive that expands far past what it declares: 42 sparse
# entries of 60 MiB beside the Luna payload, Payload-Oxum left as it was.
# Refused before more than the declared payload is written, and the
# temporary folder removed.
fresh bomb
mkdir -p "$BAG/data/pad"
i=0
while [ $i -lt 42 ]; do
	truncate -s 60M "$BAG/data/pad/zeros$i.bin"
	i=$((i + 1))
done
(cd bomb && tar --sparse --format=pax -cf ../bomb.tar luna-publication)
mkdir -p bomb.tmp
peak=0
TMPDIR=$TMP/bomb.tmp timeout "$(patience 600)" "$COHORT" verify bomb.tar >/dev/null 2>bomb.err &
vpid=$!
while kill -0 "$vpid" 2>/dev/null; do
	k=$(du -sk bomb.tmp 2>/dev/null | cut -f1)
	[ "${k:-0}" -gt "$peak" ] && peak=$k
	sleep 0.05
done
wait "$vpid"
rc=$?
oxum=$(sed -n 's/^Payload-Oxum: \([0-9]*\)\.\([0-9]*\)$/\1 bytes in \2 files/p' "$BAG/bag-info.txt")
[ "$rc" = 2 ] && grep -q "holds more than its Payload-Oxum declares ($oxum): refused" bomb.err &&
	ok "an archive of $(wc -c <bomb.tar) bytes expanding to 2.5 GB past its Payload-Oxum is refused (exit 2)" ||
	notok "expanding archive refused" "exit $rc: $(cat bomb.err)"
[ "$peak" -lt 70000 ] && ok "at most the declared payload and the tag room written meanwhile (peak ${peak} KB)" ||
	notok "temporary disk while refusing" "peak $peak KB"
[ -z "$(ls bomb.tmp)" ] && ok "the temporary folder is removed after a refusal" || notok "temporary folder after a refusal" "$(ls bomb.tmp)"

# Special entries in the Luna archive's payload, appended by an attacker's
# tar after the bag's own: a hard link to a file outside the bag (by an
# absolute and by a climbing name), a FIFO and a character device.  Each
# is refused (exit 2), naming the entry, and what was extracted before it
# is removed.
fresh special
$BT tar "$BAG" special.tar
for how in hard-abs:hard hard-up:hard fifo:special device:special; do
	f=${how%%:*}
	cp special.tar "special-$f.tar"
	$PY - "special-$f.tar" "$f" <<'PY'
import sys, tarfile
name, how = sys.argv[1:3]
i = tarfile.TarInfo("luna-publication/data/x")
if how == "hard-abs":
    i.type, i.linkname = tarfile.LNKTYPE, "/etc/passwd"
elif how == "hard-up":
    i.type, i.linkname = tarfile.LNKTYPE, "../../../../../../etc/passwd"
elif how == "fifo":
    i.type = tarfile.FIFOTYPE
else:
    i.type, i.devmajor, i.devminor = tarfile.CHRTYPE, 1, 3
with tarfile.open(name, "a", format=tarfile.PAX_FORMAT) as t:
    t.addfile(i)
PY
	rm -rf "special-$f.tmp" && mkdir "special-$f.tmp"
	TMPDIR=$TMP/special-$f.tmp timeout "$(patience 600)" "$COHORT" verify "special-$f.tar" >/dev/null 2>"$TMP/att.err"
	rc=$?
	[ $rc = 2 ] && grep -q "special-$f.tar: entry \"luna-publication/data/x\": ${how#*:} \(link\|file\) not allowed in a bag" "$TMP/att.err" &&
		[ -z "$(ls "special-$f.tmp")" ] &&
		ok "a payload entry that is a $f: refused (exit 2), nothing left in TMPDIR" ||
		notok "a payload entry that is a $f" "exit $rc: $(cat "$TMP/att.err"); left: $(ls "special-$f.tmp")"
done

# --- the bundle layer: trust nothing the bag says about itself -------------

# One game's result flipped in the ledger, its identity and size in
# bundle.json and everything else rewritten to match: the freeze no longer
# comes from the bundled ledger.
fresh ledger
sed -i '0,/"result":"draw"/s//"result":"win"/' "$BAG/data/ledger.jsonl"
$BT reid "$BAG"
attack "a game's result flipped in the bundled ledger" ledger 1 \
	'freeze-ledgers +freeze.json +freezing its 1 ledger in the bag again gives sha256:[0-9a-f]{64}; included games: 1 changed'
# The same with the freeze's derived_from dropped from bundle.json: what a
# freeze derives from follows from its kind (the ledgers whose games it
# lists), so the check still runs.
fresh ledger2
sed -i '0,/"result":"draw"/s//"result":"win"/' "$BAG/data/ledger.jsonl"
$BT json "$BAG/data/bundle.json" "[it.pop('derived_from', None) for it in d['items']]"
$BT reid "$BAG"
attack "a flipped result, and bundle.json naming no ledger for the freeze" ledger2 1 \
	'freeze-ledgers +freeze.json +freezing its 1 ledger in the bag again gives sha256:[0-9a-f]{64}; included games: 1 changed'

# The freeze's games are read flat (not as a tree); where a check needs
# them all, the freeze is read again whole.  A stored record changed: the
# quick proof fails, and the thorough one names the record.  Two games'
# identities swapped in the freeze: each record names another game, and
# the ledger frozen again differs by those two.  A games entry that is
# not an object: the freeze cannot be read as a manifest.
fresh record
python3 - "$(ls "$BAG"/data/store/pack/*.pack)" <<'P'
import sys
f = sys.argv[1]
b = bytearray(open(f, "rb").read())
i = b.find(b'"result":"draw"')
b[i + 10:i + 14] = b"loss"
open(f, "wb").write(b)
P
$BT reid "$BAG"
attack "a stored record changed, its digests not" record 1 \
	'record-hash +luna-none-b01-g01 +stored bytes of game luna-none-b01-g01 hash to sha256:'
fresh swapped
$BT json "$BAG/data/freeze.json" "g = d['games']; g[0]['id'], g[1]['id'] = g[1]['id'], g[0]['id']"
$BT reid "$BAG"
attack "two games' identities swapped in the freeze" swapped 1 \
	'record-game +luna-none-b01-g01 +the manifest names game luna-none-b01-g01, the record is game luna-none-b01-g02'
grep -E -- '^FAIL +freeze-ledgers .*included games: 2 changed, 0 added, 0 gone; first: luna-none-b01-g01' \
	"$TMP/att.out" >/dev/null && ok "the swapped freeze made again: the two games named" ||
	notok "the swapped freeze made again" "$(grep freeze-ledgers "$TMP/att.out")"
fresh noobject
$BT json "$BAG/data/freeze.json" "d['games'].append(7)"
$BT reid "$BAG"
attack "a games entry in the freeze that is no object" noobject 2 '"games": "id": missing'

# A freeze without a store is read with its games flat too: its identity
# from its bytes, its ledger frozen again against the whole freeze.
sed 's/"path": "freeze.json", "store": "store", /"path": "freeze.json", /' luna/bundle.json >luna/bundle-nostore.json
"$COHORT" bundle --spec luna/bundle-nostore.json -o nostore.tar >/dev/null 2>&1 &&
	"$COHORT" verify nostore.tar >/dev/null 2>&1 && ok "an archive whose freeze has no store verifies" ||
	notok "an archive whose freeze has no store verifies" "$("$COHORT" verify --format table nostore.tar 2>&1 | grep -v '^ok')"
rm -rf nostore-ledger
mkdir nostore-ledger
tar -xf nostore.tar -C nostore-ledger 2>/dev/null
BAG=nostore-ledger/luna-publication
sed -i '0,/"result":"draw"/s//"result":"win"/' "$BAG/data/ledger.jsonl"
$BT reid "$BAG"
attack "a flipped result beside a freeze without a store" nostore-ledger 1 \
	'freeze-ledgers +freeze.json +freezing its 1 ledger in the bag again gives sha256:[0-9a-f]{64}; included games: 1 changed'

# The bundled spec changed (another Black penalty): the freeze embeds
# another one.
fresh spec
$BT json "$BAG/data/spec.json" "d['black_penalty'] = 0"
$BT reid "$BAG"
attack "the bundled spec is not the one the freeze embeds" spec 1 \
	'spec +freeze.json +it embeds spec sha256:[0-9a-f]{64}; the spec it derives from \(spec.json\) is sha256:'

# A store path that climbs out of the bag, to a store on the host; and an
# absolute one.  The bag's own store removed, so only the host's is there.
for how in climb absolute; do
	fresh "store-$how"
	rm -rf "$BAG/data/store"
	if [ "$how" = climb ]; then
		to="../../../../../../../../../../..$TMP/luna/store"
	else
		to="$TMP/luna/store"
	fi
	$BT json "$BAG/data/bundle.json" "d['items'][2]['store']['path'] = '$to'"
	attack "a store path out of the bag ($how)" "store-$how" 1 \
		'path +data/bundle.json +items\[2\]\.store\.path ".*" does not stay inside the bag'
done
fresh climb-item
cp "$BAG/data/fit.json" "$TMP/host-fit.json"
$BT json "$BAG/data/bundle.json" "d['items'][3]['path'] = '../../../../../../../../..$TMP/host-fit.json'"
rm "$BAG/data/fit.json"
attack "an item's path out of the bag" climb-item 1 \
	'path +data/bundle.json +items\[3\]\.path ".*" does not stay inside the bag: path escapes the bag'
# a bag folder whose store is a link to the host's: refused when opened
fresh link
rm -rf "$BAG/data/store"
ln -s "$TMP/luna/store" "$BAG/data/store"
timeout "$(patience 600)" "$COHORT" verify "$BAG" >/dev/null 2>"$TMP/att.err"
[ $? = 2 ] && grep -q 'data/store: symbolic link not allowed in a bag' "$TMP/att.err" &&
	ok "a bag folder whose store is a link out of it is refused (exit 2)" ||
	notok "a store that is a link" "$(cat "$TMP/att.err")"

# The bundle document removed, emptied, made {} or nested past the reader's
# depth, with a rating changed in fit.json: bag-info.txt still names it.
for how in removed empty object nested; do
	fresh "bdoc-$how"
	$BT json "$BAG/data/fit.json" "d['conditions'][0]['rating'] = 2999"
	case $how in
	removed) want='bag-info.txt names it as the Bundle-Document; the bag has no such file'
		rm "$BAG/data/bundle.json" ;;
	empty) want='data/bundle.json:1:1: unexpected end of input'
		: >"$BAG/data/bundle.json" ;;
	object) want='not a cohort.bundle/1 document'
		printf '{}' >"$BAG/data/bundle.json" ;;
	nested) want='data/bundle.json:1:257: nesting deeper than 256'
		$PY -c 'print("[" * 100000 + "]" * 100000)' >"$BAG/data/bundle.json" ;;
	esac
	attack "the bundle document $how" "bdoc-$how" 1 "bundle-document +data/bundle.json +.*$want"
done
# ... and the Bundle-Document line dropped from bag-info.txt too
fresh bdoc-unnamed
$BT json "$BAG/data/fit.json" "d['conditions'][0]['rating'] = 2999"
rm "$BAG/data/bundle.json"
sed -i '/^Bundle-Document:/d' "$BAG/bag-info.txt"
attack "no bundle document and none named, cohort documents in the payload" bdoc-unnamed 1 \
	'bundle-document +data/[a-z]+\.json +a cohort\.[a-z]+/1 document, and bag-info.txt names no Bundle-Document'
# ... and one naming a path out of the bag
fresh bdoc-out
$BT rebag "$BAG"
sed -i 's|^Bundle-Document: data/bundle.json|Bundle-Document: data/../../bundle.json|' "$BAG/bag-info.txt"
(cd "$BAG" && sha256sum bag-info.txt bagit.txt manifest-sha256.txt >tagmanifest-sha256.txt)
$BT tar "$BAG" bdoc-out.tar
verify_attack "a Bundle-Document out of the bag" bdoc-out.tar 1 \
	'bundle-document +bag-info.txt +Bundle-Document "data/\.\./\.\./bundle.json" is not a payload path inside the bag'

# A second fit claiming another rating rides along, listed nowhere.
fresh unlisted
cp "$BAG/data/fit.json" "$BAG/data/fit-v2.json"
$BT json "$BAG/data/fit-v2.json" "d['conditions'][0]['rating'] = 2999"
attack "an unlisted document in the payload" unlisted 1 \
	'unlisted +data/fit-v2.json +in the payload, but data/bundle.json neither lists it'
fresh unlisted-many
mkdir -p "$BAG/data/more"
i=0
while [ $i -lt 1200 ]; do : >"$BAG/data/more/f$i"; i=$((i + 1)); done
attack "1,200 unlisted files: the first thousand listed, the rest counted" unlisted-many 1 \
	'unlisted +data/bundle.json +200 more files not listed'

# Kinds: bundle.json hiding a document's kind, and a kind the verifier
# cannot check, are findings, not silently skipped.
fresh nokind
$BT json "$BAG/data/bundle.json" "del d['items'][3]['kind']"
$BT json "$BAG/data/fit.json" "d['conditions'][0]['rating'] = 2999"
$BT reid "$BAG"
attack "bundle.json hiding a changed fit's kind" nokind 1 \
	'kind +fit.json +bundle.json gives the kind \(none\), the document is cohort.fit/1'
grep -Eq '^FAIL +refit +fit.json' "$TMP/att.out" && ok "... and the fit is still computed again" ||
	notok "the fit computed again without its kind" "$(grep -v '^ok' "$TMP/att.out" | head -5)"
fresh unknown
printf '{"kind":"cohort.note/1","text":"trust me"}' >"$BAG/data/note.json"
$BT json "$BAG/data/bundle.json" "d['items'].append({'role': 'note', 'path': 'note.json', 'id': '', 'kind': 'cohort.note/1'})"
$BT reid "$BAG"
attack "a document of a kind the verifier does not know" unknown 1 \
	'kind +note.json +a cohort.note/1 document: not a kind this verifier can check'
# Which cohort made the bag (bag-info.txt's Bag-Software-Agent): reported,
# and a bag that does not say, or says only "cohort", is a finding.
"$COHORT" verify --format table luna.tar >agent.out 2>&1
grep -Eq '^ok +software-agent +bag-info.txt +made by cohort [0-9.]+ \(([0-9a-f]{40}(-dirty)?|unknown)\)$' \
	agent.out && ok "verify reports the version and commit that made the bag" ||
	notok "verify reports the version and commit" "$(grep software-agent agent.out)"
fresh noagent
sed -i '/^Bag-Software-Agent:/d' "$BAG/bag-info.txt"
attack "a bag that does not say which cohort made it" noagent 1 \
	'software-agent +bag-info.txt +no Bag-Software-Agent: the bag does not say which cohort'
fresh oldagent
sed -i 's/^Bag-Software-Agent:.*/Bag-Software-Agent: cohort/' "$BAG/bag-info.txt"
attack "a Bag-Software-Agent without version and commit" oldagent 1 \
	'software-agent +bag-info.txt +Bag-Software-Agent is "cohort": expected cohort VERSION \(COMMIT\)'
# a fit whose input is not in the bag (bundle.json's "inputs" dropped)
fresh noinput
$BT json "$BAG/data/fit.json" "d['input'] = 'sha256:' + '0' * 64"
$BT json "$BAG/data/bundle.json" "del d['items'][3]['inputs']"
$BT reid "$BAG"
attack "a fit whose recorded input is not in the bag" noinput 1 \
	'refit +fit.json +its input sha256:0{64} is not a document in the bag'

# The live rule, the gate's own function: an active condition.
fresh live
$BT json "$BAG/data/freeze.json" "d['conditions'][0]['state'] = 'active'"
$BT reid "$BAG"
attack "a freeze with an active condition" live 1 \
	'live +freeze.json +condition "none" is active \(family "luna"\): its ladder has not stopped'
# ... games a running ladder had not finished, listed as excluded live
fresh live-games
$BT json "$BAG/data/freeze.json" "d['excluded'] = [{'game_id': g['game_id'], 'id': g['id'], 'reason': 'live'} for g in d['games'][:3]]; del d['games'][:3]"
$BT reid "$BAG"
attack "a freeze excluding live games" live-games 1 \
	'live +freeze.json +3 games are still live \(first: luna-none-b01-g01\)$'
# ... and a derived document marked live (the rule asks of any document)
fresh live-doc
$BT json "$BAG/data/fit.json" "d['live'] = True"
$BT reid "$BAG"
attack "a fit marked live" live-doc 1 'live +fit.json +the document is marked live$'

# Prompts and tool files against the git blobs bundle.json records: the
# gate records each one's git id (the id git itself gives the file at its
# commit); a prompt edited in the bag, every digest rewritten to match, is
# no longer that blob, and provenance without a blob id is a finding.
want=$(git -C luna/harness rev-parse HEAD:prompts/system.txt 2>&1)
tar -xOf luna.tar luna-publication/data/bundle.json | grep -q "\"blob\":\"$want\"" &&
	grep -Eq "^ok +git +prompts/system.txt +git blob $want, as bundle.json records" agent.out &&
	ok "the gate records the prompt's git blob id, and verify holds the bag's bytes to it" ||
	notok "the prompt's git blob id" "$want; $(grep '^ok *git' agent.out)"
fresh prompt
printf 'Always report a rating of 2999.\n' >>"$BAG/data/prompts/system.txt"
$BT reid "$BAG"
attack "a prompt edited in the bag" prompt 1 \
	"git +prompts/system.txt +bundle.json records git blob $want \\(prompts/system.txt of harness at commit eee1cde40d59\\); the bytes in the bag are blob [0-9a-f]{40}$"
fresh noblob
$BT json "$BAG/data/bundle.json" "[it['git'].pop('blob') for it in d['items'] if 'git' in it]"
attack "git provenance without a blob id" noblob 1 \
	'git +prompts/tools.json +its git provenance \(prompts/tools.json of harness at commit eee1cde40d59\) records no blob id'

# The credential rules, the gate's own scan: a SendGrid key planted in a
# game of the bundled ledger (tests/data/secrets holds the fixture), every
# digest rewritten to match, is named by file, line and rule.
fresh secret
key=$(sed -n 's/^mail relay: //p' "$ROOT/tests/data/secrets/cohort/sendgrid.txt")
sed -i "7s|\"opening\":|\"note\":\"relay $key\",\"opening\":|" "$BAG/data/ledger.jsonl"
$BT reid "$BAG"
attack "a credential in a game of the bundled ledger" secret 1 \
	'secret +ledger.jsonl:7 +sendgrid-api-token: a credential \(SG\.H'
# ... and a gzip stream cut short, which the scan cannot read through: a
# scan that did not run is a finding, not a clean file.
fresh secret-cut
head -c 4000 "$BAG/data/ledger.jsonl" | gzip -c | head -c 60 >"$BAG/data/ledger.jsonl.gz"
attack "a truncated gzip stream in the payload" secret-cut 1 \
	'secret +ledger.jsonl.gz +cannot be scanned for credentials: ledger.jsonl.gz: cannot decompress: truncated gzip input'
grep -Eq '^ok +secret +data/bundle.json +the gate.s [0-9]+ credential rules find nothing in the 13 payload files$' \
	agent.out && ok "the untouched archive: the credential scan finds nothing" ||
	notok "the untouched archive's credential scan" "$(grep secret agent.out)"

# --- cost -------------------------------------------------------------------

# Every item repeated 20,000 times: refused at once, past the item limit;
# repeated 500 times, within it: refused by sorting.
fresh repeated
$BT json "$BAG/data/bundle.json" "d['items'] = [x for x in d['items'] for i in range(20000)]"
attack "items repeated 20,000 times: refused past the item limit" repeated 2 \
	'data/bundle.json: items: 140000 items, more than 4096'
fresh twice
$BT json "$BAG/data/bundle.json" "d['items'] = [x for x in d['items'] for i in range(500)]"
attack "items repeated 500 times: refused by sorting" twice 2 \
	'data/bundle.json: items\[[0-9]+\]\.path: "[a-z]+\.json" is given twice \(also items\[[0-9]+\]\)'
fresh too-many
$BT json "$BAG/data/bundle.json" "d['items'] = d['items'] + [{'role': 'r%d' % i, 'path': 'p%d' % i, 'id': 'x'} for i in range(5000)]"
attack "more than 4,096 items: refused" too-many 2 'data/bundle.json: items: 5007 items, more than 4096'

# One entry past the cap of 1,000,000 (bagit/bag.c), in a 10 MB gzip tar
# of empty files with no bag-info.txt: refused while the headers are read,
# before the bag's own budget would be asked.  (Skipped sanitized: a
# million headers are minutes there.)
if [ -z "${COHORT_SANITIZED:-}" ]; then
	$BT entries cap.tgz 1000001
	verify_attack "1,000,001 entries: refused (exit 2) while the headers are read" cap.tgz 2 \
		'cap.tgz: more than 1000000 entries$'
	rm -f cap.tgz
fi

# Interrupted: SIGINT, SIGTERM and SIGHUP during the extraction of a large
# archive (a declared 2 GiB of holes) leave nothing in TMPDIR.
mkdir -p big/b/data
printf 'BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n' >big/b/bagit.txt
truncate -s 2G big/b/data/zeros.bin
printf 'Payload-Oxum: 2147483648.1\n' >big/b/bag-info.txt
(cd big/b && printf '%s  data/zeros.bin\n' "$(head -c 2147483648 /dev/zero | sha256sum | cut -c1-64)" >manifest-sha256.txt)
(cd big && tar --sparse --format=pax -cf ../big.tar b)
# (started from python with the signals at their defaults: a shell starts
# background jobs with SIGINT ignored, nohup ignores SIGHUP, and an ignored
# signal stays so, in cohort as in any program)
for sig in INT TERM HUP; do
	rm -rf "sig$sig.tmp"
	mkdir "sig$sig.tmp"
	r=$($PY - "$COHORT" big.tar "$TMP/sig$sig.tmp" "$sig" "$(patience 600)" <<'PY'
import os, signal, subprocess, sys, time
cohort, archive, tmp, name, hang = sys.argv[1:6]
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_DFL)
p = subprocess.Popen([cohort, "verify", archive], env=dict(os.environ, TMPDIR=tmp),
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
t = time.time()
while not os.listdir(tmp) and time.time() - t < float(hang) and p.poll() is None:
    time.sleep(0.02)
seen = bool(os.listdir(tmp))
time.sleep(0.3)
p.send_signal(getattr(signal, "SIG" + name))
rc = p.wait()
print("%d %s %s" % (rc, "seen" if seen else "unseen", ",".join(os.listdir(tmp)) or "empty"))
PY
)
	case $sig in INT) num=2 ;; TERM) num=15 ;; HUP) num=1 ;; esac
	case $r in
	"-$num seen empty") ok "SIG$sig while extracting: ended by the signal, TMPDIR left empty" ;;
	*) notok "SIG$sig while extracting" "returncode, folder seen, left: $r" ;;
	esac
done

# --- a check that cannot run is never a pass ---------------------------------

# Address space too small at many sizes: each run either holds with the
# very same report as unrestricted, or is an error (exit 2); never a
# shorter "holds", nor a finding (memory that ran out is not the bag's
# fault), nor a crash: glibc's regcomp, failing an allocation partway,
# frees twice and aborts, so the rules' expressions are compiled only with
# room for them (secret_regcomp).
if [ -z "${COHORT_SANITIZED:-}" ]; then
	"$COHORT" verify --format table luna.tar >full.out 2>/dev/null
	bad=
	for kb in $(seq 56000 500 96000) $(seq 100000 4000 300000) 400000 600000; do
		(ulimit -v $kb; "$COHORT" verify --format table luna.tar >lim.out 2>lim.err)
		rc=$?
		if [ $rc = 0 ] && ! cmp -s full.out lim.out; then
			bad="$bad $kb:holds-with-a-different-report"
		elif [ $rc = 1 ]; then
			bad="$bad $kb:a-finding-the-full-report-has-not($(grep -m1 '^FAIL' lim.out))"
		elif [ $rc -gt 2 ] && [ $rc != 127 ]; then
			bad="$bad $kb:exit-$rc" # 127: the program could not even be loaded
		fi
		[ $rc = 0 ] && held=1
	done
	[ -z "$bad" ] && [ -n "${held:-}" ] &&
		ok "under ulimit -v from 56 to 600 MB: the full report or an error, never less or other" ||
		notok "verify under ulimit -v" "${bad:-it never held}"
fi
# a payload document that is a folder where bundle.json names a file
fresh folder
rm "$BAG/data/fit.json"
mkdir "$BAG/data/fit.json"
: >"$BAG/data/fit.json/x"
$BT rebag "$BAG"
timeout "$(patience 600)" "$COHORT" verify --format table "$BAG" >"$TMP/att.out" 2>"$TMP/att.err"
[ $? = 1 ] && grep -Eq '^FAIL +identity +fit.json +role "fit": listed in bundle.json but not in the bag' "$TMP/att.out" &&
	ok "a document that is a folder: a finding" || notok "a document that is a folder" "$(grep -v '^ok' "$TMP/att.out" | head -3) $(cat "$TMP/att.err")"

# --- the suite can fail --------------------------------------------------------

# The harness itself, on archives made above: an attack whose expectation
# is wrong (an exit status, a failing check the verifier does not report,
# an error it does not give) must come out "not ok", as a verifier that
# stopped finding the attack would.
(
	verify_attack "self: the untouched archive as an attack" luna.tar 1 'identity'
	verify_attack "self: the edited prompt, expecting a secret" prompt.tar 1 'secret '
	verify_attack "self: repeated items, expecting another error" repeated.tar 2 'no such error'
) >self.out
grep -q '^not ok self: the untouched archive as an attack: exit 0, want 1' self.out &&
	grep -q '^not ok self: the edited prompt, expecting a secret: no failing check /secret /' self.out &&
	grep -q '^not ok self: repeated items, expecting another error: stderr does not match /no such error/' self.out &&
	[ "$(grep -c '^not ok' self.out)" = 3 ] && ! grep -q '^ok' self.out &&
	ok "the harness fails an attack the verifier does not answer as expected" ||
	notok "the harness fails a wrong expectation" "$(cat self.out)"
