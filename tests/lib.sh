# lib.sh: helpers shared by the test scripts; sourced by tests/run.sh.
# Each check prints "ok NAME" or "not ok NAME: why"; run.sh counts them.
# $COHORT is the program under test, $TMP a scratch folder removed at exit,
# $ROOT the project's top folder, $BUILD the build folder.

ok() { echo "ok $1"; }

# patience SECONDS: a time limit for `timeout` that only catches a hang,
# never a claim of speed (speed is measured in bench/): SECONDS, five
# times that under the sanitizers (COHORT_SANITIZED), times
# COHORT_TEST_SLACK when it is set (a slow or crowded machine).  Give
# SECONDS far above what the command takes on a loaded machine.
patience() {
	awk -v s="$1" -v z="${COHORT_SANITIZED:+5}" -v k="${COHORT_TEST_SLACK:-1}" \
		'BEGIN { printf "%d", s * (z == "" ? 1 : z) * k }'
}
notok() { echo "not ok $1: $2"; }

# stop_at_map PATH CMD...: run CMD in the background (its pid in $!) with
# tests/unit/stop_at_map.so preloaded: once CMD has mapped a file whose
# absolute path ends with PATH it stops itself.  stopped_wait PID then
# waits until it has (or has ended): the test cuts the file and sends
# SIGCONT, so the cut falls while the file is mapped however busy the
# machine.
stop_at_map() {
	_sf=$1
	shift
	LD_PRELOAD=$BUILD/tests/unit/stop_at_map.so COHORT_TEST_STOP_AT_MAP=$_sf \
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 "$@" &
}
stopped_wait() {
	_si=0 _sn=$(($(patience 120) * 20))
	while [ $_si -lt $_sn ] && kill -0 "$1" 2>/dev/null; do
		case $(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1) in T | t) return 0 ;; esac
		sleep 0.05
		_si=$((_si + 1))
	done
	return 1
}

# expect_status NAME WANT CMD...: run CMD, check its exit status.
expect_status() {
	_name=$1 _want=$2
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	_got=$?
	if [ "$_got" = "$_want" ]; then ok "$_name"; else
		notok "$_name" "exit $_got, want $_want; stderr: $(head -c 300 "$TMP/err")"
	fi
}

# expect_fail2 NAME PATTERN CMD...: exit 2, stderr matches PATTERN (grep -E),
# and stdout is empty.
expect_fail2() {
	_name=$1 _pat=$2
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	_got=$?
	if [ "$_got" != 2 ]; then
		notok "$_name" "exit $_got, want 2; stderr: $(head -c 300 "$TMP/err")"
	elif ! grep -Eq -- "$_pat" "$TMP/err"; then
		notok "$_name" "stderr does not match /$_pat/: $(head -c 300 "$TMP/err")"
	elif [ -s "$TMP/out" ]; then
		notok "$_name" "wrote to stdout on error"
	else ok "$_name"; fi
}

# same_bytes NAME FILE1 FILE2
same_bytes() {
	if cmp -s "$2" "$3"; then ok "$1"; else notok "$1" "$2 and $3 differ: $(diff "$2" "$3" | head -5)"; fi
}

# check NAME CMD...: ok when CMD exits 0.
check() {
	_name=$1
	shift
	if "$@" >"$TMP/chk" 2>&1; then ok "$_name"; else notok "$_name" "$(head -c 300 "$TMP/chk")"; fi
}

# luna_evidence DIR: the Luna example frozen (with its store), fitted and
# bounded in DIR, beside its harness repository, made with fixed names and
# dates so that its commit is the one DIR/bundle.json names.
luna_evidence() {
	mkdir -p "$1"
	cp -r "$ROOT/examples/luna/." "$1/"
	(
		cd "$1" || exit 1
		"$COHORT" freeze --spec spec.json --store store -o freeze.json ledger.jsonl || exit 1
		"$COHORT" fit -o fit.json freeze.json || exit 1
		"$COHORT" bound -o bound.json freeze.json || exit 1
		mkdir -p harness/prompts
		cp prompts/system.txt prompts/tools.json harness/prompts/
		cd harness && git init -q . && git add prompts &&
			GIT_AUTHOR_NAME="Luna harness" GIT_AUTHOR_EMAIL="harness@example.org" \
			GIT_AUTHOR_DATE="2026-06-20T00:00:00Z" GIT_COMMITTER_NAME="Luna harness" \
			GIT_COMMITTER_EMAIL="harness@example.org" GIT_COMMITTER_DATE="2026-06-20T00:00:00Z" \
			git -c commit.gpgsign=false -c user.useConfigOnly=false commit -q -m "Harness prompts and tool schema"
	) >/dev/null 2>&1
}
