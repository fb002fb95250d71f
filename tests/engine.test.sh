# engine.test.sh: the UCI engine driver (engine/), first against
# tests/unit/fake_uci, engines right and wrong on purpose, then against
# Debian's stockfish, which mk/deps.sh test installs.  The checks print
# their own "ok" lines; a check program that fails without saying why, or
# says too little, fails here.

mkdir -p "$TMP/engine"
timeout "$(patience 600)" "$BUILD/tests/unit/engine_check" "$BUILD/tests/unit/fake_uci" "$TMP/engine" "$ROOT/tests/data/uci" >"$TMP/engine.out" 2>&1
rc=$?
cat "$TMP/engine.out"
n=$(grep -c '^ok ' "$TMP/engine.out")
if [ "$rc" = 0 ] && [ "$n" -ge 32 ]; then ok "engine_check: $n cases, exit 0"; else
	notok "engine_check" "exit $rc, $n cases passed: $(grep -v '^ok ' "$TMP/engine.out" | head -c 300)"
fi

SF=$(command -v stockfish 2>/dev/null || echo /usr/games/stockfish)
if [ ! -x "$SF" ]; then
	notok "stockfish installed" "not found in PATH nor /usr/games; run: sh mk/deps.sh test"
else
	timeout "$(patience 600)" "$BUILD/tests/unit/engine_real" check "$SF" >"$TMP/stockfish.out" 2>&1
	rc=$?
	cat "$TMP/stockfish.out"
	n=$(grep -c '^ok ' "$TMP/stockfish.out")
	if [ "$rc" = 0 ] && [ "$n" -ge 5 ]; then ok "engine_real check $SF: exit 0"; else
		notok "engine_real check $SF" "exit $rc: $(grep -v '^ok ' "$TMP/stockfish.out" | head -c 300)"
	fi
fi
