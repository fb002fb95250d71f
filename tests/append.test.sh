# append.test.sh: an append-only ledger and the publication gate.  Games
# appended after the freeze's cut are left out and counted, never a
# refusal; a game appended inside the cut makes the freeze stale, saying
# so; a live game appended inside the cut is live; a bundle dated before
# its freeze's cut is refused.
PY=/usr/bin/python3
mk() { # DIR: a bundle of luna's spec, ledger and freeze in DIR
	rm -rf "$1" && mkdir -p "$1" && cp "$ROOT/examples/luna/spec.json" "$ROOT/examples/luna/ledger.jsonl" "$1/" &&
		"$COHORT" freeze --spec "$1/spec.json" -o "$1/freeze.json" "$1/ledger.jsonl" &&
		printf '%s\n' '{"kind":"cohort.bundle-spec/1","name":"a","as_of":"2026-07-20T00:00:00Z",' \
			'"items":[{"role":"spec","path":"spec.json"},{"role":"ledger","path":"ledger.jsonl"},' \
			'{"role":"freeze","path":"freeze.json","derived_from":["spec","ledger"]}]}' >"$1/b.json"
}
# append DIR KIND: one game appended to DIR's ledger, a copy of its last:
# after (started and ended after the cut), inside (terminal, inside the
# cut) or live (live, started inside the cut)
append() {
	$PY - "$1/ledger.jsonl" "$2" ${3:-} <<'P'
import json, sys
path, kind = sys.argv[1], sys.argv[2]
g = json.loads(open(path).read().splitlines()[-1])
g["game_id"] = "appended-" + kind + (sys.argv[3] if len(sys.argv) > 3 else "")
if kind == "after":
    g["started_at"], g["ended_at"] = "2026-07-21T00:00:00Z", "2026-07-21T01:00:00Z"
else:
    g["started_at"], g["ended_at"] = "2026-07-19T00:00:00Z", "2026-07-19T01:00:00Z"
if kind == "live":
    g["status"] = "live"
    for k in ("result", "ended_at", "termination", "plies"): g.pop(k, None)
open(path, "a").write(json.dumps(g) + "\n")
P
}
findings() { $PY -c 'import json, sys; d = json.load(open(sys.argv[1])); print("\n".join(f["check"] + ": " + f["detail"] for f in d.get("findings", [])))' "$1"; }

mk base
expect_status "a fresh freeze bundles" 0 "$COHORT" bundle --check --spec base/b.json

mk after && append after after && append after after -2
"$COHORT" bundle --check --spec after/b.json >after.out 2>after.err
rc=$?
[ $rc = 0 ] && ok "games appended after the cut: no refusal" || notok "games appended after the cut: no refusal" "exit $rc: $(findings after.out)"
grep -q '^cohort bundle: note: freeze.json: its ledgers hold 2 games after its cut (as_of), left out' after.err &&
	ok "games after the cut are counted in a note" || notok "games after the cut are counted in a note" "$(cat after.err)"

# the archive of it verifies: the verifier freezes the bundled ledger again
# the same way
"$COHORT" bundle --spec after/b.json -o after.tar >/dev/null 2>&1 &&
	expect_status "the archive of a ledger with games after the cut verifies" 0 "$COHORT" verify after.tar ||
	notok "the archive of a ledger with games after the cut verifies" "bundle failed"

mk inside && append inside inside
"$COHORT" bundle --check --spec inside/b.json >inside.out 2>inside.err
rc=$?
f=$(findings inside.out)
case "$rc:$f" in
"1:stale: a game inside the cut was added to its ledgers (1 in all; first: appended-inside): freeze again"*)
	ok "a game appended inside the cut: stale, saying so" ;;
*) notok "a game appended inside the cut: stale, saying so" "exit $rc: $f" ;;
esac

mk live && append live live
"$COHORT" bundle --check --spec live/b.json >live.out 2>live.err
rc=$?
f=$(findings live.out)
case "$rc:$f" in
"1:live: 1 game inside the cut is live in its ledgers now, not in the freeze (first: appended-live)") ok "a live game appended inside the cut: live, not stale" ;;
*) notok "a live game appended inside the cut: live, not stale" "exit $rc: $f" ;;
esac

mk early && sed -i 's/2026-07-20T00:00:00Z/2026-07-19T23:59:59.5Z/' early/b.json
"$COHORT" bundle --check --spec early/b.json >early.out 2>early.err
rc=$?
f=$(findings early.out)
case "$rc:$f" in
"1:invalid: the freeze's cut (as_of 2026-07-20T00:00:00Z) is after the bundle's as_of (2026-07-19T23:59:59.5Z)"*)
	ok "a bundle dated before its freeze's cut is refused" ;;
*) notok "a bundle dated before its freeze's cut is refused" "exit $rc: $f" ;;
esac
