# cigate.test.sh: docs/ci-gate.md runs as written.  Its shell steps (the
# GitHub job's run steps, the GitLab job's script and after_script, the
# plain shell) are taken from the page and run in a scratch evidence
# repository that is not cohort's own: the Luna evidence in luna/, cohort
# a git submodule in tools/cohort.  The gate passes; with a key planted in
# a prompt it fails and every job keeps refusal.json.
PY=/usr/bin/python3
g() { git -c user.name=t -c user.email=t@example.org -c init.defaultBranch=main -c protocol.file.allow=always "$@"; }
$PY - "$ROOT/docs/ci-gate.md" <<'P'
import re, sys, yaml
doc = open(sys.argv[1]).read()
blocks = re.findall(r"```(\w+)\n(.*?)```", doc, re.S)
ymls = [yaml.safe_load(b) for k, b in blocks if k == "yaml"]
sh = [b for k, b in blocks if k == "sh"]
assert len(ymls) == 2 and len(sh) == 1, (len(ymls), len(sh))
def keep(script):
    # the Debian packages are installed already; no network here
    out, lines = [], script.replace("\\\n", " ").splitlines()
    return "\n".join(l for l in lines if not l.strip().startswith(("sudo apt-get", "apt-get"))) + "\n"
gh = ymls[0]["jobs"]["gate"]["steps"]
open("gh-pass.sh", "w").write("set -e\n" + "".join(keep(s["run"]) for s in gh if "run" in s and "if" not in s))
gl = ymls[1]["evidence-gate"]
open("gl-pass.sh", "w").write("set -e\n" + keep("\n".join(gl["before_script"] + gl["script"])))
open("any.sh", "w").write(sh[0])
P
[ -s gh-pass.sh ] && [ -s gl-pass.sh ] && [ -s any.sh ] && ok "ci-gate.md: three jobs' shell steps" ||
	notok "ci-gate.md: three jobs' shell steps" "$(ls)"

# the evidence repository: Luna's evidence, its harness, cohort as a submodule
mkdir ev && (cd ev && g init -q .)
cp -r "$ROOT/examples/luna" ev/luna
"$COHORT" freeze --spec ev/luna/spec.json --store ev/luna/store -o ev/luna/freeze.json ev/luna/ledger.jsonl &&
	"$COHORT" fit -o ev/luna/fit.json ev/luna/freeze.json && "$COHORT" bound -o ev/luna/bound.json ev/luna/freeze.json ||
	notok "ci-gate: the evidence is made" "freeze, fit or bound failed"
mkdir -p ev/luna/harness/prompts && cp ev/luna/prompts/system.txt ev/luna/prompts/tools.json ev/luna/harness/prompts/
(cd ev/luna/harness && git init -q . && git add prompts &&
	GIT_AUTHOR_NAME="Luna harness" GIT_AUTHOR_EMAIL="harness@example.org" GIT_AUTHOR_DATE="2026-06-20T00:00:00Z" \
	GIT_COMMITTER_NAME="Luna harness" GIT_COMMITTER_EMAIL="harness@example.org" \
	GIT_COMMITTER_DATE="2026-06-20T00:00:00Z" git -c commit.gpgsign=false commit -q -m "Harness prompts and tool schema")
printf 'luna/harness/\n' >ev/.gitignore
(cd ev && g submodule add -q --depth 1 "file://$ROOT" tools/cohort >/dev/null 2>&1 && g add -A && g commit -qm evidence) ||
	notok "ci-gate: cohort as a submodule" "git submodule add failed"
# the program under test stands in for the build make would make: copied,
# newer than its sources, so make finds it up to date.  Two things would
# make it link again, with the release flags (which for the sanitized
# objects fails): a file of the build newer than the program, and a
# source commit the submodule names otherwise than the build it came from
# (cmd/module.mk rewrites cmd/commit.c when it changes; a tree whose files'
# times changed reads as dirty until git refreshes its index).  So the
# sources are dated 2000 and git's index refreshed, make itself writes
# commit.c as it would for this submodule, and then every file of the
# build gets one time stamp.
mkdir -p ev/tools/cohort/build && cp -a "$BUILD" ev/tools/cohort/build/release &&
	find ev/tools/cohort -path ev/tools/cohort/build -prune -o -exec touch -h -d @946684800 {} + &&
	(cd ev/tools/cohort && git update-index -q --refresh >/dev/null 2>&1; \
	 make -s --no-print-directory BUILD=build/release build/release/cmd/commit.c) &&
	find ev/tools/cohort/build -exec touch -h -d "@$(date +%s)" {} +
for job in gh-pass gl-pass any; do
	(cd ev && env -u BUILD -u COHORT -u ROOT sh "$TMP/$job.sh") >$job.out 2>&1
	rc=$?
	[ $rc = 0 ] && ok "ci-gate.md $job: the gate passes in the evidence repository" ||
		notok "ci-gate.md $job: the gate passes" "exit $rc: $(tail -5 $job.out)"
done
# a planted key: every job fails, names the secret, and keeps the refusal
printf 'Use the key sk-proj-%s to call the engine.\n' "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2FAKE" >>ev/luna/prompts/system.txt
for job in gh-pass gl-pass any; do
	rm -f ev/refusal.json ev/gl-code-quality.json
	(cd ev && env -u BUILD -u COHORT -u ROOT sh "$TMP/$job.sh") >$job.out 2>&1
	rc=$?
	[ -f ev/gl-code-quality.json ] && cat ev/gl-code-quality.json >>$job.out
	[ $rc != 0 ] && grep -q 'secret' $job.out && ok "ci-gate.md $job: a planted key fails the job" ||
		notok "ci-gate.md $job: a planted key fails the job" "exit $rc: $(tail -5 $job.out)"
	grep -q '"kind":"cohort.refusal/1"' ev/refusal.json 2>/dev/null && ok "ci-gate.md $job: refusal.json kept" ||
		notok "ci-gate.md $job: refusal.json kept" "$(tail -3 $job.out)"
done
