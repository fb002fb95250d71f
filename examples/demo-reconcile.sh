# demo-reconcile.sh: sourced by examples/demo.sh with $COHORT and $DEMO:
# the DeepSeek snapshot reconciled against its request log and billing
# export (the published efficiency table), then again from the provider's own
# export through a column map.
banner "reconcile deepseek: freeze, ledger, request log, billing"
"$COHORT" reconcile --freeze "$DEMO/deepseek/freeze.json" --ledger "$DEMO/deepseek/ledger.jsonl" \
	--requests "$DEMO/deepseek/requests.jsonl" --billing "$DEMO/deepseek/billing.csv" \
	--format table || true
printf '\nfrom the provider export (column map): '
"$COHORT" reconcile --freeze "$DEMO/deepseek/freeze.json" --ledger "$DEMO/deepseek/ledger.jsonl" \
	--requests "$DEMO/deepseek/requests.jsonl" --billing "$DEMO/deepseek/provider-billing.csv" \
	--billing-map "$DEMO/deepseek/billing-map.json" --format table | tail -n 1 || true
