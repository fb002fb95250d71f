#!/bin/sh
# deps.sh: make sure the build and test dependencies are here.  As root it
# installs what is missing from Debian; otherwise, or with --check, it
# prints the one apt-get line and fails.
# Usage: mk/deps.sh [--check] [build|test|bench|fuzz]
set -u
install=1
if [ "${1:-}" = --check ]; then
	install=0
	shift
fi
want=${1:-build}
pkgs=
missing() { pkgs="$pkgs $1"; }

command -v cc >/dev/null 2>&1 || missing gcc
command -v pkg-config >/dev/null 2>&1 || missing pkg-config
for pair in libcrypto:libssl-dev libarchive:libarchive-dev libcjson:libcjson-dev \
            sqlite3:libsqlite3-dev libgit2:libgit2-dev gsl:libgsl-dev; do
	pc=${pair%%:*}
	deb=${pair#*:}
	if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$pc"; then
		missing "$deb"
	fi
done
if [ "$want" = test ] || [ "$want" = fuzz ]; then
	/usr/bin/python3 -c 'import jsonschema' >/dev/null 2>&1 || missing python3-jsonschema
	# Ed25519 for the tests' own check of DSSE envelopes
	/usr/bin/python3 -c 'import cryptography' >/dev/null 2>&1 || missing python3-cryptography
	# a JSON-LD reader for the tests' own parse of the RO-Crate metadata
	/usr/bin/python3 -c 'import pyld' >/dev/null 2>&1 || missing python3-pyld
	command -v sqlite3 >/dev/null 2>&1 || missing sqlite3
	command -v git >/dev/null 2>&1 || missing git
	command -v zstd >/dev/null 2>&1 || missing zstd
	# stockfish for the engine tests (Debian puts it in /usr/games, often
	# not in PATH); node as an independent ECMAScript number printer
	command -v stockfish >/dev/null 2>&1 || [ -x /usr/games/stockfish ] || missing stockfish
	command -v node >/dev/null 2>&1 || missing nodejs
	# npm installs chess.js (tests/node), a second reader of exported PGN
	command -v npm >/dev/null 2>&1 || missing npm
	# GNU time reads a run's peak memory (canon's bound)
	[ -x /usr/bin/time ] || missing time
	# strace shows that each rename is followed by an fsync of its folder
	command -v strace >/dev/null 2>&1 || missing strace
	# minisign, to check cohort's signatures both ways
	command -v minisign >/dev/null 2>&1 || missing minisign
	# headless Chromium renders the figures and the report as a reader sees them
	command -v chromium >/dev/null 2>&1 || missing chromium
fi
if [ "$want" = bench ]; then
	for tool in jq:jq openssl:openssl sqlite3:sqlite3 zstd:zstd; do
		command -v "${tool%%:*}" >/dev/null 2>&1 || missing "${tool#*:}"
	done
	[ -x /usr/bin/time ] || missing time
fi
if [ "$want" = fuzz ]; then
	command -v clang >/dev/null 2>&1 || missing clang
	ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
		missing libclang-rt-14-dev
fi
[ -z "$pkgs" ] && exit 0
if [ "$install" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "cohort: installing:$pkgs" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2 && apt-get install -y -qq $pkgs >&2 && exit 0
	echo "cohort: apt-get failed" >&2
	exit 1
fi
if [ "$install" = 1 ]; then
	echo "cohort: missing packages; run as root:" >&2
else
	echo "cohort: missing packages; run \`make deps' as root, or:" >&2
fi
echo "  apt-get install -y$pkgs" >&2
exit 1
