# readme.test.sh: every command of the README's tour runs (exit 0, or 1
# where the README shows a refusal) in the folder `make demo` leaves.
sh "$ROOT/examples/demo.sh" "$COHORT" >demo.out 2>&1 || notok "demo runs" "$(tail -3 demo.out)"
for f in luna-curve.svg luna-report.html; do
	[ -s "$ROOT/build/demo/$f" ] && grep -q "^wrote $ROOT/build/demo/$f" demo.out &&
		ok "demo writes build/demo/$f and says where" || notok "demo writes build/demo/$f" "$(grep -c wrote demo.out) lines say wrote"
done
DEMO=$ROOT/build/demo
# The first seed's chain on the engine panel: the distance table and every
# gate's verdict are printed, and the documents verify.
for want in '^d2 ' '^test-retest ' '^separation ' '^gate A: ' '^gate B: ' '^gate C: ' '^gate D: '; do
	if grep -q "$want" demo.out; then ok "the demo prints $want"; else notok "the demo prints $want" "$(tail -3 demo.out)"; fi
done
# gate C rests on the explore and heldout fingerprints and both distances,
# gate D on the heldout fingerprints
(cd "$DEMO/engine-panel" && "$COHORT" verify fingerprint.json fingerprint-explore.json \
	fingerprint-heldout.json distance.json distance-splits.json gate-C.json gate-D.json prereg.json \
	r1/freeze.json r2/freeze.json >verify-chain.json 2>verify-chain.err)
rc=$?
# the freezes' one finding is the deviation the panel really has (order seeds)
if [ $rc -le 1 ] && python3 - "$DEMO/engine-panel/verify-chain.json" <<'EOF'
import json, sys
checks = json.load(open(sys.argv[1]))["checks"]
bad = [c for c in checks if not c["ok"] and c["check"] != "deviation"]
refits = [c for c in checks if c["check"] == "refit" and c["ok"]]
sys.exit(1 if bad or len(refits) < 7 else 0)
EOF
then ok "the panel's fingerprints, distances and gates C and D are computed again byte for byte"
else notok "the panel's fingerprints, distances and gates C and D verify" "exit $rc: $(head -c 300 "$DEMO/engine-panel/verify-chain.err")"; fi
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

# The demo's last words put a newcomer in build/demo with cohort on PATH:
# run as printed, with a PATH that has no cohort on it, they find it.
tail -n 1 demo.out | sed 's/^ *//' >path.sh
found=$(env PATH=/usr/bin:/bin sh -c ". ./path.sh && pwd && command -v cohort" 2>&1)
case "$found" in
"$DEMO"*"$(dirname "$COHORT")/cohort") ok "the demo prints how to put cohort on PATH" ;;
*) notok "the demo prints how to put cohort on PATH" "$(tail -n 2 demo.out) -> $found" ;;
esac
# the README's own line, where make built the program
if [ -x "$ROOT/build/release/cohort" ]; then
	line=$(grep -m 1 '^    cd build/demo && export PATH=' "$ROOT/README.md" | sed 's/^ *//')
	found=$(cd "$ROOT" && env PATH=/usr/bin:/bin sh -c "$line && command -v cohort" 2>&1)
	[ -x "$found" ] && ok "the README's PATH line finds cohort" ||
		notok "the README's PATH line finds cohort" "${line:-no such line} -> $found"
fi
grep -q 'apt-get install git make' "$ROOT/README.md" && ok "the README names git and make first" ||
	notok "the README names git and make first" "not found"

# every man page's EXAMPLES run in build/demo too, as the README says
for page in "$ROOT"/docs/cohort.1 "$ROOT"/docs/cohort-*.1; do
	awk '/^\.SH /{in_s = ($2 == "EXAMPLES")} in_s && /^\.nf/{on=1; next} /^\.fi/{on=0} in_s && on' "$page" |
		sed -e 's/\\-/-/g' -e 's/\\e/\\/g' | grep '^\$ ' | sed 's/^\$ //' >demo-ex.sh
	while IFS= read -r line; do
		(cd "$DEMO" && PATH="$TMP/bin:$PATH" sh -c "$line" >/dev/null 2>"$TMP/ex.err")
		rc=$?
		if [ $rc -le 1 ]; then ok "in build/demo, $(basename "$page"): $line"; else
			notok "in build/demo, $(basename "$page"): $line" "exit $rc: $(head -c 200 "$TMP/ex.err")"; fi
	done <demo-ex.sh
done
