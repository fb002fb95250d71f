# cli.test.sh: the program's own surface: help, version, unknown commands,
# every command's --help, and make install.
expect_status "--help exits 0" 0 "$COHORT" --help
grep -q '^usage: cohort COMMAND' "$TMP/out" && ok "--help on stdout" || notok "--help on stdout" "$(head -2 "$TMP/out")"
expect_status "--version" 0 "$COHORT" --version
grep -Eq '^cohort [0-9]+\.[0-9]+\.[0-9]+$' "$TMP/out" && ok "version format" || notok "version format" "$(cat "$TMP/out")"
expect_fail2 "no command" "usage: cohort" "$COHORT"
expect_fail2 "unknown command" "^cohort: unknown command 'frobnicate'" "$COHORT" frobnicate
for c in canon freeze verify reconcile fit bound bundle ladder; do
	"$COHORT" $c --help >help.out 2>help.err
	rc=$?
	if [ $rc = 0 ] && grep -q "^usage: cohort $c" help.out && [ ! -s help.err ]; then ok "$c --help"; else notok "$c --help" "exit $rc"; fi
	[ -f "$ROOT/docs/cohort-$c.1" ] && ok "$c has a man page" || notok "$c has a man page" "missing docs/cohort-$c.1"
done
if [ -z "${COHORT_SANITIZED:-}" ]; then
	make -s -C "$ROOT" install PREFIX="$TMP/prefix" >install.out 2>&1
	if [ -x "$TMP/prefix/bin/cohort" ] && [ -f "$TMP/prefix/share/man/man1/cohort-freeze.1" ]; then
		ok "make install PREFIX=... installs the program and man pages"
	else
		notok "make install" "$(tail -3 install.out)"
	fi
fi
