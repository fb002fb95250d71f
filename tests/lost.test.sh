# lost.test.sh: nothing lost.  Inputs are never modified, whatever -o
# names; outputs are written atomically.
EX=$ROOT/examples
cp -r "$EX/luna" luna
cp -r "$EX/deepseek" deepseek
cp -r "$EX/paired-toy" toy
cp "$EX/luna-blocks.json" blocks.json
"$COHORT" freeze --spec luna/spec.json --store luna/store -o luna/freeze.json luna/ledger.jsonl &&
	"$COHORT" freeze --spec deepseek/spec.json -o deepseek/freeze.json deepseek/ledger.jsonl &&
	"$COHORT" fit -o luna/fit.json luna/freeze.json ||
	notok "lost: the inputs are made" "freeze or fit failed"

# --- -o naming an input ------------------------------------------------------
# Each row: the input the output names, then the command, with @ where the
# output goes.  Every command is refused (exit 2) with the input named,
# under the input's own name, a symbolic link to it and a hard link to it,
# and the input is left as it was.
RECON="reconcile --freeze deepseek/freeze.json --ledger deepseek/ledger.jsonl --requests deepseek/requests.jsonl --billing deepseek/billing.csv"
while IFS='|' read -r input cmd; do
	[ -n "$input" ] || continue
	cp "$input" keep
	rm -f link hard
	ln -s "$TMP/$input" link
	ln "$input" hard
	for out in "$input" link hard; do
		line=$(printf '%s' "$cmd" | sed "s|@|$out|")
		# shellcheck disable=SC2086
		expect_fail2 "-o $out naming $input: $line" "^cohort [a-z ]+: $out: is (an|the) input" \
			"$COHORT" $line
		same_bytes "-o $out: $input is untouched" "$input" keep
	done
	rm -f link hard
done <<EOF
luna/spec.json|canon -o @ luna/spec.json
luna/ledger.jsonl|freeze --spec luna/spec.json -o @ luna/ledger.jsonl
luna/spec.json|freeze --spec luna/spec.json -o @ luna/ledger.jsonl
luna/freeze.json|verify --store luna/store -o @ luna/freeze.json
luna/fit.json|verify -o @ luna/freeze.json luna/fit.json
blocks.json|fit -o @ blocks.json
luna/freeze.json|bound -o @ luna/freeze.json
deepseek/requests.jsonl|$RECON -o @
deepseek/ledger.jsonl|$RECON --db @
luna/freeze.json|ladder next --condition top2 -o @ luna/freeze.json
luna/spec.json|ladder simulate --spec luna/spec.json --truth 1100:1300:100 --starts 1320 --reps 2 --seed 1 --emit-ledger @
toy/candidates.jsonl|candidates verify -o @ toy/candidates.jsonl
toy/decisions.jsonl|freeze --spec toy/spec.json --candidates toy/candidates.jsonl --decisions toy/decisions.jsonl -o @
EOF

# --- outputs honour the umask ------------------------------------------------
# Files are created 0666 less the umask and folders 0777 less it, as cp
# and mkdir do; a store's packs and indexes too.
for m in 027 022 077 002; do
	rm -rf um && mkdir um
	(umask $m &&
		"$COHORT" canon -o um/c.json luna/spec.json &&
		"$COHORT" freeze --spec luna/spec.json --store um/store -o um/f.json luna/ledger.jsonl &&
		"$COHORT" $RECON --db um/r.db -o um/r.json >/dev/null) 2>um.err
	want=$(printf '%o' $((0666 & ~0$m)))
	wantd=$(printf '%o' $((0777 & ~0$m)))
	bad=
	for f in um/c.json um/f.json um/r.db um/r.json um/store/cohort-store um/store/pack/*; do
		[ "$(stat -c %a "$f")" = "$want" ] || bad="$bad $f:$(stat -c %a "$f")"
	done
	for d in um/store um/store/pack; do
		[ "$(stat -c %a "$d")" = "$wantd" ] || bad="$bad $d:$(stat -c %a "$d")"
	done
	[ -z "$bad" ] && ok "umask $m: files $want, folders $wantd" ||
		notok "umask $m: files $want, folders $wantd" "$bad $(head -c 200 um.err)"
done

# --- a full disk -------------------------------------------------------------
# A write that fails (here: past the file size limit, SIGXFSZ ignored, so
# write(2) says EFBIG) names the file, exits 2 and leaves nothing behind.
mkdir -p full
"$COHORT" fit -o luna/fit.json luna/freeze.json 2>/dev/null
"$COHORT" bound -o luna/bound.json luna/freeze.json 2>/dev/null
printf '{"kind":"cohort.bundle-spec/1","name":"l","as_of":"2026-07-20T00:00:00Z","items":[{"role":"ledger","path":"ledger.jsonl"},{"role":"freeze","path":"freeze.json","store":"store"}]}' >luna/b.json
(trap '' XFSZ; ulimit -f 256; exec "$COHORT" bundle --spec luna/b.json -o full/l.tar) >full.out 2>full.err
rc=$?
[ $rc = 2 ] && grep -q '^cohort bundle: full/l.tar: ' full.err && ok "bundle on a full disk names the archive" ||
	notok "bundle on a full disk names the archive" "exit $rc: $(cat full.err)"
[ -z "$(ls full)" ] && ok "bundle on a full disk leaves nothing" || notok "bundle on a full disk leaves nothing" "$(ls full)"
(trap '' XFSZ; ulimit -f 64; exec "$COHORT" freeze --spec luna/spec.json -o full/f.json luna/ledger.jsonl) >full.out 2>full.err
rc=$?
[ $rc = 2 ] && grep -q '^cohort freeze: full/f.json: ' full.err && ok "freeze on a full disk names the manifest" ||
	notok "freeze on a full disk names the manifest" "exit $rc: $(cat full.err)"
[ -z "$(ls full)" ] && ok "freeze on a full disk leaves nothing" || notok "freeze on a full disk leaves nothing" "$(ls full)"
