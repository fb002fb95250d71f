# ci.test.sh: the CI jobs of docs/ci-gate.md, run as written: the GitHub
# job's gate step and the GitLab job's script, taken from the page, in a
# scratch evidence repository where tools/cohort/build/release/cohort is the
# cohort under test.  A clean repository passes; one with a ledger changed
# after its freeze fails with the page's annotation.  The CI formats are
# checked too: GitHub's escapes, SARIF 2.1.0's required fields, GitLab's
# code quality fields, and --check -o's report beside the table.
PY=/usr/bin/python3
DOC=$ROOT/docs/ci-gate.md
# the lines of the run: block of the step named "the publication gate"
awk '/^      - name: the publication gate$/ { on = 1; next }
	on && /^        run: \|$/ { run = 1; next }
	on && run && /^          / { sub(/^          /, ""); print; next }
	on && run { exit }' "$DOC" >github.sh
# the script: items of the GitLab job
awk '/^evidence-gate:$/ { job = 1 } job && /^  script:$/ { on = 1; next }
	on && /^    - / { sub(/^    - /, ""); print; next } on { exit }' "$DOC" >gitlab.sh
[ -s github.sh ] && grep -q 'cohort bundle' github.sh && ok "ci: the GitHub gate step read from the page" ||
	notok "ci: the GitHub gate step" "$(cat github.sh)"
[ -s gitlab.sh ] && grep -q 'cohort bundle' gitlab.sh && ok "ci: the GitLab script read from the page" ||
	notok "ci: the GitLab script" "$(cat gitlab.sh)"

# evidence repository DIR: the Luna evidence in luna/, cohort in tools/cohort/
evidence() {
	mkdir -p "$1/tools/cohort/build/release"
	ln -sf "$COHORT" "$1/tools/cohort/build/release/cohort"
	(cd "$1" && git init -q . && luna_evidence luna)
}
run_step() { # DIR SCRIPT: the step as the runner would, sh -e
	(cd "$1" && sh -e "$TMP/$2" >"$TMP/step.out" 2>"$TMP/step.err")
}
evidence clean
if run_step clean github.sh; then ok "ci github: a clean evidence repository passes"; else
	notok "ci github: a clean repository passes" "$(head -c 300 step.err)"; fi
[ -s step.out ] && notok "ci github: ... with no annotation" "$(head -c 200 step.out)" || ok "ci github: ... with no annotation"
if run_step clean gitlab.sh && [ "$(cat clean/gl-code-quality.json)" = "[]" ]; then
	ok "ci gitlab: a clean repository passes, an empty code quality report"
else notok "ci gitlab: a clean repository passes" "$(head -c 300 step.err; cat clean/gl-code-quality.json)"; fi

# a ledger changed after its freeze: the first loss made a win
evidence stale
$PY - stale/luna/ledger.jsonl <<'PYEOF'
import sys
p = sys.argv[1]
lines = open(p).read().split("\n")
i = next(i for i, l in enumerate(lines) if '"result":"loss"' in l)
lines[i] = lines[i].replace('"result":"loss"', '"result":"win"')
open(p, "w").write("\n".join(lines))
PYEOF
if run_step stale github.sh; then notok "ci github: a stale ledger fails the step" "it passed"; else
	ok "ci github: a stale ledger fails the step"; fi
want=$(grep '^::error ' "$DOC" | head -1 | sed 's/sha256:….*//')
got=$(head -1 step.out)
case "$got" in
"$want"*) ok "ci github: ... with the page's annotation: $(echo "$got" | cut -c1-90)" ;;
*) notok "ci github: ... with the page's annotation" "got $got; want $want..." ;;
esac
grep -q '"check":"stale"' stale/refusal.json && grep -q '"path":"freeze.json"' stale/refusal.json &&
	ok "ci github: ... and refusal.json names the stale freeze" || notok "ci github: refusal.json" "$(head -c 300 stale/refusal.json)"
if run_step stale gitlab.sh; then notok "ci gitlab: a stale ledger fails the job" "it passed"; else
	ok "ci gitlab: a stale ledger fails the job"; fi
$PY - stale/gl-code-quality.json <<'PYEOF' >gl.txt 2>&1
import json, sys
r = json.load(open(sys.argv[1]))
assert isinstance(r, list) and len(r) == 1, r
f = r[0]
for k in ("description", "check_name", "fingerprint", "severity", "location"):
    assert k in f, k
assert f["check_name"] == "stale" and f["severity"] in ("info", "minor", "major", "critical", "blocker")
assert f["location"]["path"] == "luna/freeze.json" and f["location"]["lines"]["begin"] == 1
assert len(f["fingerprint"]) == 64
PYEOF
[ -s gl.txt ] && notok "ci gitlab: the code quality report" "$(tail -3 gl.txt)" ||
	ok "ci gitlab: the code quality report names the freeze, line 1, a fingerprint"

# the formats on the refusal with every kind of finding
G=golden/bundle-refusal/spec.json
(cd "$ROOT" && "$COHORT" bundle --spec $G --check --format github) >gh.txt 2>/dev/null
[ "$(grep -c '^::error ' gh.txt)" = 6 ] && ok "ci: github: one annotation a finding" || notok "ci: github annotations" "$(cat gh.txt)"
grep -q '^::error file=golden/bundle-refusal/prompt.txt,line=2,title=cohort secret::' gh.txt &&
	ok "ci: github: a secret on its file and line" || notok "ci: github secret" "$(cat gh.txt)"
grep -q '^::error title=cohort missing::' gh.txt && ok "ci: github: a finding with no file has no file=" ||
	notok "ci: github: no file" "$(cat gh.txt)"
printf '{"kind":"cohort.refusal/1","findings":[{"check":"stale","path":"a,b:c%%.txt","line":3,"detail":"50%% off\\nnext"}]}' >esc.json
"$BUILD/tests/unit/annotate_check" github esc.json >esc.txt 2>&1
[ "$(cat esc.txt)" = '::error file=a%2Cb%3Ac%25.txt,line=3,title=cohort stale::50%25 off%0Anext' ] &&
	ok "ci: github: GitHub's escapes in the file and the message" || notok "ci: github escapes" "$(cat esc.txt)"
(cd "$ROOT" && "$COHORT" bundle --spec $G --check --format sarif) >s.sarif 2>/dev/null
$PY - s.sarif <<'PYEOF' >sarif.txt 2>&1
import json, sys
s = json.load(open(sys.argv[1]))
assert s["version"] == "2.1.0" and len(s["runs"]) == 1
run = s["runs"][0]
d = run["tool"]["driver"]
assert d["name"] == "cohort" and d["version"]
ids = [r["id"] for r in d["rules"]]
assert ids == ["missing", "stale", "live", "secret", "invalid"]
res = run["results"]
assert len(res) == 6
for r in res:
    assert r["ruleId"] in ids and r["level"] == "error" and r["message"]["text"]
    for l in r.get("locations", []):
        pl = l["physicalLocation"]
        assert pl["artifactLocation"]["uri"].startswith("golden/bundle-refusal/")
        assert pl["region"]["startLine"] >= 1
sec = [r for r in res if r["ruleId"] == "secret"][0]
assert sec["locations"][0]["physicalLocation"]["region"]["startLine"] == 2
stale = [r for r in res if r["ruleId"] == "stale"]
assert len(stale) == 1
PYEOF
[ -s sarif.txt ] && notok "ci: sarif 2.1.0" "$(tail -3 sarif.txt)" ||
	ok "ci: sarif 2.1.0: the driver, a rule per check, a result per finding with its place"
(cd "$ROOT" && "$COHORT" bundle --spec $G --check -o "$TMP/rep.json") >so.txt 2>se.txt
(cd "$ROOT" && "$COHORT" bundle --spec $G --check) >plain.json 2>/dev/null
same_bytes "ci: --check -o writes the JSON report" plain.json rep.json
grep -q '^check  *role  *where  *finding' se.txt && [ ! -s so.txt ] &&
	ok "ci: ... while the table goes to standard error" || notok "ci: ... the table" "$(head -3 se.txt)"
expect_fail2 "ci: an unknown format" "--format: expected json, table, github, sarif or gitlab" \
	"$COHORT" bundle --spec "$ROOT/$G" --check --format junit
