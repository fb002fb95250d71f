# canon.sh: `cohort canon` on two documents, against node's
# JSON.stringify(JSON.parse()) and `jq -S -c .` over the same bytes: the
# mixed one, real-shaped ledger records (bench/realshape.py) as one array
# of about 100 MB at BENCH_SCALE=1, and a number-heavy one, an array of
# 2,000,000 doubles from random bit patterns (about 47 MB; 17 significant
# digits and exponents, tests/es-numbers.js).  Targets: at least 200 MB/s
# on the mixed document, at least node's rate on the numbers, and memory
# bounded by what an object holds, not by the document.  Sourced by
# bench/run.sh.
games=$(bench_count 34600)
doubles=$(bench_count 2000000)
bench_time "generate $games real-shaped games (realshape.py)" python3 "$ROOT/bench/realshape.py" \
	"$games" spec.json ledger.jsonl || return 1
{ printf '['; paste -sd, ledger.jsonl; printf ']'; } >mixed.json
rm -f ledger.jsonl
if command -v node >/dev/null 2>&1; then
	bench_time "generate $doubles doubles (es-numbers.js)" sh -c \
		"node '$ROOT/tests/es-numbers.js' doubles $doubles | cut -d, -f2 >numbers.txt" || return 1
	{ printf '['; paste -sd, numbers.txt; printf ']'; } >numbers.json
	rm -f numbers.txt
fi

mbs() { awk -v b="$1" -v t="$2" 'BEGIN { if (t + 0 <= 0) print "n/a"; else printf "%.1f", b / 1e6 / t }'; }
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a + 0 < b + 0) ? a : b }'; }
for doc in mixed numbers; do
	[ -f $doc.json ] || continue
	bytes=$(wc -c <$doc.json)
	echo "  == the $doc document: $bytes bytes"
	cat $doc.json >/dev/null
	# the machine's speed wanders: cohort and node run three times each,
	# taking turns, and the best counts; jq once
	c_wall= c_cpu= n_wall= n_cpu=
	for run in 1 2 3; do
		bench_time "cohort canon (run $run)" sh -c "'$COHORT' canon $doc.json >ours.json" || return 1
		c_wall=$(best "$BENCH_WALL" "$c_wall") c_cpu=$(best "$BENCH_CPU" "$c_cpu") c_rss=$BENCH_RSS_MB
		command -v node >/dev/null 2>&1 || continue
		bench_time "node JSON.stringify(JSON.parse()) (run $run)" node -e \
			'process.stdout.write(JSON.stringify(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))))' \
			$doc.json >node.json
		n_wall=$(best "$BENCH_WALL" "$n_wall") n_cpu=$(best "$BENCH_CPU" "$n_cpu")
	done
	echo "  cohort canon: $(mbs "$bytes" "$c_wall") MB/s wall, $(mbs "$bytes" "$c_cpu") MB/s cpu, $c_rss MB peak"
	[ $doc = mixed ] && bench_ratio "cohort canon MB/s (cpu) / 200" "$(mbs "$bytes" "$c_cpu")" 200 ">= 1"
	if [ -n "$n_wall" ]; then
		echo "  node: $(mbs "$bytes" "$n_wall") MB/s wall, $(mbs "$bytes" "$n_cpu") MB/s cpu"
		bench_ratio "cohort canon speed-up over node (wall)" "$n_wall" "$c_wall" ">= 1"
		bench_ratio "cohort canon speed-up over node (cpu)" "$n_cpu" "$c_cpu" ">= 1"
		# an array of numbers has no keys to sort: node's bytes are RFC 8785's
		[ $doc = numbers ] && if cmp -s ours.json node.json; then
			echo "  the same bytes as node: yes"
		else
			echo "  the same bytes as node: no"
		fi
	fi
	if command -v jq >/dev/null 2>&1; then
		bench_time "jq -S -c ." sh -c "jq -S -c . $doc.json >jq.json" || return 1
		echo "  jq: $(mbs "$bytes" "$BENCH_WALL") MB/s wall"
		bench_ratio "cohort canon speed-up over jq (wall)" "$BENCH_WALL" "$c_wall"
		bench_ratio "cohort canon speed-up over jq (cpu)" "$BENCH_CPU" "$c_cpu"
	fi
	rm -f ours.json node.json jq.json
done
