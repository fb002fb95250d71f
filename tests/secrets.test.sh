# secrets.test.sh: the credential scan of `cohort bundle` (secret/*.c
# and the rules of secret/rules.toml): the regex translator and the
# rules-file reader, upstream fixtures, a fixture of each credential format
# (plain, escaped, compressed, in a database, in base64, in UTF-16),
# provider-shaped fake keys, no false alarm, the cap, and rules files given
# with --rules, good and malformed.
S=$BUILD/tests/unit/secret_scan
D=$ROOT/tests/data/secrets

# The translator, the matcher and the rules-file reader, case by case.
"$BUILD/tests/unit/secret_re" >re.out 2>&1
rc=$?
cat re.out
[ $rc = 0 ] || grep -q '^not ok' re.out || notok "secret_re" "exit $rc"

# Every built-in rule is in the man page.
missing=
for id in $(sed -n 's/^id = "\(.*\)"$/\1/p' "$ROOT/secret/rules.toml"); do
	grep -q "^\.BR\{0,1\} $(printf '%s' "$id" | sed 's/-/\\\\-/g')\( \|$\)" "$ROOT/docs/cohort-bundle.1" || missing="$missing $id"
done
[ -z "$missing" ] && ok "every built-in rule is listed in cohort-bundle(1)" || notok "rules in the man page" "missing:$missing"

# Fixtures: the exact hits (file, line, rule, masked value, where) are golden.
(cd "$D" && "$S" $(find . -type f ! -name LICENSE ! -name PROVENANCE.md ! -name EXPECTED ! -path './negative/*' | LC_ALL=C sort)) >fixtures.txt
same_bytes "fixture hits match golden/secret-fixtures" fixtures.txt "$ROOT/golden/secret-fixtures/stdout"
for f in detect-secrets/config.env detect-secrets/config.ini detect-secrets/config.md \
	detect-secrets/config.yaml detect-secrets/config2.yaml detect-secrets/files/private_key \
	detect-secrets/short_files/last_line.ini detect-secrets/short_files/middle_line.yml gitleaks/.env.prod; do
	if grep -q "^\./$f:" fixtures.txt; then ok "flags $f"; else notok "flags $f" "no hit"; fi
done
for f in detect-secrets/only_comments.yaml detect-secrets/word_list.txt; do
	if grep -q "^\./$f:" fixtures.txt; then notok "nothing in $f" "$(grep "$f" fixtures.txt)"; else ok "nothing in $f"; fi
done
# upstream's expectations: the allowlist pragma, an _id name and a UUID are quiet
for quiet in "config.ini:26:" "config.ini:33:" "config.yaml:12:" "config.yaml:16:" "config.yaml:18:"; do
	if grep -q "$quiet" fixtures.txt; then notok "quiet at $quiet" "flagged"; else ok "quiet at $quiet"; fi
done
if grep -q 'gX69\xe2\x80\xa6\|gX69YO4' fixtures.txt && grep -q 'gX69YO4CvB' fixtures.txt; then
	notok "values are masked" "a whole value was printed"
else ok "values are masked"; fi

# Each credential format, each way it can be written: found, by its rule,
# on its line, and reached the way EXPECTED says.
grep -v '^#' "$D/cohort/EXPECTED" | while read -r file line rule where; do
	got=$(grep "^\./cohort/$file:$line: $rule " fixtures.txt)
	if [ -z "$got" ]; then
		notok "cohort/$file: $rule on line $line" "$(grep "^\./cohort/$file:" fixtures.txt || echo 'no hit')"
	elif [ -n "$where" ] && ! printf '%s\n' "$got" | grep -qF ", $where"; then
		notok "cohort/$file: $rule $where" "$got"
	else
		ok "cohort/$file: $rule on line $line${where:+, $where}"
	fi
done
if grep -q 'FAKE\|COHORT\|E1hSWSHY\|SnHQ5NARc0vZ' fixtures.txt; then notok "decoded values are masked" "$(grep 'FAKE\|COHORT' fixtures.txt | head -3)"
else ok "decoded values are masked"; fi
n=$(grep -vc '^#' "$D/cohort/EXPECTED")
[ "$(grep -c '^\./cohort/' fixtures.txt)" = "$n" ] && ok "one hit in each of the $n format fixtures" ||
	notok "one hit each in cohort/" "$(grep '^\./cohort/' fixtures.txt)"

# Provider-shaped keys, made up here (obviously fake, right shape).
r20=Ab1Cd2Ef3Gh4Ij5Kl6Mn
r36=Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2
{
	echo "OPENAI_API_KEY=sk-proj-${r36}FAKE"
	echo "legacy: sk-${r36}fake1234"
	echo "export ANTHROPIC_API_KEY=sk-ant-api03-${r36}-FAKE"
	echo "google = AIza${r20}Op7Qr8St9Uv0Wx1"
	echo "hf = hf_QwErTyUiOpAsDfGhJkLzXcVbNmFaKeHfTo"
	echo "aws_access_key_id = AKIAQ3FAKE7ZW2XK4LMP"
	echo "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKEKEY123"
	echo "gh = ghp_${r36}"
	echo "pat = github_pat_11${r36}_FAKE${r36}FAKE"
	echo "gl = glpat-${r20}x"
	echo "-----BEGIN RSA PRIVATE KEY-----"
	echo "curl -H 'Authorization: Bearer ${r36}' https://api.example.com"
	echo "Authorization: Basic $(printf 'user:not-a-real-pass' | base64)"
	echo "db: postgres://admin:Fake-Pass-123@db.example.com:5432/x"
	echo '{"client_secret": "'"$r36"'"}'
} >fake.txt
"$S" fake.txt >fake.out
for rule in openai-api-key sk-api-key anthropic-api-key gcp-api-key huggingface-access-token \
	aws-access-token generic-credential github-pat github-fine-grained-pat gitlab-pat private-key \
	bearer-token basic-auth url-password; do
	if grep -q " $rule " fake.out; then ok "rule $rule fires"; else notok "rule $rule fires" "$(cat fake.out)"; fi
done
n=$(grep -c '' fake.out)
if [ "$n" = 15 ]; then ok "one hit per fake line (15)"; else notok "one hit per fake line" "$n hits: $(cat fake.out)"; fi
if grep -q "$r36" fake.out; then notok "fake keys are masked" "printed whole"; else ok "fake keys are masked"; fi
grep -q '^fake.txt:1: openai-api-key sk-p… (48 chars)$' fake.out && ok "mask is 4 chars, ellipsis, length" ||
	notok "mask format" "$(head -1 fake.out)"

# The keyword prefilter's AVX2 step (nibble masks, 32 positions at a step)
# lets through every place the plain step does: the same hits on the
# fixtures, and on the fake keys at each offset of a step, in either case,
# at the very end of a file and with rules added.
(cd "$D" && "$S" --plain $(find . -type f ! -name LICENSE ! -name PROVENANCE.md ! -name EXPECTED ! -path './negative/*' | LC_ALL=C sort)) >fixtures-plain.txt
same_bytes "fixture hits without the prefilter's AVX2 step: the same" fixtures.txt fixtures-plain.txt
awk '{ for (k = 0; k < 40; k++) { printf "%*s%s\n", k, "", $0; printf "%*s%s\n", k, "", toupper($0) } }' fake.txt >offsets.txt
printf 'x = AKIAQ3FAKE7ZW2XK4LMP' >>offsets.txt
"$S" offsets.txt >off.out
"$S" --plain offsets.txt >off-plain.out
[ "$(grep -c '' off.out)" -gt 600 ] && ok "fake keys at 40 offsets, both cases: $(grep -c '' off.out) hits" ||
	notok "fake keys at 40 offsets" "$(grep -c '' off.out) hits"
same_bytes "the same hits without the prefilter's AVX2 step" off.out off-plain.out
grep -q '^offsets.txt:1201: aws-access-token ' off.out && ok "a key in a file's last bytes" ||
	notok "a key in a file's last bytes" "$(tail -2 off.out)"

# A blob on a line with an escape elsewhere: found once, in base64 text
# (the unescaped line's copy of it was a second finding), and once after
# unescaping where an escape joins the blob.
sed 's/{/{"n":"a\\"b",/' "$D/cohort/base64-blob.json" >b64-esc.json
sed 's/"attachment":"Iy/"attachment":"\\u0049y/' "$D/cohort/base64-blob.json" >b64-joined.json
"$S" b64-esc.json b64-joined.json >b64e.out
if [ "$(grep -c '^b64-esc.json:1: openai-api-key .*, in base64 text$' b64e.out)" = 1 ] &&
	[ "$(grep -c '^b64-esc.json:' b64e.out)" = 1 ]; then ok "a blob beside an escape: one finding"
else notok "a blob beside an escape: one finding" "$(cat b64e.out)"; fi
grep -q '^b64-joined.json:1: openai-api-key .*, after JSON unescaping, in base64 text$' b64e.out &&
	ok "a blob an escape begins: found after unescaping" || notok "a blob an escape begins" "$(cat b64e.out)"

# No false alarm: digests, UUIDs, base64 of text, prose, placeholders,
# digest-valued key and token fields of a ledger, and the project's own
# documents, schemas, examples and test vectors.
for f in not-secrets.txt ledger-digests.jsonl base64-text.txt; do
	"$S" "$D/negative/$f" >neg.out
	if [ -s neg.out ]; then notok "no false alarm in negative/$f" "$(cat neg.out)"; else ok "no false alarm in negative/$f"; fi
done
(cd "$ROOT" && find examples schemas docs golden tests/data/jcs tests/data/json-parsing \
	tests/data/bagit-conformance -type f ! -path 'golden/secret-fixtures/*' ! -path 'golden/bundle-refusal/*' -print0 2>/dev/null |
	xargs -0 "$S") >own.out 2>&1
nown=$(cd "$ROOT" && find examples schemas docs golden tests/data/jcs tests/data/json-parsing \
	tests/data/bagit-conformance -type f 2>/dev/null | grep -c .)
if [ -s own.out ]; then notok "no false alarm on the project's own files" "$(head -5 own.out)"; else ok "no false alarm on the project's own files ($nown files)"; fi

# Work stays linear on pathological text: a keyword every few bytes and no
# delimiter for a megabyte (each rule tried at every keyword took 16 s a
# megabyte before a failed try covered the starts after it).
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "token"; for (i = 0; i < 50000; i++) printf "secret_password" }' >patho.txt
if timeout "$(patience 120)" "$S" -q patho.txt >patho.out 2>&1; then ok "1.7 MB of keywords without a delimiter: the scan ends"
else notok "pathological text" "$(cat patho.out) (timed out or failed)"; fi

# The cap: 20 reported of a rule in a file, the rest counted.
awk 'BEGIN { for (i = 0; i < 25; i++) printf "key %d: AKIAQ3FAKE%cZW2XK4L%cP\n", i, 65 + i, 90 - i }' >many.txt
"$S" --cap 20 many.txt >cap.out
[ "$(grep -c ': aws-access-token ' cap.out)" = 20 ] && grep -qx 'many.txt: and 5 more of aws-access-token' cap.out &&
	ok "--cap 20: 20 hits of the rule, then 'and 5 more'" || notok "cap" "$(cat cap.out)"
[ "$("$S" -q --cap 20 many.txt)" = "many.txt: 25" ] && ok "the count past the cap stays exact (25)" ||
	notok "exact count" "$("$S" -q --cap 20 many.txt)"

# --rules: rules added to the built-in ones, and an allowlist for one of them.
cat >extra.toml <<'EOF'
title = "a lab's own tokens"

[[rules]]
id = "lab-internal-token"
description = "The lab's internal service token."
regex = '''\b(labtok_[a-z0-9]{24})\b'''
keywords = ["labtok_"]
entropy = 3

[[allowlists]]
description = "the shared demo token is public"
targetRules = ["github-pat"]
regexes = ['''^ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2$''']
EOF
printf 'token: labtok_9f2k4m7q1x8c3v6b0n5z2h7j\ngh = ghp_%s\n' "$r36" >lab.txt
"$S" --rules extra.toml lab.txt >lab.out 2>&1
grep -q '^lab.txt:1: lab-internal-token labt' lab.out && ok "--rules adds a rule" || notok "--rules adds a rule" "$(cat lab.out)"
grep -q 'github-pat' lab.out && notok "--rules allowlist quiets a built-in rule" "$(cat lab.out)" ||
	ok "--rules allowlist (targetRules) quiets a built-in rule"
"$S" lab.txt | grep -q 'lab.txt:2: github-pat' && ok "without --rules the built-in rule fires" || notok "built-in" "$("$S" lab.txt)"

# Malformed rules files: exit 2, the message names FILE:LINE and the field.
badrules() { # NAME PATTERN: extra.bad holds the file
	"$S" --rules extra.bad lab.txt >bad.out 2>bad.err
	rc=$?
	if [ $rc != 2 ]; then notok "$1" "exit $rc: $(cat bad.out bad.err)"
	elif ! grep -Eq -- "$2" bad.err; then notok "$1" "$(cat bad.err)"
	else ok "$1"; fi
}
printf '[[rules]]\nid = "x"\nkeywords = ["x"]\nregex = '"'''"'(?<=a)b'"'''"'\n' >extra.bad
badrules "--rules: lookbehind refused, naming file:line and field" '^secret_scan: extra\.bad:4: "regex": offset 0: lookbehind'
printf '[[rules]]\nid = "x"\nregex = '"'"'x'"'"'\nkeywrods = ["x"]\n' >extra.bad
badrules "--rules: an unknown field, by name" '^secret_scan: extra\.bad:4: "keywrods": unknown field of a rule'
printf '[[rules]]\nid = "github-pat"\nregex = '"'"'x'"'"'\nkeywords = ["x"]\n' >extra.bad
badrules "--rules: a rule id the built-in rules have" 'extra\.bad:2: "id": rule "github-pat" is already defined \(secret/rules\.toml \(built in\):[0-9]+\)'
printf '[[rules]]\nid = "x"\nregex = '"'''"'a{2,1}'"'''"'\nkeywords = ["x"]\n' >extra.bad
badrules "--rules: a bad repeat count" 'extra\.bad:3: "regex": offset 1: a repeat count out of order'
printf '[rules%s]\nid = "x"\n' "$(awk 'BEGIN { for (i = 0; i < 80; i++) printf "." }')" >extra.bad
badrules "--rules: a table header of 80 dots, malformed (not past the name's buffer)" 'extra\.bad:1: a malformed table header'
printf '[%s]\n' "$(awk 'BEGIN { for (i = 0; i < 70; i++) printf "a" }')" >extra.bad
badrules "--rules: a table name of 70 bytes, malformed" 'extra\.bad:1: a malformed table header'
printf 'title = "no end\n' >extra.bad
badrules "--rules: an unterminated string" 'extra\.bad:1: "title": a newline in a one-line string'
badrules_missing() {
	"$S" --rules does-not-exist.toml lab.txt >/dev/null 2>bad.err
	[ $? = 2 ] && grep -q 'does-not-exist.toml' bad.err && ok "--rules: a missing file, by name" || notok "missing rules file" "$(cat bad.err)"
}
badrules_missing

# A counted repetition of what may match nothing: refused by the rules'
# reader (glibc's regcomp takes time and memory without bound on it).
printf '[[rules]]\nid = "x"\nregex = '"'''"'k(?:\\b){24}'"'''"'\nkeywords = ["k"]\n' >extra.bad
badrules "--rules: a counted repetition of what may match nothing" 'extra\.bad:3: "regex": offset 7: a counted repetition of what may match nothing'

# Under address spaces too small for the rules' expressions (the pypi rule,
# compiled when a token wants it, takes 13 MB in regcomp): every run gives
# the unrestricted hits or an out-of-memory error (exit 2: "out of memory",
# or a mapping refused with ENOMEM), never a crash
# (glibc's regcomp, failing an allocation partway, frees twice) nor fewer
# hits.  Not sanitized: AddressSanitizer's shadow admits no such limit.
if [ -z "${COHORT_SANITIZED:-}" ]; then
	t60=$(awk 'BEGIN { for (i = 0; i < 60; i++) printf "%c", 65 + (i * 7) % 26 }') # no alphabet run
	printf 'x = 1\npypi = "pypi-AgEIcHlwaS5vcmc%s"\ngh = ghp_%s\n' "$t60" "$r36" >room.txt
	"$S" room.txt >room.full 2>&1
	bad= held=
	for kb in $(seq 8000 1000 60000) $(seq 64000 8000 400000); do
		(ulimit -v $kb; "$S" room.txt >room.out 2>room.err)
		rc=$?
		if [ $rc = 0 ]; then
			held=1
			cmp -s room.full room.out || bad="$bad $kb:other-hits"
		elif [ $rc = 2 ]; then
			grep -Eq 'out of memory|Cannot allocate memory' room.err || bad="$bad $kb:$(head -c 80 room.err)"
		elif [ $rc != 127 ]; then
			bad="$bad $kb:exit-$rc"
		fi
	done
	grep -q '^room.txt:2: pypi-upload-token' room.full && [ -n "$held" ] && [ -z "$bad" ] &&
		ok "under ulimit -v from 8 to 400 MB: the same hits or out of memory, never a crash" ||
		notok "the scan under ulimit -v" "${bad:-never held} $(cat room.full)"
fi
