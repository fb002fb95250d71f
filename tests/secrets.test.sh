# secrets.test.sh: the credential scan of `cohort bundle` (bundle/secret.c):
# upstream fixtures, provider-shaped fake keys, and no false alarm.
S=$BUILD/tests/unit/bundle_secret
D=$ROOT/tests/data/secrets

# Fixtures: the exact hits (file, line, rule, masked value) are golden
# (golden/bundle-secret-fixtures); here, what they must and must not hold.
(cd "$D" && "$S" $(find . -type f ! -name LICENSE ! -name PROVENANCE.md ! -path './negative/*' | LC_ALL=C sort)) >fixtures.txt
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

# Provider-shaped keys, made up here (obviously fake, right shape).
r20=Ab1Cd2Ef3Gh4Ij5Kl6Mn
r36=Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2
{
	echo "OPENAI_API_KEY=sk-proj-${r36}FAKE"
	echo "legacy: sk-${r36}fake1234"
	echo "export ANTHROPIC_API_KEY=sk-ant-api03-${r36}-FAKE"
	echo "google = AIza${r20}Op7Qr8St9Uv0Wx1"
	echo "hf = hf_${r36}"
	echo "aws_access_key_id = AKIA2FAKE3FAKE4FAKE5"
	echo "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKEKEY123"
	echo "gh = ghp_${r36}"
	echo "pat = github_pat_11${r36}_FAKE"
	echo "gl = glpat-${r20}x"
	echo "-----BEGIN RSA PRIVATE KEY-----"
	echo "curl -H 'Authorization: Bearer ${r36}' https://api.example.com"
	echo "Authorization: Basic $(printf 'user:not-a-real-pass' | base64)"
	echo "db: postgres://admin:Fake-Pass-123@db.example.com:5432/x"
	echo '{"client_secret": "'"$r36"'"}'
} >fake.txt
"$S" fake.txt >fake.out
for rule in openai-api-key anthropic-api-key google-api-key huggingface-token aws-access-key-id \
	secret-assignment github-token gitlab-token private-key bearer-token basic-auth url-password; do
	if grep -q " $rule " fake.out; then ok "rule $rule fires"; else notok "rule $rule fires" "$(cat fake.out)"; fi
done
n=$(grep -c '' fake.out)
if [ "$n" = 15 ]; then ok "one hit per fake line (15)"; else notok "one hit per fake line" "$n hits: $(cat fake.out)"; fi
if grep -q "$r36" fake.out; then notok "fake keys are masked" "printed whole"; else ok "fake keys are masked"; fi
grep -q '^fake.txt:1: openai-api-key sk-p… (48 chars)$' fake.out && ok "mask is 4 chars, ellipsis, length" ||
	notok "mask format" "$(head -1 fake.out)"

# No false alarm: digests, UUIDs, base64 of text, prose, placeholders, and
# the project's own documents, schemas, examples and test vectors.
"$S" "$D/negative/not-secrets.txt" >neg.out
if [ -s neg.out ]; then notok "no false alarm on digests, UUIDs, base64 text, prose" "$(cat neg.out)"; else ok "no false alarm on digests, UUIDs, base64 text, prose"; fi
(cd "$ROOT" && find examples schemas docs golden tests/data/jcs tests/data/json-parsing \
	tests/data/bagit-conformance -type f ! -path 'golden/bundle-secret-fixtures/*' ! -path 'golden/bundle-refusal/*' -print0 2>/dev/null |
	xargs -0 "$S") >own.out 2>&1
nown=$(cd "$ROOT" && find examples schemas docs golden tests/data/jcs tests/data/json-parsing \
	tests/data/bagit-conformance -type f 2>/dev/null | grep -c .)
if [ -s own.out ]; then notok "no false alarm on the project's own files" "$(head -5 own.out)"; else ok "no false alarm on the project's own files ($nown files)"; fi
