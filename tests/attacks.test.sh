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
