# bundle.test.sh: `cohort bundle`: the archive (deterministic, a valid bag,
# verified by an independent sha256sum), every finding kind, bad input, and
# archives that are truncated or tampered with.
PY=/usr/bin/python3
V=$BUILD/tests/unit/bundle_verify
B=$BUILD/tests/unit/bundle_bag

luna_evidence luna
want_commit=$(sed -n 's/.*"commit": "\([0-9a-f]*\)".*/\1/p' luna/bundle.json | head -1)
[ "$(git -C luna/harness rev-parse HEAD 2>/dev/null)" = "$want_commit" ] &&
	ok "harness commit with fixed dates is the spec's $want_commit" ||
	notok "harness commit" "$(git -C luna/harness rev-parse HEAD 2>&1)"

# --- the archive -----------------------------------------------------------
"$COHORT" bundle --spec luna/bundle.json -o a.tar >id.txt 2>err.txt
rc=$?
[ $rc = 0 ] && ok "luna bundles (exit 0)" || notok "luna bundles" "exit $rc: $(cat err.txt) $(cat id.txt)"
printf 'sha256:%s\n' "$(sha256sum <a.tar | cut -c1-64)" >want-id.txt
same_bytes "printed identity is sha256sum of the archive" id.txt want-id.txt
"$COHORT" bundle --spec luna/bundle.json -o b.tar >/dev/null 2>&1
same_bytes "two runs give the same archive bytes" a.tar b.tar
(cd luna && "$COHORT" bundle --spec ./bundle.json -o ../c.tar >/dev/null 2>&1)
same_bytes "same bytes from another working folder" a.tar c.tar
"$COHORT" bundle --spec luna/bundle.json >d.tar 2>d.err
same_bytes "without -o the archive goes to stdout" a.tar d.tar
grep -qx "cohort bundle: $(cat id.txt)" d.err && ok "without -o the identity goes to stderr" || notok "identity on stderr" "$(cat d.err)"
# which cohort made the bag: its version and the source commit it was
# built from (mk/commit.sh), in bag-info.txt and the RO-Crate metadata;
# the golden cases' build says "test" there and nothing else differs (the
# payload's size aside: the RO-Crate metadata holds the commit)
built=$(sed -n 's/^const char cohort_commit\[\] = "\(.*\)";$/\1/p' "$BUILD/cmd/commit.c")
ver=$("$COHORT" --version | awk '{ print $NF }')
tar -xOf a.tar luna-publication/bag-info.txt >agent.txt
if printf '%s\n' "$built" | grep -Eqx '[0-9a-f]{40}(-dirty)?|unknown' &&
	[ "$(head -1 agent.txt)" = "Bag-Software-Agent: cohort $ver ($built)" ]; then
	ok "bag-info.txt names cohort's version and the commit it was built from ($built)"
else
	notok "Bag-Software-Agent" "built from '$built': $(head -1 agent.txt)"
fi
tar -xOf a.tar luna-publication/data/ro-crate-metadata.json | $PY -c '
import json, sys
g = {e["@id"]: e for e in json.load(sys.stdin)["@graph"]}
c = sys.argv[1]
sys.exit(0 if g["#cohort"].get("identifier") == (None if c == "unknown" else c) else 1)' "$built" &&
	ok "the RO-Crate metadata names the same commit" || notok "RO-Crate commit" "$built"
"$BUILD/tests/cohort-golden" bundle --spec luna/bundle.json -o g.tar >/dev/null 2>&1
tar -xOf g.tar luna-publication/bag-info.txt >gagent.txt
tar -xOf a.tar luna-publication/data/ro-crate-metadata.json >crate.a
if [ "$built" = unknown ]; then sub='s/"identifier":"test",//'; else sub="s/\"test\"/\"$built\"/"; fi
tar -xOf g.tar luna-publication/data/ro-crate-metadata.json | sed "$sub" >crate.g
[ "$(head -1 gagent.txt)" = "Bag-Software-Agent: cohort $ver (test)" ] &&
	[ "$(grep -v '^Bag-Software-Agent:\|^Payload-Oxum:' gagent.txt)" = \
	  "$(grep -v '^Bag-Software-Agent:\|^Payload-Oxum:' agent.txt)" ] && cmp -s crate.a crate.g &&
	ok "the golden cases' build differs only by its commit, \"test\"" ||
	notok "the golden build" "$(diff agent.txt gagent.txt)"
# mk/commit.sh: HEAD in a clean clone, -dirty after an edit, "unknown" in a
# source tarball and in a copy inside another project's repository
if git -C "$ROOT" rev-parse HEAD >/dev/null 2>&1; then
	rm -rf clone tarball host
	git clone -q "$ROOT" clone 2>/dev/null
	head=$(git -C clone rev-parse HEAD)
	[ "$(cd clone && sh mk/commit.sh)" = "$head" ] && ok "commit.sh: HEAD in a clean clone" ||
		notok "commit.sh in a clone" "$(cd clone && sh mk/commit.sh)"
	echo >>clone/README.md
	[ "$(cd clone && sh mk/commit.sh)" = "$head-dirty" ] && ok "commit.sh: -dirty after an edit" ||
		notok "commit.sh dirty" "$(cd clone && sh mk/commit.sh)"
	mkdir tarball && git -C clone archive HEAD | tar -xf - -C tarball
	[ "$(cd tarball && sh mk/commit.sh)" = unknown ] && ok "commit.sh: unknown in a source tarball" ||
		notok "commit.sh tarball" "$(cd tarball && sh mk/commit.sh)"
	mkdir host && git -C host init -q && mkdir host/cohort && git -C clone archive HEAD | tar -xf - -C host/cohort
	[ "$(cd host/cohort && sh mk/commit.sh)" = unknown ] &&
		ok "commit.sh: unknown inside another project's repository" ||
		notok "commit.sh in a host repository" "$(cd host/cohort && sh mk/commit.sh)"
fi
for z in gzip zstd; do
	"$COHORT" bundle --spec luna/bundle.json --$z -o a.$z >/dev/null 2>&1
	sleep 1
	TZ=Asia/Tokyo "$COHORT" bundle --spec luna/bundle.json --$z -o b.$z >/dev/null 2>&1
	same_bytes "--$z: two runs (a second apart, another TZ) give the same bytes" a.$z b.$z
	check "--$z archive verifies" "$V" a.$z
done
[ "$(od -A n -t x1 -j 4 -N 4 a.gzip | tr -d ' ')" = 00000000 ] && ok "gzip header has no time stamp" ||
	notok "gzip header time" "$(od -A n -t x1 -N 10 a.gzip)"
gzip -dc a.gzip | cmp -s - a.tar && ok "gzip archive holds the same tar" || notok "gzip content" "differs"
zstd -dc a.zstd 2>/dev/null | cmp -s - a.tar && ok "zstd archive holds the same tar" || notok "zstd content" "differs"
tar -tvf a.tar >list.txt
bad=$(awk '$2 != "0/0" || $4 != "2026-07-20" || $5 != "00:00" || ($1 != "-rw-r--r--" && $1 != "drwxr-xr-x")' list.txt)
[ -z "$bad" ] && ok "entries 0/0, 0644/0755, dated as_of" || notok "entry metadata" "$bad"
tar -tf a.tar >names.txt
LC_ALL=C sort -c names.txt 2>/dev/null && ok "entries sorted by name" || notok "entries sorted" "$(head names.txt)"
for n in bagit.txt bag-info.txt manifest-sha256.txt tagmanifest-sha256.txt data/bundle.json \
	data/freeze.json data/fit.json data/prompts/system.txt data/store/cohort-store; do
	grep -qx "luna-publication/$n" names.txt || notok "archive holds $n" "missing"
done
ok "archive holds the bag's tag files, bundle.json and every item"
mkdir -p x && tar -xf a.tar -C x
(cd x/luna-publication && sha256sum -c --quiet manifest-sha256.txt && sha256sum -c --quiet tagmanifest-sha256.txt) >sc.txt 2>&1 &&
	ok "every manifest line holds by sha256sum (independent)" || notok "sha256sum -c" "$(cat sc.txt)"
n_payload=$(cd x/luna-publication && find data -type f | grep -c .)
[ "$(grep -c '' x/luna-publication/manifest-sha256.txt)" = "$n_payload" ] &&
	ok "manifest lists all $n_payload payload files" || notok "manifest completeness" "$n_payload files"
bytes=$(cd x/luna-publication && find data -type f -exec cat {} + | wc -c)
grep -qx "Payload-Oxum: $bytes.$n_payload" x/luna-publication/bag-info.txt && ok "Payload-Oxum $bytes.$n_payload" ||
	notok "Payload-Oxum" "$(cat x/luna-publication/bag-info.txt)"
printf 'BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n' >want-bagit.txt
same_bytes "bagit.txt" x/luna-publication/bagit.txt want-bagit.txt
check "bundle.json validates against schemas/bundle.schema.json" $PY "$ROOT/tests/validate.py" \
	"$ROOT/schemas/bundle.schema.json" x/luna-publication/data/bundle.json
"$COHORT" canon x/luna-publication/data/bundle.json >canon.json
same_bytes "bundle.json is canonical" canon.json x/luna-publication/data/bundle.json
for f in freeze.json fit.json ledger.jsonl prompts/system.txt; do
	id=$(sha256sum <"luna/$f" | cut -c1-64)
	grep -q "\"id\":\"sha256:$id\",[^}]*\"path\":\"$f\"" x/luna-publication/data/bundle.json ||
		notok "bundle.json names $f by its sha256" "$id"
done
ok "bundle.json names each item by the sha256 of its bytes"
check "archive verifies" "$V" a.tar
check "extracted bag folder verifies" "$V" x/luna-publication
check "extracted bag is valid BagIt" "$B" x/luna-publication
"$COHORT" bundle --spec luna/bundle.json --check >check.json 2>/dev/null
rc=$?
[ $rc = 0 ] && ok "--check holds (exit 0)" || notok "--check" "exit $rc"
same_bytes "--check prints the bundle.json the archive holds" check.json x/luna-publication/data/bundle.json
ls *.cohort-tmp.* >/dev/null 2>&1 && notok "no temporary files" "$(ls)" || ok "no temporary files"

# --- findings: each kind, exit 1, no archive ------------------------------
refused() { # NAME SPEC CHECK PATTERN: exit 1, a finding CHECK matching PATTERN, no archive
	rm -f r.tar
	"$COHORT" bundle --spec "$2" -o r.tar >ref.json 2>ref.err
	rc=$?
	if [ $rc != 1 ]; then notok "$1" "exit $rc: $(cat ref.err)"
	elif [ -e r.tar ]; then notok "$1" "archive written on refusal"
	elif ! $PY -c 'import json,sys,re
d=json.load(open("ref.json"))
sys.exit(0 if any(f["check"]==sys.argv[1] and re.search(sys.argv[2], json.dumps(f, ensure_ascii=False)) for f in d["findings"]) else 1)' "$3" "$4"; then
		notok "$1" "no $3 finding /$4/: $(cat ref.json)"
	elif ! $PY "$ROOT/tests/validate.py" "$ROOT/schemas/refusal.schema.json" ref.json >val.txt; then
		notok "$1" "refusal does not validate: $(cat val.txt)"
	else ok "$1"; fi
}
spec() { # DIR JSON-ITEMS [REQUIRE]: write DIR/s.json
	printf '{"kind":"cohort.bundle-spec/1","name":"t","as_of":"2026-07-20T00:00:00Z","require":[%s],"items":[%s]}' \
		"${3:-}" "$2" >"$1/s.json"
}
FZ='{"role":"freeze","path":"freeze.json","store":"store","derived_from":["spec","ledger"]}'
LS='{"role":"spec","path":"spec.json"},{"role":"ledger","path":"ledger.jsonl"}'
FIT='{"role":"fit","path":"fit.json","derived_from":["freeze"]}'

spec luna "$LS,$FZ,$FIT" '"freeze","fit","prompt"'
refused "missing: a required role without an item" luna/s.json missing 'requires role \\"prompt\\"'
spec luna "$LS,$FZ,$FIT,{\"role\":\"prompt\",\"path\":\"prompts/nope.txt\"}"
refused "missing: a path that does not exist" luna/s.json missing 'prompts/nope.txt does not exist'
spec luna "$LS,{\"role\":\"fit\",\"path\":\"fit.json\"}"
refused "missing: a document naming an input the bundle lacks" luna/s.json missing 'names input sha256:[0-9a-f]{64}, which is not in the bundle'
spec luna "$LS,$FZ,$FIT,{\"role\":\"x\",\"path\":\"fit.json\",\"derived_from\":[\"nobody\"]}"
sed -i 's/{"role":"x","path":"fit.json"/{"role":"x","path":"prompts\/tools.json"/' luna/s.json
refused "missing: derived from a role no item has" luna/s.json missing 'derived from role \\"nobody\\"'

luna_evidence stale
printf '{"conditions":[],"input":"sha256:%064d","kind":"cohort.fit/1"}' 0 >stale/fit.json
refused "stale: a fit recording another freeze" stale/bundle.json stale 'records input sha256:0{64}, but the \\"freeze\\" item now in the bundle is sha256:'
luna_evidence stale2
sed -i '1s/"plies":57/"plies":58/' stale2/ledger.jsonl
refused "stale: a freeze that no longer matches its ledger" stale2/bundle.json stale 'no longer matches its ledgers: .*1 changed, 0 added, 0 gone; first: luna-none-b01-g01'
luna_evidence stale3
printf '\nAlso: be brief.\n' >>stale3/prompts/system.txt
refused "stale: a file that differs from its git commit" stale3/bundle.json stale 'differs from prompts/system.txt at commit eee1cde40d59'
sed -i 's/eee1cde40d593245b052a62bc0566cf8217d1c9d/1111111111111111111111111111111111111111/' stale3/bundle.json
refused "stale: a commit that does not exist" stale3/bundle.json stale 'commit 1{40} does not exist in harness'
luna_evidence stale4
cp stale4/spec.json stale4/spec.tmp && sed 's/"black_penalty": 35/"black_penalty": 36/' stale4/spec.tmp >stale4/spec.json
refused "stale: a freeze whose spec is not the bundled spec" stale4/bundle.json stale 'item now in the bundle is'

# What a document derives from follows from its kind: without derived_from
# the bundle is the one with it (a fit and a bound from the freeze, the
# freeze from the spec and the ledger whose games it lists), a stale
# document is still stale, and a derived_from naming what the kind does
# not derive from is an input error naming the field.
luna_evidence graph
$PY -c 'import json
d = json.load(open("graph/bundle.json"))
for it in d["items"]:
    it.pop("derived_from", None)
json.dump(d, open("graph/implied.json", "w"))'
"$COHORT" bundle --spec graph/bundle.json --check >graph-with.json 2>/dev/null
"$COHORT" bundle --spec graph/implied.json -o graph.tar >/dev/null 2>graph.err
"$COHORT" bundle --spec graph/implied.json --check >graph-implied.json 2>/dev/null
$PY -c 'import json, sys
a, b = (json.load(open(f))["items"] for f in sys.argv[1:])
sys.exit(0 if a == b and [i.get("derived_from") for i in b][2:5] == [["spec", "ledger"], ["freeze"], ["freeze"]] else 1)' \
	graph-with.json graph-implied.json &&
	ok "a spec without derived_from: the graph its kinds imply, recorded as derived_from" ||
	notok "derived_from implied" "$(cat graph.err graph-implied.json | head -c 600)"
"$COHORT" verify graph.tar >/dev/null 2>&1 && ok "... and its archive verifies (the freeze against its ledger)" ||
	notok "the archive of an implied graph verifies" "$("$COHORT" verify --format table graph.tar 2>&1 | grep -v '^ok' | head -5)"
printf '{"conditions":[],"input":"sha256:%064d","kind":"cohort.fit/1"}' 0 >graph/fit.json
refused "implied: a fit recording another freeze is stale" graph/implied.json stale 'records input sha256:0{64}, but the \\"freeze\\" item now in the bundle is sha256:'
luna_evidence graph2
$PY -c 'import json
d = json.load(open("graph2/bundle.json"))
for it in d["items"]:
    it.pop("derived_from", None)
json.dump(d, open("graph2/implied.json", "w"))'
sed -i '1s/"plies":57/"plies":58/' graph2/ledger.jsonl
refused "implied: a freeze that no longer matches its ledger is stale" graph2/implied.json stale 'no longer matches its ledgers: .*1 changed, 0 added, 0 gone'
$PY -c 'import json
d = json.load(open("graph2/bundle.json"))
d["items"][3]["derived_from"] = ["bound"]
json.dump(d, open("graph2/wrong.json", "w"))
d["items"][3]["derived_from"] = ["ledger"]
json.dump(d, open("graph2/wrong2.json", "w"))
d["items"][3]["derived_from"] = ["freeze"]
d["items"][2]["derived_from"] = ["spec", "ledger", "fit"]
json.dump(d, open("graph2/wrong3.json", "w"))'
expect_fail2 "derived_from naming a document the kind does not derive from: exit 2, the field named" \
	'^cohort bundle: graph2/wrong\.json: items\[3\]: "derived_from": role "bound" is a cohort\.bound/1 document, and a cohort\.fit/1 is not derived from one' \
	"$COHORT" bundle --spec graph2/wrong.json --check
expect_fail2 "derived_from naming a plain file for a fit: exit 2" \
	'items\[3\]: "derived_from": role "ledger" is a file that is no cohort document, and a cohort\.fit/1 is not derived from such a file' \
	"$COHORT" bundle --spec graph2/wrong2.json --check
expect_fail2 "a freeze derived from a fit: exit 2" \
	'items\[2\]: "derived_from": role "fit" is a cohort\.fit/1 document, and a cohort\.freeze/1 is not derived from one' \
	"$COHORT" bundle --spec graph2/wrong3.json --check

luna_evidence stale5
$PY -c 'import json,sys
d=json.load(open("stale5/fit.json")); d["estimator"] = d["estimator"] + "-edited"
open("stale5/fit.json","w").write(json.dumps(d))'
refused "stale: a fit that computing again from its freeze does not reproduce" stale5/bundle.json stale 'computing it again from freeze.json does not reproduce it byte for byte", "path": "fit.json"'
luna_evidence stale6
sed -i 's/"level":0.95/"level":0.9/' stale6/bound.json
refused "stale: a bound that computing again from its freeze does not reproduce" stale6/bundle.json stale 'computing it again from freeze.json does not reproduce it byte for byte", "path": "bound.json"'
grep -q '"refit"' x/luna-publication/data/bundle.json && ok "bundle.json lists the refit check as run" || notok "refit listed" "$(cat x/luna-publication/data/bundle.json | head -c 300)"

luna_evidence stale7
for f in stale7/store/pack/*.pack; do printf 'X' | dd of="$f" bs=1 seek=100 conv=notrunc 2>/dev/null; done
refused "stale: a store that does not hold what the freeze names" stale7/bundle.json stale 'the store does not match the freeze: [0-9]+ checks? fail'

mkdir -p ds && cp -r "$ROOT/examples/deepseek/." ds/ &&
	(cd ds && "$COHORT" freeze --spec spec.json --store store -o freeze.json ledger.jsonl) >/dev/null 2>&1
refused "live: the DeepSeek snapshot" ds/bundle.json live 'condition \\"top10\\" is active'
for c in top5 top3 top2; do
	grep -q "condition \\\\\"$c\\\\\" is active" ref.json || notok "live names condition $c" "$(cat ref.json)"
done
grep -q '4 games are still live (first: deepseek-top10-b01-g09)' ref.json && ok "live: names each active condition and the live games" ||
	notok "live games" "$(cat ref.json)"
$PY -c 'import json; c=json.load(open("ref.json"))["counts"]; exit(0 if c == {"missing":0,"stale":0,"live":5,"secret":0,"invalid":0} else 1)' &&
	ok "DeepSeek: only live findings (no false alarm on its ledger, request log, billing, freeze, store)" ||
	notok "DeepSeek counts" "$(cat ref.json)"
printf '{"live":true}' >luna/note.json
spec luna "$LS,$FZ,$FIT,{\"role\":\"note\",\"path\":\"note.json\"}"
refused "live: a document marked live" luna/s.json live 'the document is marked live'
# a document of a kind cohort cannot check: the archive's verifier would
# find it, so the gate refuses it (and a plain JSON file without a kind is
# bundled as a file)
printf '{"kind":"cohort.note/1","text":"x"}' >luna/note.json
spec luna "$LS,$FZ,$FIT,{\"role\":\"note\",\"path\":\"note.json\"}"
refused "invalid: a document of a kind cohort cannot check" luna/s.json invalid \
	'"detail": "a cohort.note/1 document: not a kind cohort can check", "path": "note.json"'
printf '{"text":"x"}' >luna/note.json
"$COHORT" bundle --spec luna/s.json --check >/dev/null 2>&1 && ok "a JSON file without a kind bundles" ||
	notok "a JSON file without a kind bundles" "$("$COHORT" bundle --spec luna/s.json --check 2>&1 | head -c 400)"

luna_evidence leak
k=sk-proj-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2FAKE
printf 'Use key %s for the tools.\n' "$k" >>leak/prompts/system.txt
refused "secret: a planted key in a prompt file" leak/bundle.json secret '"line": 15, "path": "prompts/system.txt", "role": "prompt", "rule": "openai-api-key", "value": "sk-p… \(48 chars\)"'
grep -q "$k" ref.json ref.err && notok "the key is never printed whole" "found" || ok "the key is never printed whole"
grep -q '"action": *"revoke' ref.json || $PY -c 'import json; d=json.load(open("ref.json")); exit(0 if all(f["action"] for f in d["findings"]) else 1)' &&
	ok "every finding says what to do" || notok "actions" "$(cat ref.json)"

# a large file is scanned in two halves: lines still count from the top
mkdir -p big
awk 'BEGIN { for (i = 1; i <= 120000; i++) printf "{\"game_id\":\"g%06d\",\"plies\":%d,\"note\":\"a quiet line of ledger text\"}\n", i, i % 200 }' >big/log.jsonl
awk 'NR == 100000 { print "{\"auth_token\":\"Zq8Xw7Vu6Ts5Rq4Po3Nm2Lk1\"}" } { print }' big/log.jsonl >big/log2.jsonl
mv big/log2.jsonl big/log.jsonl
awk 'NR == 3 { print "ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2" } { print }' big/log.jsonl >big/log2.jsonl
mv big/log2.jsonl big/log.jsonl
spec big '{"role":"log","path":"log.jsonl"}'
refused "secret: lines are right in both halves of a large file (line 100001)" big/s.json secret '"line": 100001, "path": "log.jsonl", "role": "log", "rule": "generic-credential"'
grep -q '"line":3,"path":"log.jsonl","role":"log","rule":"github-pat"' ref.json && ok "secret: first half line 3" || notok "first half line" "$(cat ref.json)"

# decoded evidence: a key inside a gzip'd ledger is found, and where it was
mkdir -p gz && cp "$ROOT/tests/data/secrets/cohort/ledger.jsonl.gz" gz/
spec gz '{"role":"log","path":"ledger.jsonl.gz"}'
refused "secret: a key inside a gzip'd ledger, found in the gzip stream" gz/s.json secret 'github-pat: a credential \(ghp_… \(40 chars\)\) is in this file \(in the gzip stream\)", "line": 2'
printf 'not gzip after all' >gz/broken.gz && printf '\037\213\010\000\000\000' | cat - gz/broken.gz >gz/b.gz
spec gz '{"role":"log","path":"b.gz"}'
rm -f out.tar
expect_fail2 "a corrupt gzip stream is an input error naming the file" '^cohort bundle: b\.gz: (gzip stream|cannot decompress)' "$COHORT" bundle --spec gz/s.json -o out.tar

# The cap: at most 20 findings a rule and file, the last saying how many
# more; counts.secret stays exact, and the refusal stays small.
mkdir -p cap
nkeys=30000
awk -v n=$nkeys 'BEGIN { a = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for (i = 0; i < n; i++) {
		k = sprintf("%s%s%s%s", substr(a, i % 26 + 1, 1), substr(a, int(i / 26) % 26 + 1, 1),
			substr(a, int(i / 676) % 26 + 1, 1), substr(a, int(i / 17576) % 26 + 1, 1))
		printf "{\"game_id\":\"g%06d\",\"harness\":\"AKIAQ3FAKE7%sW2XLP\"}\n", i, k
	}
	print "{\"note\":\"password = hunter2hunter2\"}" }' >cap/log.jsonl
spec cap '{"role":"log","path":"log.jsonl"}'
refused "secret: past the cap, the last finding says how many more" cap/s.json secret '"detail": "aws-access-token: a credential \(AKIA… \(20 chars\)\) is in this file; and 29,980 more of rule aws-access-token in log.jsonl", "line": 20, "more": 29980'
$PY -c 'import json,sys; d=json.load(open("ref.json")); f=[x for x in d["findings"] if x.get("rule")=="aws-access-token"]
sys.exit(0 if d["counts"]["secret"]==30001 and len(f)==20 and sum(1 for x in d["findings"] if x.get("rule")=="password-assignment")==1 else 1)' &&
	ok "secret: 20 findings of the rule listed, counts.secret exact (30,001), other rules listed too" ||
	notok "cap counts" "$(head -c 600 ref.json)"
[ "$(wc -c <ref.json)" -lt 20000 ] && ok "secret: the refusal of 30,001 hits is small ($(wc -c <ref.json) bytes)" ||
	notok "refusal size" "$(wc -c <ref.json) bytes"
"$COHORT" bundle --spec cap/s.json --check --format table >cap.txt 2>/dev/null
grep -q 'and 29,980 more of rule aws-access-token in log.jsonl' cap.txt && ok "--format table shows the count past the cap" ||
	notok "table cap" "$(tail -3 cap.txt)"

# A ledger of 100,000 games (20,000 under the sanitizers) whose key and
# token fields hold digests, identities and base64 cursors: no finding, and
# the scan's memory stays small.
games=100000
[ -n "${COHORT_SANITIZED:-}" ] && games=20000
mkdir -p digests
cc -O2 -o genledger "$ROOT/bench/genledger.c" 2>/dev/null && ./genledger $games digests/spec.json 2>/dev/null |
awk 'function h(k,   s, i) { s = ""; for (i = 1; i <= 8; i++) s = s sprintf("%08x", (NR * 2654435761 + i * k * 40503) % 4294967296); return s }
	BEGIN { b = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"; for (c = 32; c < 127; c++) ord[sprintf("%c", c)] = c }
	function b64(s,   o, i, n, v) { o = ""; n = length(s)
		for (i = 1; i <= n; i += 3) {
			v = ord[substr(s, i, 1)] * 65536 + (i + 1 <= n ? ord[substr(s, i + 1, 1)] * 256 : 0) + (i + 2 <= n ? ord[substr(s, i + 2, 1)] : 0)
			o = o substr(b, int(v / 262144) % 64 + 1, 1) substr(b, int(v / 4096) % 64 + 1, 1)
			o = o (i + 1 <= n ? substr(b, int(v / 64) % 64 + 1, 1) : "=") (i + 2 <= n ? substr(b, v % 64 + 1, 1) : "=") }
		return o }
	{ sub(/}$/, sprintf(",\"cache_key\":\"%s\",\"prompt_cache_key\":\"sha256:%s\",\"commit_key\":\"%s\",\"page_token\":\"%s\",\"request_key\":\"%s-%s-%s-%s-%s\"}",
		h(1), h(2), substr(h(3), 1, 40), b64("{\"offset\": " NR * 50 ", \"limit\": 50}"),
		substr(h(4), 1, 8), substr(h(4), 9, 4), substr(h(4), 13, 4), substr(h(4), 17, 4), substr(h(4), 21, 12))); print }' >digests/ledger.jsonl
spec digests '{"role":"ledger","path":"ledger.jsonl"}'
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f '%M' -o digests/rss "$COHORT" bundle --spec digests/s.json --check >digests/out.json 2>digests/err
	rc=$?
else
	"$COHORT" bundle --spec digests/s.json --check >digests/out.json 2>digests/err
	rc=$?
fi
[ $rc = 0 ] && [ "$(grep -c . digests/ledger.jsonl)" = $games ] &&
	ok "a $games-game ledger with digest-valued cache_key, page_token, ... fields: no finding" ||
	notok "digest ledger" "exit $rc: $(head -c 400 digests/out.json) $(cat digests/err)"
if [ -s digests/rss ] && [ -z "${COHORT_SANITIZED:-}" ]; then
	led=$(($(wc -c <digests/ledger.jsonl) / 1024))
	rss=$(tail -1 digests/rss)
	[ "$rss" -lt $((led + 200000)) ] && ok "its peak memory is the mapped file and a little (${rss} KB for ${led} KB)" ||
		notok "digest ledger memory" "${rss} KB for a ${led} KB file"
fi

# everything at once: every finding is reported, not only the first
luna_evidence all
printf '{"conditions":[],"input":"sha256:%064d","kind":"cohort.fit/1"}' 0 >all/fit.json
printf 'password = hunter2hunter2\n' >>all/prompts/tools.json 2>/dev/null
printf 'token: ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2\n' >all/notes.txt
printf '{"live":true}' >all/note.json
cp all/bundle.json all/b.tmp
sed 's/"require": \[/"require": ["paper", /; s/"items": \[/"items": [{"role": "notes", "path": "notes.txt"}, {"role": "note", "path": "note.json"},/' all/b.tmp >all/bundle.json
rm all/b.tmp
"$COHORT" bundle --spec all/bundle.json --check >all.json 2>/dev/null
counts=$($PY -c 'import json; c=json.load(open("all.json"))["counts"]; print(" ".join("%s=%d" % (k, c[k]) for k in ("missing","stale","live","secret","invalid")))')
[ "$counts" = "missing=1 stale=2 live=1 secret=2 invalid=1" ] && ok "all findings at once: $counts" || notok "all findings at once" "$counts: $(cat all.json)"
"$COHORT" bundle --spec all/bundle.json --check --format table >all.txt 2>/dev/null
[ "$(grep -c '' all.txt)" = 15 ] && head -1 all.txt | grep -q '^check *role *where *finding' &&
	[ "$(grep -c '^ *to do: ' all.txt)" = 7 ] && [ "$(sed -n '3p;5p;7p;9p;11p;13p;15p' all.txt | grep -c '^ *to do: ')" = 7 ] &&
	ok "--format table: a header, one line a finding and its action under it" || notok "--format table" "$(cat all.txt)"

mkdir -p norequire && cp luna/spec.json norequire/
printf '{"kind":"cohort.bundle-spec/1","name":"n","as_of":"2026-07-20T00:00:00+02:00","items":[{"role":"spec","path":"spec.json"}]}' >norequire/s.json
"$COHORT" bundle --spec norequire/s.json -o n.tar >/dev/null 2>n.err && tar -tvf n.tar | grep -q ' 2026-07-19 22:00 n/bagit.txt' &&
	ok "a spec without require bundles; as_of with an offset dates entries in UTC" || notok "no require" "$(cat n.err; tar -tvf n.tar | head -3)"

# --- bad input: exit 2, a clear message, nothing written ------------------
bad() { # NAME PATTERN SPEC
	rm -f out.tar
	expect_fail2 "$1" "$2" "$COHORT" bundle --spec "$3" -o out.tar
	if [ -e out.tar ] || ls out.tar.cohort-tmp.* >/dev/null 2>&1; then notok "$1: nothing written" "$(ls)"; fi
}
mkdir -p b/sub && cp luna/freeze.json luna/spec.json b/ && cp -r luna/store b/store
spec b '{"role":"a","path":"spec.json"},{"role":"b","path":"spec.json"}'
bad "a file named twice" 'items\[1\]: "path": spec.json is named twice \(also by items\[0\]\)' b/s.json
spec b '{"role":"a","path":"spec.json"},{"role":"a","path":"freeze.json"}'
bad "a role named twice" 'items\[1\]: "role": role "a" is named twice' b/s.json
spec b '{"role":"a","path":"../luna/spec.json"}'
bad "a path escaping the spec folder" "items\\[0\\]: \"path\": \"../luna/spec.json\" escapes the spec's folder" b/s.json
spec b '{"role":"a","path":"/etc/hostname"}'
bad "an absolute path" 'escapes the spec.s folder \(absolute path\)' b/s.json
ln -s spec.json b/link.json
spec b '{"role":"a","path":"link.json"}'
bad "a symbolic link" 'items\[0\]: "path": link.json is a symbolic link' b/s.json
ln -s ../luna/prompts b/lp
spec b '{"role":"a","path":"lp/system.txt"}'
bad "a symbolic link on the way" 'lp is a symbolic link' b/s.json
ln -s ../spec.json b/store/evil
spec b '{"role":"f","path":"freeze.json","store":"store"}'
bad "a symbolic link in a store" '"store": store/evil is a symbolic link' b/s.json
rm b/store/evil
spec b '{"role":"a","path":"sub"}'
bad "a folder as a file" 'sub is not a regular file' b/s.json
if [ "$(id -u)" != 0 ]; then
	cp b/spec.json b/locked.json && chmod 000 b/locked.json
	spec b '{"role":"a","path":"locked.json"}'
	bad "an unreadable file" 'locked.json: cannot read' b/s.json
	chmod 644 b/locked.json
else
	ok "an unreadable file (skipped: running as root reads everything)"
fi
spec b '{"role":"a","path":"bundle.json"}'
bad "a file named bundle.json" 'bundle.json is the bundle.s own document' b/s.json
printf '{"kind":"cohort.bundle-spec/1","name":"t","as_of":"2026-07-20T00:00:00Z","items":[{"role":"a","path":"caf\303\251.txt"}]}' >b/s.json
bad "a non-ASCII path" 'only printable ASCII' b/s.json
spec b '{"role":"p","path":"spec.json","git":{"repo":"h","commit":"abc","path":"x"}}'
bad "a short commit" '"git": "commit": expected 40 lowercase hex digits' b/s.json
printf '{"kind":"cohort.bundle-spec/1","name":"t","as_of":"yesterday","items":[]}' >b/s.json
bad "a bad as_of" '"as_of": expected an RFC 3339 time' b/s.json
printf '{"kind":"cohort.spec/1","name":"t","as_of":"2026-07-20T00:00:00Z","items":[]}' >b/s.json
bad "a wrong kind" '"kind": expected cohort.bundle-spec/1' b/s.json
printf '{"kind":"cohort.bundle-spec/1","name":"../t","as_of":"2026-07-20T00:00:00Z","items":[]}' >b/s.json
bad "a name that is not a folder name" '"name": expected letters' b/s.json
printf '{"kind":"cohort.bundle-spec/1",\n"items": [1,}' >b/s.json
bad "malformed JSON names line and column" 'b/s.json:2:' b/s.json
bad "a missing spec" 'nope.json: cannot open' b/nope.json
cat >b/bad-rules.toml <<'EOF'
[[rules]]
id = "lab-token"
regex = '''(?=x)'''
keywords = ["x"]
EOF
rm -f out.tar
expect_fail2 "--rules: a malformed rules file names FILE:LINE and the field" \
	'^cohort bundle: b/bad-rules\.toml:3: "regex": offset 0: lookahead is not supported' \
	"$COHORT" bundle --spec luna/bundle.json --rules b/bad-rules.toml -o out.tar
[ -e out.tar ] && notok "--rules: nothing written" "out.tar exists"
cat >b/rules.toml <<'EOF'
[[rules]]
id = "lab-token"
regex = '''\blabtok_[a-z0-9]{24}\b'''
keywords = ["labtok_"]
EOF
mkdir -p lab && printf 'internal: labtok_9f2k4m7q1x8c3v6b0n5z2h7j\n' >lab/notes.txt
spec lab '{"role":"notes","path":"notes.txt"}'
"$COHORT" bundle --spec lab/s.json --check >/dev/null 2>&1 && ok "--rules: without it the lab's token passes" ||
	notok "lab without rules" "refused"
rm -f ref.json
"$COHORT" bundle --spec lab/s.json --rules b/rules.toml --check >ref.json 2>/dev/null
[ $? = 1 ] && grep -q '"rule":"lab-token"' ref.json && ok "--rules FILE adds its rule to the built-in ones" ||
	notok "--rules adds" "$(head -c 300 ref.json)"
expect_status "--rules given twice is a usage error" 2 "$COHORT" bundle --spec luna/bundle.json --rules b/rules.toml --rules b/rules.toml --check
cp luna/freeze.json freeze.keep
expect_fail2 "-o naming one of the bundle's files" 'luna/freeze.json: is an input, and inputs are never written over' \
	"$COHORT" bundle --spec luna/bundle.json -o luna/freeze.json
same_bytes "the input it named is untouched" luna/freeze.json freeze.keep
expect_fail2 "-o naming the spec" 'luna/bundle.json: is an input' "$COHORT" bundle --spec luna/bundle.json -o luna/bundle.json
cp a.tar keep.tar
"$COHORT" bundle --spec b/s.json -o keep.tar >/dev/null 2>&1
same_bytes "a failed run leaves the old archive" keep.tar a.tar

# --- usage ----------------------------------------------------------------
"$COHORT" bundle --help >help.txt 2>&1 && grep -q '^usage: cohort bundle --spec BUNDLE_SPEC' help.txt &&
	ok "--help to stdout, exit 0" || notok "--help" "$(cat help.txt)"
expect_fail2 "no --spec" '--spec is required' "$COHORT" bundle -o x.tar
expect_fail2 "unknown option" "unknown option '--bogus'" "$COHORT" bundle --bogus
expect_fail2 "--gzip and --zstd" '--gzip and --zstd cannot go together' "$COHORT" bundle --spec luna/bundle.json --gzip --zstd -o x.tar
# --check -o: the JSON report to the file (no archive), the table to stderr
expect_status "--check with -o writes the report" 0 "$COHORT" bundle --spec luna/bundle.json --check -o report.json
grep -q '"kind":"cohort.bundle/1"' report.json && grep -q '^role ' "$TMP/err" && ok "--check -o: the report, and the table on stderr" ||
	notok "--check -o: the report and the table" "$(head -c 200 report.json)"
expect_fail2 "--zstd with --check" '--zstd and --check cannot go together' "$COHORT" bundle --spec luna/bundle.json --zstd --check
expect_fail2 "an extra argument" "unexpected argument 'extra'" "$COHORT" bundle --spec luna/bundle.json extra

# a payload file over 64 MiB, a JSON file: extracted and hashed in the one
# pass, and read as the others
luna_evidence huge
awk 'BEGIN { printf "{\"note\":\"cohort\",\"text\":\""; s = "quiet words of a long note "; for (i = 0; i < 15; i++) s = s s; for (i = 0; i < 80; i++) printf "%s", s; printf "end\"}" }' >huge/note.json
cp huge/bundle.json huge/b.tmp
sed 's/"items": \[/"items": [{"role": "note", "path": "note.json"},/' huge/b.tmp >huge/bundle.json
"$COHORT" bundle --spec huge/bundle.json -o huge.tar >/dev/null 2>huge.err
[ "$(wc -c <huge/note.json)" -gt 67108864 ] || notok "huge fixture" "too small"
check "an archive with a document over 64 MiB verifies" "$V" huge.tar
off=$(grep -boa 'end"}' huge.tar | head -1 | cut -d: -f1)
printf 'X' | dd of=huge.tar bs=1 seek="$off" conv=notrunc 2>/dev/null
"$V" huge.tar >/dev/null 2>huge.err
[ $? = 1 ] && grep -q 'payload data/note.json: sha256 is' huge.err && ok "a changed byte in the large document is found" ||
	notok "large file tamper" "$(cat huge.err)"
rm -rf huge huge.tar

# --- archives: truncated, tampered ----------------------------------------
size=$(wc -c <a.tar)
fails=
for cut in 0 1 100 511 512 513 1024 5000 20000 $((size / 2)) $((size - 1024)) $((size - 513)) $((size - 512)) $((size - 1)); do
	head -c "$cut" a.tar >t.tar
	"$V" t.tar >/dev/null 2>t.err
	rc=$?
	[ $rc = 2 ] || fails="$fails $cut:$rc"
done
[ -z "$fails" ] && ok "tar truncated at 14 points: exit 2" || notok "truncated tar" "$fails"
grep -q 'trunc\|not a readable archive' t.err && ok "truncation message" || notok "truncation message" "$(cat t.err)"
for z in gzip zstd; do
	size=$(wc -c <a.$z)
	fails=
	for cut in 0 1 10 100 $((size / 3)) $((size / 2)) $((size - 9)) $((size - 4)) $((size - 1)); do
		head -c "$cut" a.$z >t.$z
		"$V" t.$z >/dev/null 2>&1
		rc=$?
		[ $rc = 2 ] || fails="$fails $cut:$rc"
	done
	[ -z "$fails" ] && ok "$z truncated at 9 points: exit 2" || notok "truncated $z" "$fails"
done
# one byte changed inside a payload file: readable but wrong (exit 1)
off=$(grep -boa 'You are playing a game of chess' a.tar | head -1 | cut -d: -f1)
cp a.tar tamper.tar
printf 'y' | dd of=tamper.tar bs=1 seek="$off" conv=notrunc 2>/dev/null
"$V" tamper.tar >/dev/null 2>tamper.err
rc=$?
[ $rc = 1 ] && grep -q 'payload data/prompts/system.txt: sha256 is' tamper.err && ok "a changed byte: exit 1, the file named" ||
	notok "tampered archive" "exit $rc: $(cat tamper.err)"
# a consistent bag whose fit was edited: the refit inside verification finds it
cp -r x/luna-publication refit
$PY -c 'import json
d=json.load(open("refit/data/fit.json")); d["estimator"] = "edited"
open("refit/data/fit.json","w").write(json.dumps(d))'
(cd refit && find data -type f | LC_ALL=C sort | xargs sha256sum >manifest-sha256.txt &&
	sha256sum bag-info.txt bagit.txt manifest-sha256.txt >tagmanifest-sha256.txt)
"$V" refit >/dev/null 2>refit.err
[ $? = 1 ] && grep -q '^identity fit.json' refit.err && ok "an edited fit in a consistent bag: exit 1" ||
	notok "edited fit" "$(cat refit.err)"
# a consistent bag whose bundle.json lies about an item
cp -r x/luna-publication lie
$PY -c 'import json; p = "lie/data/bundle.json"; d = json.load(open(p)); d["items"][3]["id"] = d["items"][0]["id"]; open(p, "w").write(json.dumps(d))'
(cd lie && find data -type f | LC_ALL=C sort | xargs sha256sum >manifest-sha256.txt &&
	sha256sum bag-info.txt bagit.txt manifest-sha256.txt >tagmanifest-sha256.txt)
"$V" lie >/dev/null 2>lie.err
rc=$?
[ $rc = 1 ] && grep -q '^identity fit.json: role "fit": bundle.json says' lie.err && ok "bundle.json identities are checked: exit 1" ||
	notok "lying bundle.json" "exit $rc: $(cat lie.err)"

# --- the reviewer's command -------------------------------------------------
check "cohort verify ARCHIVE holds" "$COHORT" verify a.tar
check "cohort verify on the extracted bag folder holds" "$COHORT" verify x/luna-publication
expect_status "cohort verify: a changed byte is a finding (exit 1)" 1 "$COHORT" verify tamper.tar
head -c 5000 a.tar >cut.tar
expect_fail2 "cohort verify: a truncated archive (exit 2)" 'cut.tar: trunc' "$COHORT" verify cut.tar
"$COHORT" verify a.tar >vr.json 2>/dev/null
check "cohort verify report on an archive validates" $PY "$ROOT/tests/validate.py" "$ROOT/schemas/verify.schema.json" vr.json
