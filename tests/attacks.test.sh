# attacks.test.sh: the adversarial suite of `cohort verify ARCHIVE`.  Each
# attack starts from the Luna archive (as `make demo` writes it), edits the
# bag as an attacker would, rewrites the bag's own digests, Payload-Oxum
# and bag-info.txt to match (tests/bagtool.py), and expects the verifier to
# name what is wrong: a specific failing check, not merely a non-zero exit.
PY=/usr/bin/python3
BT="$PY $ROOT/tests/bagtool.py"

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
# DIR.tar, verify it (within SECONDS, default 60); exit status WANT and, for
# a finding, a failing check in the table matching PATTERN (grep -E), for
# an error, stderr matching it.
attack() {
	_n=$1 _d=$2 _want=$3 _pat=$4 _secs=${5:-60}
	$BT rebag "$_d/luna-publication" && $BT tar "$_d/luna-publication" "$_d.tar" ||
		{ notok "$_n" "could not build the attack"; return; }
	verify_attack "$_n" "$_d.tar" "$_want" "$_pat" "$_secs"
}

# verify_attack NAME ARCHIVE WANT PATTERN [SECONDS]: as attack, on a ready archive.
verify_attack() {
	_n=$1 _a=$2 _want=$3 _pat=$4 _secs=${5:-60}
	timeout "$_secs" "$COHORT" verify --format table "$_a" >"$TMP/att.out" 2>"$TMP/att.err"
	_got=$?
	if [ "$_got" = 124 ]; then
		notok "$_n" "still running after $_secs s"
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
sed -n 3p "$BAG/manifest-sha256.txt" >>"$BAG/manifest-sha256.txt"
$BT manifest-lines "$BAG" 200000
(cd "$BAG" && sha256sum bag-info.txt bagit.txt manifest-sha256.txt >tagmanifest-sha256.txt)
$BT tar "$BAG" many.tar
verify_attack "200,000 manifest lines naming absent files: found within 20 s" many.tar 1 \
	'payload +data/absent/0000000 +listed in manifest-sha256.txt but missing' 20
grep -Eq '^FAIL +manifest +manifest-sha256.txt +line 12: "data/[^"]*" is listed twice' "$TMP/att.out" &&
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
TMPDIR=$TMP/bomb.tmp timeout 60 "$COHORT" verify bomb.tar >/dev/null 2>bomb.err &
vpid=$!
while kill -0 "$vpid" 2>/dev/null; do
	k=$(du -sk bomb.tmp 2>/dev/null | cut -f1)
	[ "${k:-0}" -gt "$peak" ] && peak=$k
	sleep 0.05
done
wait "$vpid"
rc=$?
[ "$rc" = 2 ] && grep -q 'holds more than its Payload-Oxum declares (1099024 bytes in 11 files): refused' bomb.err &&
	ok "an archive of $(wc -c <bomb.tar) bytes expanding to 2.5 GB past its Payload-Oxum is refused (exit 2)" ||
	notok "expanding archive refused" "exit $rc: $(cat bomb.err)"
[ "$peak" -lt 70000 ] && ok "at most the declared payload and the tag room written meanwhile (peak ${peak} KB)" ||
	notok "temporary disk while refusing" "peak $peak KB"
[ -z "$(ls bomb.tmp)" ] && ok "the temporary folder is removed after a refusal" || notok "temporary folder after a refusal" "$(ls bomb.tmp)"
