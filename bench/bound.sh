# bound.sh: cohort bound on many blocks (printed, not asserted): its time
# for 60,000 and 120,000 blocks of 20 per condition, the ratio of the two
# (near 2 when the work grows linearly; a scan of the earlier blocks for
# each block once made it 4), and its time beside fit's on the same
# document.  Sourced by bench/run.sh with $COHORT, $ROOT and $BENCH_TMP.
half=$(bench_count 3000)
awk -v conds="$half" -v blocks=20 -f "$ROOT/bench/fit-gen.awk" >half.json
awk -v conds=$((2 * half)) -v blocks=20 -f "$ROOT/bench/fit-gen.awk" >full.json
bench_time "bound: $((20 * half)) blocks" "$COHORT" bound -o half.out half.json
t_half=$BENCH_WALL
bench_time "bound: $((40 * half)) blocks" "$COHORT" bound -o full.out full.json
t_full=$BENCH_WALL
bench_ratio "bound: twice the blocks, time ratio" "$t_full" "$t_half" "2, linear"
bench_time "fit: the same $((40 * half)) blocks" "$COHORT" fit -o fit.out full.json
bench_ratio "bound time / fit time, same document" "$t_full" "$BENCH_WALL" "< 1"
