# manifest.sh: the freeze manifest's writing alone, on a generated ledger of
# 1,000,000 games (BENCH_SCALE scales it): freeze_acc_write (canonical bytes
# written directly) against the tree's way (freeze_acc_finish, which reads
# those bytes back into a tree, then canon_write), both on games already in
# game_id order.  Uses the unit program tests/unit/freeze_write beside
# $COHORT.  Sourced by bench/run.sh.
games=$(bench_count 1000000)
[ "$games" -lt 100 ] && games=100
unit=$(dirname "$COHORT")/tests/unit/freeze_write
if [ ! -x "$unit" ]; then
	echo "  $unit not built: no measurement"
	return 0
fi
cc -O2 -o genledger "$ROOT/bench/genledger.c" || return 1
./genledger "$games" spec.json >ledger.jsonl || return 1
bench_time "read $games games, then write the manifest" "$unit" -t spec.json ledger.jsonl >times.txt ||
	return 1
sed 's/^/  /' times.txt
