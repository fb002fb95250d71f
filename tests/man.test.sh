# man.test.sh: each man page's SYNOPSIS equals its command's --help usage,
# every option --help lists is described in the page, and every EXAMPLES
# line runs (exit 0 or 1) in a copy of the examples.
section() { # FILE NAME: the .nf/.fi lines of section NAME, roff escapes undone
	awk -v s="$2" '/^\.SH /{in_s = ($2 == s)} in_s && /^\.nf/{on=1; next} /^\.fi/{on=0} in_s && on' "$1" |
		sed -e 's/\\-/-/g' -e 's/\\e/\\/g'
}
prose() { # FILE: the DESCRIPTION and OPTIONS sections, roff escapes undone
	awk '/^\.SH /{in_s = ($2 == "DESCRIPTION" || $2 == "OPTIONS"); next} in_s' "$1" |
		sed -e 's/\\-/-/g' -e 's/\\e/\\/g'
}
cp -r "$ROOT/examples" ex
(cd ex && "$COHORT" freeze --spec luna/spec.json --store luna/store -o luna/freeze.json luna/ledger.jsonl &&
	"$COHORT" freeze --spec deepseek/spec.json --store deepseek/store -o deepseek/freeze.json deepseek/ledger.jsonl &&
	{ "$COHORT" fit -o luna/fit.json luna/freeze.json; "$COHORT" bound -o luna/bound.json luna/freeze.json; true; }) \
	>/dev/null 2>&1
mkdir -p bin
ln -sf "$COHORT" bin/cohort
for page in "$ROOT"/docs/cohort.1 "$ROOT"/docs/cohort-*.1; do
	cmd=$(basename "$page" .1 | sed -e 's/^cohort$//' -e 's/^cohort-//')
	name=${cmd:-cohort}
	section "$page" SYNOPSIS >syn.man
	"$COHORT" $cmd --help >help.out 2>&1
	awk '/^$/{exit} {print}' help.out | sed -e 's/^usage: //' -e 's/^ *//' >syn.help
	same_bytes "$name: man SYNOPSIS equals --help" syn.man syn.help
	prose "$page" >prose.txt
	# "  -o, --output FILE  ..." and "  --level P  ...": -o and --level
	awk '/^  -/{sub(/,$/, "", $1); print $1}' help.out | grep -v -e '^-h$' -e '^--help$' | sort -u >opts.txt
	[ -s opts.txt ] || [ -z "$cmd" ] || notok "$name: --help lists options" "none"
	missing=
	while IFS= read -r o; do
		grep -Eq -- "(^|[^-a-z])$o([^-a-z]|\$)" prose.txt || missing="$missing $o"
	done <opts.txt
	[ -z "$missing" ] && ok "$name: every option of --help is in the man page" ||
		notok "$name: every option of --help is in the man page" "missing:$missing"
	section "$page" EXAMPLES | grep '^\$ ' | sed 's/^\$ //' >examples.sh
	[ -s examples.sh ] || notok "$name: man page has EXAMPLES" "none"
	while IFS= read -r line; do
		(cd ex && PATH="$TMP/bin:$PATH" sh -c "$line" >/dev/null 2>"$TMP/ex.err")
		rc=$?
		if [ $rc -le 1 ]; then ok "$name example: $line"; else notok "$name example: $line" "exit $rc: $(head -c 200 "$TMP/ex.err")"; fi
	done <examples.sh
done
# cohort(1) names every command of cohort --help.
"$COHORT" --help | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1}' >cmds.txt
prose "$ROOT/docs/cohort.1" >prose.txt
missing=
while IFS= read -r c; do
	grep -q "^\.B $c\$" prose.txt || missing="$missing $c"
done <cmds.txt
[ -s cmds.txt ] && [ -z "$missing" ] && ok "cohort(1) describes every command" || notok "cohort(1) describes every command" "missing:$missing"
