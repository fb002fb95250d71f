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
