# readme.test.sh: every command of the README's tour runs (exit 0, or 1
# where the README shows a refusal) in the folder `make demo` leaves.
sh "$ROOT/examples/demo.sh" "$COHORT" >demo.out 2>&1 || notok "demo runs" "$(tail -3 demo.out)"
for f in luna-curve.svg luna-report.html; do
	[ -s "$ROOT/build/demo/$f" ] && grep -q "^wrote $ROOT/build/demo/$f" demo.out &&
		ok "demo writes build/demo/$f and says where" || notok "demo writes build/demo/$f" "$(grep -c wrote demo.out) lines say wrote"
done
DEMO=$ROOT/build/demo
[ -n "${COHORT_SANITIZED:-}" ] && DEMO=$ROOT/build/demo
grep '^    \$ ' "$ROOT/README.md" | sed 's/^    \$ //' >tour.sh
[ "$(wc -l <tour.sh)" -ge 10 ] && ok "README tour has its commands" || notok "README tour" "$(wc -l <tour.sh)"
mkdir -p bin
ln -sf "$COHORT" bin/cohort
while IFS= read -r line; do
	(cd "$DEMO" && PATH="$TMP/bin:$PATH" sh -c "$line" >/dev/null 2>"$TMP/tour.err")
	rc=$?
	want=0
	case "$line" in *deepseek/bundle.json*) want=1 ;; esac
	if [ $rc = $want ]; then ok "README: $line"; else notok "README: $line" "exit $rc: $(head -c 200 "$TMP/tour.err")"; fi
done <tour.sh
