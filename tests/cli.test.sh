# cli.test.sh: the program's own surface: help, version, unknown commands,
# every command's --help, the one option parser (the same refusals in the
# same words for every command), and make install.
expect_status "--help exits 0" 0 "$COHORT" --help
grep -q '^usage: cohort COMMAND' "$TMP/out" && ok "--help on stdout" || notok "--help on stdout" "$(head -2 "$TMP/out")"
"$COHORT" help >help.out 2>&1
same_bytes "cohort help prints cohort --help" help.out "$TMP/out"
expect_status "--version" 0 "$COHORT" --version
grep -Eq '^cohort [0-9]+\.[0-9]+\.[0-9]+$' "$TMP/out" && ok "version format" || notok "version format" "$(cat "$TMP/out")"
expect_fail2 "no command" "usage: cohort" "$COHORT"
expect_fail2 "unknown command" "^cohort: unknown command 'frobnicate'" "$COHORT" frobnicate
expect_fail2 "unknown option of cohort" "^cohort: unknown option '--frobnicate'" "$COHORT" --frobnicate
expect_fail2 "--version twice" "^cohort: --version given twice" "$COHORT" --version --version
expect_fail2 "help of an unknown command" "^cohort help: unknown command 'frobnicate'" "$COHORT" help frobnicate
expect_fail2 "fit --level with nothing after it" "^cohort fit: --level: needs a value$" "$COHORT" fit --level
for c in canon freeze verify reconcile fit bound bundle ladder "ladder next" "ladder simulate"; do
	"$COHORT" $c --help >help.out 2>help.err
	rc=$?
	if [ $rc = 0 ] && grep -q "^usage: cohort $c" help.out && [ ! -s help.err ]; then ok "$c --help"; else notok "$c --help" "exit $rc"; fi
	"$COHORT" help $c >help2.out 2>&1
	same_bytes "cohort help $c prints $c --help" help2.out help.out
	awk '/^  -/ && length > 80' help.out >wide.out
	[ -s wide.out ] && notok "$c --help: option lines fit 80 columns" "$(head -1 wide.out)" || ok "$c --help: option lines fit 80 columns"
done
for c in canon freeze verify reconcile fit bound bundle ladder; do
	[ -f "$ROOT/docs/cohort-$c.1" ] && ok "$c has a man page" || notok "$c has a man page" "missing docs/cohort-$c.1"
done
[ -f "$ROOT/docs/cohort.1" ] && ok "cohort has a man page" || notok "cohort has a man page" "missing docs/cohort.1"

# Every command parses its options the one way.  A row: the command, one of
# its options that takes a value (its long name, how messages name it, a
# value), and a run that works with it (the other options, the operands).
cp -r "$ROOT/examples" ex
(cd ex && for c in luna deepseek; do "$COHORT" freeze --spec $c/spec.json --store $c/store -o $c/freeze.json $c/ledger.jsonl; done) >/dev/null 2>&1
cat >rows <<'ROWS'
canon|output|-o|-|--id|luna/spec.json
freeze|format|--format|table|--spec luna/spec.json|luna/ledger.jsonl
verify|format|--format|table|--store luna/store|luna/freeze.json
reconcile|format|--format|table|--freeze deepseek/freeze.json --ledger deepseek/ledger.jsonl --requests deepseek/requests.jsonl --billing deepseek/provider-billing.csv --billing-map deepseek/billing-map.json|
fit|format|--format|table||luna/freeze.json
bound|level|--level|0.9||luna/freeze.json
bundle|format|--format|table|--spec deepseek/bundle.json --check|
ladder next|format|--format|table|--condition top2|deepseek/freeze.json
ladder simulate|format|--format|table|--spec luna/spec.json --truth 1100:3100:1000 --starts 1320 --reps 3 --seed 1|
ROWS
# refused NAME WANT CMD...: run in ex; exit 2, nothing on stdout, stderr
# the line WANT and then the usage of $cmd.
refused() {
	_name=$1 _want=$2
	shift 2
	(cd ex && "$@") >"$TMP/out" 2>"$TMP/err" </dev/null
	_got=$?
	if [ "$_got" != 2 ]; then
		notok "$_name" "exit $_got, want 2; stderr: $(head -c 300 "$TMP/err")"
	elif [ "$(head -1 "$TMP/err")" != "$_want" ]; then
		notok "$_name" "stderr is not '$_want': $(head -1 "$TMP/err")"
	elif ! sed -n 2p "$TMP/err" | grep -q "^usage: cohort $cmd"; then
		notok "$_name" "no usage after the message: $(sed -n 2p "$TMP/err")"
	elif [ -s "$TMP/out" ]; then
		notok "$_name" "wrote to stdout on error"
	else ok "$_name"; fi
}
while IFS='|' read -r cmd long shown val opts ops; do
	refused "$cmd: an unknown option" "cohort $cmd: unknown option '--frobnicate'" \
		"$COHORT" $cmd --frobnicate $opts $ops
	refused "$cmd: an option given twice" "cohort $cmd: $shown given twice" \
		"$COHORT" $cmd --$long $val --$long $val $opts $ops
	refused "$cmd: an option without its value" "cohort $cmd: $shown: needs a value" \
		"$COHORT" $cmd $opts $ops --$long
	(cd ex && "$COHORT" $cmd --$long $val $opts $ops </dev/null >../a.out 2>../a.err; echo "exit $?" >../a.status)
	(cd ex && "$COHORT" $cmd --$long=$val $opts $ops </dev/null >../b.out 2>../b.err; echo "exit $?" >>../b.out)
	cat a.status >>a.out
	same_bytes "$cmd: --$long=$val is --$long $val" b.out a.out
	grep -q '^exit [01]$' a.status && ok "$cmd: the run works" || notok "$cmd: the run works" "$(cat a.status): $(head -c 200 a.err)"
	if [ -n "$ops" ]; then
		(cd ex && "$COHORT" $cmd --$long $val $opts -- $ops </dev/null >../b.out 2>../b.err; echo "exit $?" >>../b.out)
		same_bytes "$cmd: -- before the operands changes nothing" b.out a.out
		(cd ex && "$COHORT" $cmd $opts -- --frobnicate </dev/null >../b.out 2>../b.err)
		if grep -q 'unknown option' b.err; then notok "$cmd: after --, --frobnicate is an operand" "$(head -1 b.err)"; else ok "$cmd: after --, --frobnicate is an operand"; fi
	else
		refused "$cmd: after --, --frobnicate is an operand" "cohort $cmd: unexpected argument '--frobnicate'" \
			"$COHORT" $cmd --$long $val $opts -- --frobnicate
	fi
done <rows

if [ -z "${COHORT_SANITIZED:-}" ]; then
	make -s -C "$ROOT" install PREFIX="$TMP/prefix" >install.out 2>&1
	if [ -x "$TMP/prefix/bin/cohort" ] && [ -f "$TMP/prefix/share/man/man1/cohort-freeze.1" ] &&
		[ -f "$TMP/prefix/share/man/man1/cohort.1" ]; then
		ok "make install PREFIX=... installs the program and man pages, cohort(1) too"
	else
		notok "make install" "$(tail -3 install.out)"
	fi
fi
