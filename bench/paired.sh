# paired.sh: cohort paired over about 1,000,000 decisions (the panel of
# bench/fp-gen.py: six families in two replications, 730 positions at
# BENCH_SCALE=1) with 2,000 bootstrap replicates on two threads (target:
# 10 s), again with none to show what the bootstrap costs, and the same
# bytes on one, two and three threads; and the freeze of those decisions
# against the freeze of a game ledger of about the same size (target: the
# same rate per byte), on generated records and on real-shaped ones.
# Sourced by bench/run.sh.
pos=$(bench_count 730)
[ "$pos" -lt 12 ] && pos=12
python3 "$ROOT/bench/fp-gen.py" . "$pos" 2000 >n.txt || return 1
dbytes=$(wc -c <decisions.jsonl)
echo "  $(cat n.txt) decisions ($dbytes bytes), $pos positions"

# freeze_pair WHAT GBYTES DBYTES GAMES DECISIONS STORES: the games' freeze
# (the shell command GAMES) and the decisions' (DECISIONS), three times
# each, taking turns, their stores (STORES) removed and the page cache
# written back before each (this machine's speed wanders by a third within
# minutes); their medians' rates per byte compared.
med3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
freeze_pair() {
	_gw= _gc= _dw= _dc=
	for _run in 1 2 3; do
		# shellcheck disable=SC2086
		rm -rf $6
		sync
		bench_time "cohort freeze, $2 bytes of $1games (run $_run)" sh -c "$4" || return 1
		_gw="$_gw $BENCH_WALL" _gc="$_gc $BENCH_CPU"
		# shellcheck disable=SC2086
		rm -rf $6
		sync
		bench_time "cohort freeze, $3 bytes of $1decisions (run $_run)" sh -c "$5" || return 1
		_dw="$_dw $BENCH_WALL" _dc="$_dc $BENCH_CPU"
	done
	# shellcheck disable=SC2086
	set -- "$1" "$2" "$3" "$(med3 $_gw)" "$(med3 $_gc)" "$(med3 $_dw)" "$(med3 $_dc)"
	awk -v g="$2" -v d="$3" -v gw="$4" -v dw="$6" 'BEGIN {
		if (gw > 0 && dw > 0)
			printf "  freeze rate (medians): games %.1f MB/s, decisions %.1f MB/s (wall)\n",
			    g / gw / 1e6, d / dw / 1e6 }'
	bench_ratio "${1}per byte, decisions / games (wall)" \
		"$(awk -v d="$3" -v w="$6" 'BEGIN { print (w > 0 ? d / w : 0) }')" \
		"$(awk -v g="$2" -v w="$4" 'BEGIN { print (w > 0 ? g / w : 0) }')" ">= 1"
	bench_ratio "${1}per byte, decisions / games (cpu)" \
		"$(awk -v d="$3" -v c="$7" 'BEGIN { print (c > 0 ? d / c : 0) }')" \
		"$(awk -v g="$2" -v c="$5" 'BEGIN { print (c > 0 ? g / c : 0) }')" ">= 1"
}

# A game ledger of about the decisions' bytes (genledger writes about 650
# bytes a game); both files in the page cache and on disk first.
cc -O2 -o genledger "$ROOT/bench/genledger.c" || return 1
mkdir -p games
./genledger "$((dbytes / 650 + 1))" games/spec.json >games/ledger.jsonl || return 1
gbytes=$(wc -c <games/ledger.jsonl)
cat decisions.jsonl games/ledger.jsonl >/dev/null
export COHORT
freeze_pair "" "$gbytes" "$dbytes" \
	'"$COHORT" freeze --spec games/spec.json --store games/st -o games/f.json games/ledger.jsonl' \
	'"$COHORT" freeze --spec spec.json --candidates candidates.jsonl --decisions decisions.jsonl --store st -o f.json' \
	"games/st st" ||
	return 1
rm -rf games

# The same on real-shaped records of both kinds, about the same bytes:
# bench/realshape.py's games and bench/realdec.py's decisions (the engine
# panel's, shaped the same way: keys in an order of their own, 17-digit
# numbers, escapes and non-ASCII text in unknown fields).
rgames=$(bench_count 100000)
mkdir -p rs
python3 "$ROOT/bench/realshape.py" "$rgames" rs/spec.json rs/ledger.jsonl || return 1
rgbytes=$(wc -c <rs/ledger.jsonl)
python3 "$ROOT/bench/realdec.py" "$rgbytes" rs/decisions.jsonl || return 1
rdbytes=$(wc -c <rs/decisions.jsonl)
echo "  real-shaped: $rgames games ($rgbytes bytes), $(wc -l <rs/decisions.jsonl) decisions ($rdbytes bytes)"
cat rs/ledger.jsonl rs/decisions.jsonl >/dev/null
export ROOT
freeze_pair "real-shaped " "$rgbytes" "$rdbytes" \
	'"$COHORT" freeze --spec rs/spec.json --store rs/gst -o rs/g.json rs/ledger.jsonl' \
	'"$COHORT" freeze --spec "$ROOT/examples/engine-panel/spec-r1.json" --candidates "$ROOT/examples/engine-panel/candidates.jsonl" --decisions rs/decisions.jsonl --store rs/dst -o rs/d.json' \
	"rs/gst rs/dst" ||
	return 1
rm -rf rs

for reps in 0 2000; do
	bench_time "cohort paired, $reps replicates, 2 threads" env COHORT_JOBS=2 "$COHORT" paired \
		--store st --replicates "$reps" -o p$reps.json f.json || return 1
	eval "w$reps=\$BENCH_WALL c$reps=\$BENCH_CPU"
done
# shellcheck disable=SC2154
echo "  2,000 replicates: $w2000 s wall (target 10 s), $c2000 s cpu; the bootstrap's own:" \
	"$(awk -v a="$c2000" -v z="$c0" 'BEGIN { printf "%.2f s cpu", a - z }')"
bench_ratio "paired, 2,000 replicates: target / wall" 10 "$w2000" ">= 1"
for j in 1 3; do
	COHORT_JOBS=$j "$COHORT" paired --store st -o p2000-$j.json f.json || return 1
	if cmp -s p2000.json p2000-$j.json; then
		echo "  paired on $j thread(s): the same bytes as on 2"
	else
		echo "  paired on $j thread(s): OTHER BYTES than on 2 (unexpected)"
	fi
done
