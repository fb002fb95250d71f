# layers.test.sh: the folders keep their layers (mk/layers.txt): the real
# tree passes, and each planted fault is caught.

check "layers: the tree follows mk/layers.txt" python3 "$ROOT/mk/layers.py" "$ROOT"

plant() { # plant NAME PATTERN: copy the tree, let the caller's edit run, expect PATTERN
	rm -rf "$TMP/tree" && mkdir -p "$TMP/tree"
	(cd "$ROOT" && find . -path ./build -prune -o \( -name '*.[ch]' -o -path ./mk/layers.txt \) -print |
		tar -cf - -T - 2>/dev/null) | tar -xf - -C "$TMP/tree"
}
expect_caught() { # expect_caught NAME PATTERN
	if python3 "$ROOT/mk/layers.py" "$TMP/tree" >"$TMP/layers.out" 2>&1; then
		notok "$1" "the planted fault passed"
	elif grep -Eq -- "$2" "$TMP/layers.out"; then ok "$1"
	else notok "$1" "$(head -c 300 "$TMP/layers.out")"; fi
}

plant
printf '#include "../bundle/bundle.h"\n' >>"$TMP/tree/common/err.c"
expect_caught "layers: an upward include is caught" '^common/err.c:[0-9]+: includes ../bundle/bundle.h: bundle/ is a higher layer'

plant
printf '#include "../reconcile/reconcile.h"\n' >>"$TMP/tree/fit/bound.c"
expect_caught "layers: a sibling's include is caught" '^fit/bound.c:[0-9]+: includes ../reconcile/reconcile.h: reconcile/ is a folder its line does not name'

plant
sed 's/^common:.*/common: fit/' "$TMP/tree/mk/layers.txt" >"$TMP/l" && mv "$TMP/l" "$TMP/tree/mk/layers.txt"
expect_caught "layers: a circle in the table is caught" 'common uses fit, which is not on a line above'

plant
mkdir -p "$TMP/tree/newlayer" && printf 'int x;\n' >"$TMP/tree/newlayer/x.c"
expect_caught "layers: a folder the table does not place is caught" '^newlayer/: C sources in a folder'

plant
printf '#include "../../etc/passwd"\n' >>"$TMP/tree/json/json.c"
expect_caught "layers: an include outside the project is caught" 'outside the project'

# One adapter per foreign library where it has one file: libgit2's header
# in common/repo.c only, OpenSSL's in common/hash.c only.
for pair in 'git2.h:common/repo.c' 'openssl/:common/hash.c'; do
	got=$(cd "$ROOT" && grep -rl --include='*.[ch]' "#include <${pair%%:*}" . | sed 's|^\./||' |
		grep -v '^build/' | sort | tr '\n' ' ')
	if [ "$got" = "${pair#*:} " ]; then ok "adapters: only ${pair#*:} includes <${pair%%:*}>"
	else notok "adapters: only ${pair#*:} includes <${pair%%:*}>" "found in: $got"; fi
done
