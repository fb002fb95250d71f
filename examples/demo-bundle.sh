# demo-bundle.sh: the publication gate, sourced by demo.sh with $COHORT and
# $DEMO.  The Luna evidence bundles and its archive verifies; the DeepSeek
# snapshot is refused as live; a copy of the Luna evidence with a planted
# (fake) key in its prompt is refused as a secret.

# The harness repository the prompts come from, made with fixed names and
# dates so that its commit is the one luna/bundle.json names.
harness_repo() { # DIR
	rm -rf "$1/harness"
	mkdir -p "$1/harness/prompts"
	cp "$1/prompts/system.txt" "$1/prompts/tools.json" "$1/harness/prompts/"
	(
		cd "$1/harness" &&
			git init -q . && git add prompts &&
			GIT_AUTHOR_NAME="Luna harness" GIT_AUTHOR_EMAIL="harness@example.org" \
			GIT_AUTHOR_DATE="2026-06-20T00:00:00Z" GIT_COMMITTER_NAME="Luna harness" \
			GIT_COMMITTER_EMAIL="harness@example.org" GIT_COMMITTER_DATE="2026-06-20T00:00:00Z" \
			git -c commit.gpgsign=false commit -q -m "Harness prompts and tool schema"
	)
}

banner "bundle luna: the evidence it holds"
# the derived documents, if no earlier stage wrote them
[ -f luna/fit.json ] || "$COHORT" fit -o luna/fit.json luna/freeze.json
[ -f luna/bound.json ] || "$COHORT" bound -o luna/bound.json luna/freeze.json
harness_repo luna
"$COHORT" bundle --spec luna/bundle.json --check --format table || true
id=$("$COHORT" bundle --spec luna/bundle.json -o luna.tar) || true
printf '\narchive luna.tar: %s\n' "${id:-refused}"
again=$("$COHORT" bundle --spec luna/bundle.json -o luna-again.tar 2>/dev/null) || true
cmp -s luna.tar luna-again.tar && echo "a second run gives the same bytes" || echo "a second run differs"
if "$COHORT" verify --format table luna.tar >luna-verify.txt 2>&1; then
	printf 'cohort verify luna.tar: holds (%s)\n' "$(tail -n 1 luna-verify.txt)"
else
	printf 'cohort verify luna.tar: exit %s\n' "$?"
	tail -n 3 luna-verify.txt
fi

banner "bundle deepseek: refused as live"
"$COHORT" bundle --spec deepseek/bundle.json -o deepseek.tar --format table || true
[ -e deepseek.tar ] && echo "deepseek.tar was written" || echo "no archive written"

banner "bundle a copy of luna with a key planted in its prompt: refused as a secret"
rm -rf luna-leak
cp -r luna luna-leak
# an obviously fake key of the right shape, built here
printf 'Use the key sk-proj-%s to call the engine.\n' "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2FAKE" >>luna-leak/prompts/system.txt
"$COHORT" bundle --spec luna-leak/bundle.json -o luna-leak.tar --format table || true
[ -e luna-leak.tar ] && echo "luna-leak.tar was written" || echo "no archive written"
