# man.test.sh: each man page's SYNOPSIS equals its command's --help usage,
# and every EXAMPLES line runs (exit 0 or 1) in a copy of the examples.
section() { # FILE NAME: the .nf/.fi lines of section NAME, roff escapes undone
	awk -v s="$2" '/^\.SH /{in_s = ($2 == s)} in_s && /^\.nf/{on=1; next} /^\.fi/{on=0} in_s && on' "$1" |
		sed -e 's/\\-/-/g' -e 's/\\e/\\/g'
}
cp -r "$ROOT/examples" ex
(cd ex && "$COHORT" freeze --spec luna/spec.json --store luna/store -o luna/freeze.json luna/ledger.jsonl &&
	"$COHORT" freeze --spec deepseek/spec.json --store deepseek/store -o deepseek/freeze.json deepseek/ledger.jsonl &&
	{ "$COHORT" fit -o luna/fit.json luna/freeze.json; "$COHORT" bound -o luna/bound.json luna/freeze.json; true; }) \
	>/dev/null 2>&1
mkdir -p bin
ln -sf "$COHORT" bin/cohort
for page in "$ROOT"/docs/cohort-*.1; do
	cmd=$(basename "$page" .1 | sed 's/^cohort-//')
	section "$page" SYNOPSIS >syn.man
	"$COHORT" "$cmd" --help 2>&1 | awk '/^$/{exit} {print}' | sed -e 's/^usage: //' -e 's/^ *//' >syn.help
	same_bytes "$cmd: man SYNOPSIS equals --help" syn.man syn.help
	section "$page" EXAMPLES | grep '^\$ ' | sed 's/^\$ //' >examples.sh
	[ -s examples.sh ] || notok "$cmd: man page has EXAMPLES" "none"
	while IFS= read -r line; do
		(cd ex && PATH="$TMP/bin:$PATH" sh -c "$line" >/dev/null 2>"$TMP/ex.err")
		rc=$?
		if [ $rc -le 1 ]; then ok "$cmd example: $line"; else notok "$cmd example: $line" "exit $rc: $(head -c 200 "$TMP/ex.err")"; fi
	done <examples.sh
done
