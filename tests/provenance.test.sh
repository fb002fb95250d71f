# provenance.test.sh: git provenance may point at the evidence repository
# itself: "." or any folder of the spec's work tree ("..", a sub-folder);
# an omitted commit is HEAD's and is recorded; a file changed since its
# commit is stale with git's count of the lines; a folder outside the
# spec's folder and its work tree is refused.
PY=/usr/bin/python3
g() { git -c user.name=t -c user.email=t@example.org -c init.defaultBranch=main "$@"; }
mkdir -p ev/pub/prompts && cd ev && g init -q . && cd ..
printf 'You are a careful chess player.\n' >ev/pub/prompts/system.txt
printf 'notes\n' >ev/pub/notes.txt
(cd ev && g add -A && g commit -qm one)
head=$(cd ev && git rev-parse HEAD)
spec() { # NAME REPO PATH [COMMIT]
	_c=${4:+,\"commit\":\"$4\"}
	printf '{"kind":"cohort.bundle-spec/1","name":"p","as_of":"2026-07-20T00:00:00Z","items":[{"role":"prompt","path":"prompts/system.txt","git":{"repo":"%s","path":"%s"%s}}]}\n' \
		"$2" "$3" "$_c" >"ev/pub/$1.json"
}
recorded() { $PY -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["items"][0]["git"]["commit"])' "$1"; }

spec dot . prompts/system.txt
spec dot2 .. pub/prompts/system.txt
spec sub prompts system.txt
spec given prompts system.txt "$head"
for s in dot dot2 sub given; do
	"$COHORT" bundle --spec ev/pub/$s.json -o $s.tar >/dev/null 2>$s.err
	rc=$?
	[ $rc = 0 ] && ok "git \"repo\" of the spec's own work tree ($s)" || notok "git \"repo\" ($s)" "exit $rc: $(cat $s.err)"
done
# "path" is inside the folder "repo" names: "." is pub/, ".." the top
tar -xOf dot2.tar p/data/bundle.json >dot2.json 2>/dev/null
[ "$(recorded dot2.json)" = "$head" ] && ok "an omitted commit is HEAD's, recorded in the bundle" ||
	notok "an omitted commit is HEAD's, recorded in the bundle" "$(head -c 300 dot2.json)"

# a file changed since its commit: stale, with the lines added and removed
printf 'You are a reckless chess player.\nAlways resign.\n' >ev/pub/prompts/system.txt
"$COHORT" bundle --spec ev/pub/sub.json --check >dirty.json 2>dirty.err
rc=$?
d=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["findings"][0]["detail"])' dirty.json 2>&1)
[ $rc = 1 ] && [ "$d" = "differs from system.txt at commit $(printf %.12s "$head"): 2 lines added, 1 removed" ] &&
	ok "a changed file is stale with the diff's summary" || notok "a changed file is stale with the diff's summary" "exit $rc: $d"

# outside the spec's folder and its work tree: refused
mkdir -p other && (cd other && g init -q . && printf 'x\n' >x.txt && g add x.txt && g commit -qm x)
spec out ../../other x.txt
"$COHORT" bundle --spec ev/pub/out.json --check >out.json 2>out.err
rc=$?
d=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["findings"][0]["detail"])' out.json 2>&1)
[ $rc = 1 ] && [ "$d" = "git repository folder ../../other is outside the spec's folder and its work tree" ] &&
	ok "a repository outside the spec's work tree is refused" || notok "a repository outside the spec's work tree is refused" "exit $rc: $d"
