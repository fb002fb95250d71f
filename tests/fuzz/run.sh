#!/bin/sh
# run.sh: build the libFuzzer targets (clang, ASan, UBSan) and run each for
# a bounded time.  Called by `make fuzz`; usable alone:
#   FUZZ_SECONDS=300 sh tests/fuzz/run.sh [TARGET...]
# Targets: json (strict reader, canonical writer), canon (the streaming
# canonical writer against the tree path, over blocks of 1 to 16 bytes),
# rec (the flat record reader against the tree reader and writer),
# decision (the flat decision reader against the tree reader),
# ledger (JSON Lines reader, record validator, manifest derivation), csv,
# secret_scan (the credential scan and its decoders), secret_rules (the
# rules-file reader and the regular expression translator), bundle_bag,
# fen (FEN and EPD reader, legal moves), san (SAN and UCI move text), pgn
# (PGN reader and writer), uci (what a UCI engine prints), pgnmap (the
# tag map of import pgn, then PGN imported with it).  The library is built
# into build/fuzz; the corpus grows in build/fuzz/corpus/TARGET across runs and
# is seeded from tests/data and examples/ each time.  A crash leaves its
# input in build/fuzz/crash-TARGET-* and makes this script exit 1.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
LC_ALL=C
export LC_ALL
SECONDS_EACH=${FUZZ_SECONDS:-60}
CLANG=${FUZZ_CC:-clang}
OUT=build/fuzz
SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
PKGS="libcrypto libarchive libcjson sqlite3 libgit2 gsl"
targets=${*:-json canon rec decision ledger csv secret_scan secret_rules bundle_bag fen san pgn uci pgnmap}

# The library objects, named by the Makefile itself (so new modules come along).
objs=$(printf 'fuzz-print-objs:\n\t@echo $(LIB_OBJS)\n' | make -s --no-print-directory -f Makefile -f - fuzz-print-objs) || exit 2
bobjs=
for o in $objs; do bobjs="$bobjs $OUT/$o"; done
echo "fuzz: building the library with $CLANG and $SAN" >&2
make -s --no-print-directory BUILD=$OUT CC="$CLANG" OPT=-O1 SAN="$SAN" $bobjs || exit 2

# Seeds, rebuilt each run (scratch, never committed).
rm -rf $OUT/seeds
for t in json canon rec decision ledger csv secret_scan secret_rules bundle_bag fen san pgn uci pgnmap; do mkdir -p $OUT/seeds/$t $OUT/corpus/$t; done
# what real engines print, a line a seed and each whole
for f in tests/data/uci/*.txt; do
	cp "$f" $OUT/seeds/uci/
	awk -v d="$OUT/seeds/uci" -v n="$(basename "$f" .txt)" \
		'{ g = sprintf("%s/%s-%03d", d, n, NR); print > g; close(g) }' "$f"
done
cp examples/deepseek/*.csv tests/data/reconcile/*.csv $OUT/seeds/csv/ 2>/dev/null
cp tests/data/secrets/*/* $OUT/seeds/secret_scan/ 2>/dev/null
find tests/data/secrets -type f -size -16k -exec cp {} $OUT/seeds/secret_scan/ \; 2>/dev/null
# rules files: the built-in one cut into its rules, and the test's rules files
awk -v d="$OUT/seeds/secret_rules" '/^\[\[rules\]\]/ { n++ } { f = sprintf("%s/rule-%03d", d, n); print >> f; close(f) }' secret/rules.toml
find tests/data/secrets -name '*.toml' -exec cp {} $OUT/seeds/secret_rules/ \; 2>/dev/null
for bag in tests/data/bagit-conformance/v1.0/valid/* tests/data/bagit-conformance/v0.97/invalid/*; do
	tar -cf "$OUT/seeds/bundle_bag/$(basename "$bag").tar" -C "$(dirname "$bag")" "$(basename "$bag")" 2>/dev/null
done
cp tests/data/json-parsing/test_parsing/*.json $OUT/seeds/json/
for f in tests/data/jcs/input/*; do cp "$f" "$OUT/seeds/json/jcs-${f##*/}"; done
# a freeze manifest: its top-level games, held flat
cp golden/bundle-refusal/freeze.json $OUT/seeds/json/freeze.json
# canon's first byte is the block size
for f in $OUT/seeds/json/*; do { printf '\007'; cat "$f"; } >"$OUT/seeds/canon/${f##*/}"; done
for led in examples/*/ledger.jsonl; do
	name=$(basename "$(dirname "$led")")
	# each record alone, and runs of ten lines (whole blocks, for the ladder)
	awk -v d="$OUT/seeds/ledger" -v n="$name" '
		{ f = sprintf("%s/%s-line-%04d", d, n, NR); print > f; close(f)
		  g = sprintf("%s/%s-run-%04d", d, n, int((NR - 1) / 10)); print >> g; close(g) }' "$led"
	cp $OUT/seeds/ledger/$name-line-0001 $OUT/seeds/json/$name-record
	cp $OUT/seeds/ledger/$name-line-000* $OUT/seeds/rec/
	# two records a line each: the second may be read by the first's shape
	head -n 2 "$led" >$OUT/seeds/rec/$name-pair
	sed -n '1p;40p' "$led" >$OUT/seeds/rec/$name-pair-far
	# four read over and over (a shape learns which values stay), then one
	head -n 5 "$led" >$OUT/seeds/rec/$name-five
	sed -n '1,4p;40p' "$led" >$OUT/seeds/rec/$name-five-far
done
awk -v d="$OUT/seeds/rec" '{ f = sprintf("%s/odd-%02d", d, NR); print > f; close(f) }' tests/data/rec/odd.jsonl
# decisions: each record of the example logs alone
for log in examples/*/decisions.jsonl; do
	awk -v d="$OUT/seeds/decision" -v n="$(basename "$(dirname "$log")")" \
		'NR <= 200 { f = sprintf("%s/%s-%03d", d, n, NR); print > f; close(f) }' "$log"
done
# chess: the FENs the unit tests use; SAN after 0 moves of each start; each
# PGN game alone (a blank line then a tag starts the next) and small files whole
grep -oh '"[^"]*/[^"]*/[^"]*"' tests/unit/chess_perft.c tests/unit/chess_rules.c | tr -d '"' |
	awk -v d="$OUT/seeds/fen" '{ f = sprintf("%s/fen-%03d", d, NR); printf "%s", $0 > f; close(f) }'
i=0
for m in Nf3 e4 O-O 0-0-0 exd8=Q+ e8Q Raf1 N4d5 cxd3 Qa1b2 e2e4 e7e8q e1g1 Kg1 Nf3!? ; do
	for s in 0 1 3 6 7 8 9; do
		i=$((i + 1))
		{ printf "\\$(printf %03o "$s")\\000"; printf '%s' "$m"; } >$OUT/seeds/san/san-$i
	done
done
for f in tests/data/pgn/*/*.pgn; do
	[ "$(wc -c <"$f")" -lt 16384 ] && cp "$f" $OUT/seeds/pgn/
	awk -v d="$OUT/seeds/pgn" -v n="$(basename "$f" .pgn)" '
		BEGIN { g = 1 } /^\[/ && blank { g++ } { blank = ($0 ~ /^\r?$/) }
		g <= 6 { f = sprintf("%s/%s-%02d", d, n, g); print >> f; close(f) }' "$f"
done
# maps: none, one naming everything, one with every kind of source; each
# then a NUL and a game or two
i=0
for map in '' \
	'{"kind":"cohort.pgn-map/1","model":"White","family":"f","condition":{"tag":"Event"},"block":{"every":2},"anchor.time_s":[{"tag":"TimeControl"},1],"anchor.elo":[{"tag":"{anchor}Elo"},3000],"started_at":[{"tag":"GameStartTime"},"2020-01-01T00:00:00Z"],"ended_at":"2020-01-01T00:00:00Z","tokens":{"value":{"input":0,"output":0,"reasoning":0,"cached":0}},"wall_s":[{"tag":"GameDuration"},0],"worker_hours":0,"requests":{"value":[]}}' \
	'{"kind":"cohort.pgn-map/1","model":[{"name":"Stock*"},{"tag":"Side"},"Black"],"game_id":{"format":"{file}-{game}-{tag:Round}"},"extra":{"value":{"anchor":{"x":1}}}}'; do
	for g in $OUT/seeds/pgn/TCEC_Cup_9_Final-01 $OUT/seeds/pgn/molinari-bordais-1979-01 \
		$OUT/seeds/pgn/uci-moves-01; do
		i=$((i + 1))
		{ printf '%s' "$map"; printf '\000'; cat "$g"; } >$OUT/seeds/pgnmap/seed-$i
	done
done

status=0
for t in $targets; do
	case $t in
	json) maxlen=4096 ;;
	canon) maxlen=4096 ;;
	rec) maxlen=8192 ;;
	decision) maxlen=8192 ;;
	ledger) maxlen=32768 ;;
	csv) maxlen=8192 ;;
	secret_scan) maxlen=16384 ;;
	secret_rules) maxlen=4096 ;;
	bundle_bag) maxlen=65536 ;;
	fen) maxlen=255 ;;
	san) maxlen=96 ;;
	pgn) maxlen=8192 ;;
	uci) maxlen=4096 ;;
	pgnmap) maxlen=16384 ;;
	*) echo "fuzz: no target $t" >&2; exit 2 ;;
	esac
	bin=$OUT/fuzz_$t
	# shellcheck disable=SC2046
	$CLANG -std=c11 -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64 -O1 -g $SAN \
		-fsanitize=fuzzer $(pkg-config --cflags $PKGS) -o $bin tests/fuzz/fuzz_$t.c $bobjs \
		$(pkg-config --libs $PKGS) -lpthread -lm || exit 2
	log=$OUT/fuzz_$t.log
	echo "fuzz: $t for ${SECONDS_EACH}s (log in $log)" >&2
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$bin -max_total_time="$SECONDS_EACH" -max_len=$maxlen -timeout=10 -rss_limit_mb=2048 \
		-dict=tests/fuzz/$([ $t = canon ] && echo json || echo $t).dict -artifact_prefix=$OUT/crash-$t- -print_final_stats=1 \
		$OUT/corpus/$t $OUT/seeds/$t >$log 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' $log)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' $log)
	units=$(ls $OUT/corpus/$t | wc -l)
	cov=$(grep -o 'cov: [0-9]*' $log | tail -1)
	if [ $rc -ne 0 ]; then
		echo "fuzz: $t: FAILED (status $rc) after ${execs:-?} executions; the report:"
		grep -E 'ERROR|SUMMARY|runtime error|^    #[0-9]' $log | head -30
		ls $OUT/crash-$t-* 2>/dev/null
		status=1
	else
		echo "fuzz: $t: ${execs:-?} executions in ${SECONDS_EACH}s (${speed:-?}/s), $cov, corpus $units inputs, no crash"
	fi
done
exit $status
