#!/bin/sh
# generate.sh: every data file of examples/engine-panel, from the engines.
#
#   sh examples/engine-panel/generate.sh [--resume]
#
# Needs Debian's stockfish, fairy-stockfish and glaurung (installed here as
# root when missing), cc, python3, and cohort built from this tree (with
# `cohort candidates build`).  Rewrites positions*.jsonl, openings.jsonl,
# candidates.jsonl, prereg.json, spec-r?.json, ledger-r?.jsonl,
# decisions-r?.jsonl, requests-r?.jsonl, billing-r?.csv (these five kept
# gzipped) and run-log.txt, then runs check.sh and figures.py (README.md's
# figures).  Scratch files go to build/engine-panel.  The two
# replications run side by side, one process each.
#
# --resume continues a run that was stopped, on the same machine (it needs
# that run's scratch files in build/engine-panel): positions, manifest,
# specs and prereg are kept as they are (the prereg was registered before
# the first game), every ladder goes on from the blocks its ledger holds
# (cohort still decides every anchor), and a family's decisions are made
# only when its replication's log lacks them (a family's records are
# appended only once all of them are made, so a family present is whole).
set -eu
RESUME=0
[ "${1:-}" = --resume ] && RESUME=1
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
COHORT=$ROOT/build/release/cohort
WORK=$ROOT/build/engine-panel
PANEL=$WORK/panel
LOG=$HERE/run-log.txt
LC_ALL=C
export LC_ALL

# ---- the protocol's numbers (README.md says why) ----
FAMILIES="stockfish fairy-stockfish glaurung"
CONDITIONS="none top10 top5 top3 top2"
SF=/usr/games/stockfish
QUICK_NODES=40000            # the MultiPV-2 search that sets a position's kind
SHARDS=4                     # candidates build: parts run at once
MANIFEST_NODES=200000        # cohort candidates build
FAMILY_NODES=5000            # a family's move in a game
CAND_NODES=5000              # the in-game candidate source (MultiPV 10)
ANCHOR_NODES=5000            # the anchor's move
BUDGETS=low=1000,medium=3000,high=9000
PRICE=0.045                  # USD per CPU-hour of engine search (billing)
# replication: family Hash (MB), order seeds, opening shift
R1="16 1,2,3 0"
R2="64 4,5,6 5"

now() { date -u +%Y-%m-%dT%H:%M:%SZ; }
# log MESSAGE: paths inside this tree written from its top
log() {
	m=$(printf '%s' "$*" | sed "s|$ROOT/||g")
	printf '%s %s\n' "$(now)" "$m" >>"$LOG"
	printf '%s\n' "$m" >&2
}
# run CMD...: logged with its wall time
run() {
	log "\$ $*"
	t0=$(date +%s.%N)
	"$@"
	log "  ($(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s)"
}

# ---- engines and tools ----
need=
for p in stockfish fairy-stockfish glaurung; do
	[ -x /usr/games/$p ] || need="$need $p"
done
if [ -n "$need" ]; then
	if [ "$(id -u)" = 0 ]; then
		apt-get install -y $need
	else
		echo "missing engines; as root: apt-get install -y$need" >&2
		exit 2
	fi
fi
make -C "$ROOT" -s build
"$COHORT" candidates --help >/dev/null 2>&1 ||
	{ echo "this cohort has no 'candidates build': build a tree that has it" >&2; exit 2; }
mkdir -p "$WORK"
cc -std=c11 -D_DEFAULT_SOURCE -O2 -Wall -Wextra -Wno-unused-parameter -I"$ROOT" \
	$(pkg-config --cflags libcrypto libcjson) -o "$PANEL" "$HERE/panel.c" \
	"$ROOT"/build/release/common/*.o "$ROOT"/build/release/json/*.o \
	"$ROOT"/build/release/chess/*.o "$ROOT"/build/release/engine/*.o \
	"$ROOT"/build/release/protocol/*.o \
	$(pkg-config --libs libcrypto libcjson sqlite3 gsl) -lpthread -lm

[ $RESUME = 1 ] || : >"$LOG"
T0=$(date +%s)
[ $RESUME = 0 ] || log "generate.sh --resume: the stopped run goes on"
log "generate.sh at $(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown), $(nproc) cores, $(uname -srm)"
for p in stockfish fairy-stockfish glaurung; do
	log "$p $(dpkg-query -W -f '${Version}' $p) sha256 $(sha256sum /usr/games/$p | cut -d' ' -f1)"
done
log "$("$COHORT" --version)"
cd "$HERE"

if [ $RESUME = 0 ]; then
# ---- 1. positions and the opening suite ----
T=$ROOT/tests/data/pgn/tcec
run "$PANEL" positions --engine $SF --nodes $QUICK_NODES \
	--pos-pgn "$T/TCEC_Season_2_-_Division_A.pgn" --pos-pgn "$T/TCEC_Cup_9_Round16.pgn" \
	--book-pgn "$T/TCEC_Season_2_-_Elite-Match.pgn" --book-pgn "$T/TCEC_Match_1.pgn" \
	--positions positions.jsonl --sources positions-source.jsonl --openings openings.jsonl

# ---- 2. the candidate manifest, by cohort ----
# The command is
#   cohort candidates build --engine /usr/games/stockfish --nodes 200000 \
#       --multipv 10 --evals positions.jsonl
# Every search it makes starts with ucinewgame, so each line is a function
# of its position alone: it runs here on $SHARDS parts of the positions at
# once (--name positions, the name the whole file gets), and the header and
# the parts' lines put together are the one run's bytes.
log "\$ cohort candidates build --engine $SF --nodes $MANIFEST_NODES --multipv 10 --evals positions.jsonl (in $SHARDS parts at once)"
t=$(date +%s)
# contiguous parts, so that the parts in turn keep position_id order
per=$(( ($(wc -l <positions.jsonl) + SHARDS - 1) / SHARDS ))
split -d -a 1 -l $per positions.jsonl "$WORK/positions-part-"
pids=
for f in "$WORK"/positions-part-?; do
	"$COHORT" candidates build --engine $SF --nodes $MANIFEST_NODES --multipv 10 --evals \
		--name positions -o "$f.candidates" "$f" 2>/dev/null &
	pids="$pids $!"
done
for p in $pids; do
	wait $p || { log "candidates build failed"; exit 1; }
done
{
	head -n 1 "$WORK/positions-part-0.candidates"
	for f in "$WORK"/positions-part-?.candidates; do
		tail -n +2 "$f"
	done
} >candidates.jsonl
log "  ($(($(date +%s) - t)) s)"
CANDS=sha256:$(sha256sum candidates.jsonl | cut -d' ' -f1)   # canonical lines: the identity
log "candidates.jsonl $CANDS"

# ---- 3. the specs and the preregistration ----
n_split() { grep -c "\"split\":\"$1\"" positions.jsonl; }
REG=$(now)
ASOF=$(date -u -d "+2 days" +%Y-%m-%dT00:00:00Z)
spec() { # spec REP HASH SEEDS SHIFT
	cat <<EOF | "$COHORT" canon - >spec-$1.json
{"kind": "cohort.spec/1", "name": "engine-panel-$1", "as_of": "$ASOF",
 "families": ["stockfish", "fairy-stockfish", "glaurung"],
 "conditions": ["none", "top10", "top5", "top3", "top2"],
 "black_penalty": 0,
 "ladder": {"block_games": 10, "start": 1350, "max": 2850,
            "promote": [[0.9, 400], [0.8, 300], [0.65, 200]],
            "stop_below": 0.35, "max_repeats": 1},
 "protocol": {
  "model_snapshot": "Debian 12 engines: stockfish 15.1-4 (Stockfish 15.1, sha256 $(sha256sum $SF | cut -c1-64)), fairy-stockfish 11.1-1+b1 (Fairy-Stockfish 11.1 LB 64, sha256 $(sha256sum /usr/games/fairy-stockfish | cut -c1-64)), glaurung 2.2-4 (Glaurung 2.2, sha256 $(sha256sum /usr/games/glaurung | cut -c1-64))",
  "harness": "examples/engine-panel/panel.c play: UCI over pipes, position startpos moves ..., Threads 1, family Hash $2 MB; glaurung with OwnBook and Ponder off and one fixed throw-away search after each ucinewgame; in top<k> the family searches go nodes $FAMILY_NODES searchmoves <the first k moves of a fresh Stockfish 15.1 MultiPV-10 search of the position at $CAND_NODES nodes, Threads 1, Hash 16>; in none it searches unrestricted",
  "opponent": "Stockfish 15.1, UCI_LimitStrength true, UCI_Elo = the anchor, go nodes $ANCHOR_NODES, Threads 1, Hash 16",
  "openings": "openings.jsonl: the first 8 plies of 10 TCEC games; a block plays 5 of them, each with both colours, the family White in odd games; block b starts at opening ($4 + 5 (b - 1)) mod 10",
  "inference": "family search: go nodes $FAMILY_NODES per move; reasoning tokens carry the nodes the engine reported",
  "stopping": "checkmate, stalemate, insufficient material, threefold repetition and the fifty-move rule judged by the harness; 200 plies: administrative draw",
  "estimator": "davidson-joint/1"}}
EOF
}
spec r1 $R1
spec r2 $R2
cat <<EOF | "$COHORT" canon - >prereg.json
{"kind": "cohort.prereg/1", "name": "engine-panel", "registered_at": "$REG",
 "candidates": "$CANDS", "widths": [0, 2, 3, 5, 10],
 "allocation": {"splits": {"explore": $(n_split explore), "confirm": $(n_split confirm), "heldout": $(n_split heldout)},
                "order_seeds": 3, "budgets": ["low", "medium", "high"]},
 "exclusions": ["provider_error", "after_cut"],
 "features": ["unaided", "delta_r", "k_star", "p_k_star", "overload_2_10", "slope", "curvature",
   "reversals", "auc", "recall_unaided", "coverage", "oracle_regret", "chosen_rank", "value_loss",
   "omit_best", "engine_selects", "calibration", "order_change", "regret_var_seeds",
   "illegal_rate", "tool_failure_rate", "blunder_hazard", "history_vs_fresh", "failure_labels",
   "tokens_per_decision", "latency_per_decision", "tokens_per_game", "wall_per_game",
   "worker_hours_per_game", "gain_per_1k_tokens", "width_x_budget", "retries_per_legal",
   "pareto"],
 "distance": {"lambda": 0.1, "population": "panel"},
 "bootstrap": {"replicates": 2000, "unit": "opening", "seed": 1},
 "blunder_cp": 300,
 "predictions": [
  {"id": "p1", "kind": "heldout_assistance", "target": "delta_r[5]",
   "predictors": ["oracle_regret[5]", "coverage"], "baseline": ["unaided"]},
  {"id": "p5", "kind": "architectural", "family": "glaurung", "relation": ">",
   "family2": "stockfish", "feature": "engine_selects"},
  {"id": "p6", "kind": "architectural", "family": "glaurung", "relation": ">",
   "family2": "fairy-stockfish", "feature": "engine_selects"}]}
EOF
log "prereg.json registered_at $REG, identity $("$COHORT" canon --id prereg.json)"
else
	for f in positions.jsonl openings.jsonl candidates.jsonl prereg.json spec-r1.json spec-r2.json; do
		[ -s $f ] || { log "--resume: $f is missing: run without --resume"; exit 2; }
	done
	REG=$(python3 -c 'import json; print(json.load(open("prereg.json"))["registered_at"])')
fi

# ---- 4. games: each (family, condition) climbs its ladder, as cohort says ----
# ladder REP HASH SEEDS SHIFT: round after round, one block of every
# (family, condition) still active, each followed by freeze and ladder next.
ladder() {
	rep=$1 hash=$2 shift=$4
	d=$WORK/$rep/games
	if [ $RESUME = 0 ]; then
		rm -rf "$d"
		mkdir -p "$d"
		: >ledger-$rep.jsonl
		: >"$d/game-requests.jsonl"
	fi
	freeze() {
		"$COHORT" freeze --spec spec-$rep.json --store "$d/store" -o "$d/freeze.json" \
			ledger-$rep.jsonl
	}
	freeze
	for f in $FAMILIES; do
		for c in $CONDITIONS; do
			"$COHORT" ladder next --family $f --condition $c -o "$d/next.json" "$d/freeze.json"
			"$PANEL" next "$d/next.json" >"$d/next-$f-$c"
		done
	done
	round=1
	while :; do
		played=0
		for f in $FAMILIES; do
			for c in $CONDITIONS; do
				set -- $(cat "$d/next-$f-$c")
				[ "$1" = stop ] && continue
				elo=$1 block=$(($2 + 1))
				log "$rep round $round: $f $c block $block at $elo"
				"$PANEL" play --replication $rep --family $f --condition $c --block $block \
					--anchor $elo --openings openings.jsonl --opening-shift $shift \
					--hash $hash --family-nodes $FAMILY_NODES --cand-nodes $CAND_NODES \
					--anchor-nodes $ANCHOR_NODES --games 10 \
					--ledger "$d/block.jsonl" --requests "$d/block-requests.jsonl"
				cat "$d/block.jsonl" >>ledger-$rep.jsonl
				cat "$d/block-requests.jsonl" >>"$d/game-requests.jsonl"
				freeze
				"$COHORT" ladder next --family $f --condition $c -o "$d/next.json" "$d/freeze.json"
				"$PANEL" next "$d/next.json" >"$d/next-$f-$c"
				log "$rep   -> $(cat "$d/next-$f-$c")"
				played=$((played + 1))
			done
		done
		[ $played = 0 ] && break
		round=$((round + 1))
	done
}

# decisions REP HASH SEEDS SHIFT: every family on every position.
decisions() {
	rep=$1 hash=$2 seeds=$3
	d=$WORK/$rep/decisions
	if [ $RESUME = 0 ]; then
		rm -rf "$d"
		mkdir -p "$d"
		: >decisions-$rep.jsonl
		: >"$d/decision-requests.jsonl"
	fi
	for f in $FAMILIES; do
		if grep -q "\"family\":\"$f\"" decisions-$rep.jsonl; then
			log "$rep decisions: $f already made"
			continue
		fi
		"$PANEL" decide --replication $rep --family $f --candidates candidates.jsonl \
			--sources positions-source.jsonl --hash $hash --seeds $seeds --budgets $BUDGETS \
			--history-budget medium --decisions "$d/dec-$f.jsonl" --requests "$d/dreq-$f.jsonl"
		cat "$d/dec-$f.jsonl" >>decisions-$rep.jsonl
		cat "$d/dreq-$f.jsonl" >>"$d/decision-requests.jsonl"
	done
}

# replication REP HASH SEEDS SHIFT: its games and its decisions, side by
# side (they share nothing but the engines' binaries).
replication() {
	mkdir -p "$WORK/$1"
	t=$(date +%s)
	{ ladder "$@"; log "$1 games: $(wc -l <ledger-$1.jsonl) in $(($(date +%s) - t)) s"; } &
	g=$!
	{ decisions "$@"; log "$1 decisions: $(wc -l <decisions-$1.jsonl) in $(($(date +%s) - t)) s"; } &
	dd=$!
	rg=0 rd=0
	wait $g || rg=$?
	wait $dd || rd=$?
	[ $rg = 0 ] && [ $rd = 0 ] || { log "$1: games exit $rg, decisions exit $rd"; return 1; }
	cat "$WORK/$1/games/game-requests.jsonl" "$WORK/$1/decisions/decision-requests.jsonl" \
		>requests-$1.jsonl
	"$PANEL" billing --price $PRICE requests-$1.jsonl >billing-$1.csv
}

log "games and decisions start (after registered_at $REG)"
replication r1 $R1 &
p1=$!
replication r2 $R2 &
p2=$!
rc1=0 rc2=0
wait $p1 || rc1=$?
wait $p2 || rc2=$?
if [ $rc1 != 0 ] || [ $rc2 != 0 ]; then
	log "a replication failed (r1 exit $rc1, r2 exit $rc2)"
	exit 1
fi
log "engine work done in $(($(date +%s) - T0)) s wall"
times >"$WORK/times.txt"
log "CPU time (the shell, then its children: user, system): $(tr '\n' ' ' <"$WORK/times.txt")"

# ---- 5. the large files gzipped (gzip -9n: the same bytes, the same archive) ----
for f in ledger-r1.jsonl ledger-r2.jsonl decisions-r1.jsonl decisions-r2.jsonl \
	requests-r1.jsonl requests-r2.jsonl billing-r1.csv billing-r2.csv; do
	gzip -9nf $f
done

# ---- 6. the check ----
run sh "$HERE/check.sh"
python3 "$HERE/figures.py" README.md
log "generate.sh done in $(($(date +%s) - T0)) s"
