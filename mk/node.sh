#!/bin/sh
# node.sh: the node packages the tests read cohort's output with
# (tests/node/package-lock.json pins them: chess.js), installed into
# build/node by npm ci: from npm's own cache when it holds them (a machine
# that ran this once needs no network), else from the registry.  Nothing
# is done when build/node holds that very lock file's packages.
# Usage: mk/node.sh [--check]   (--check: install nothing, fail if missing)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
dir=$ROOT/build/node
lock=$ROOT/tests/node/package-lock.json
if cmp -s "$lock" "$dir/package-lock.json" 2>/dev/null && [ -f "$dir/node_modules/chess.js/package.json" ]; then
	exit 0
fi
if [ "${1:-}" = --check ]; then
	echo "cohort: the tests' node packages are not installed; run sh mk/node.sh" >&2
	exit 1
fi
if ! command -v npm >/dev/null 2>&1; then
	echo "cohort: npm is missing; run \`make deps' as root, or: apt-get install -y npm" >&2
	exit 1
fi
mkdir -p "$dir" && cp "$ROOT/tests/node/package.json" "$lock" "$dir/" &&
	npm ci --prefix "$dir" --prefer-offline --no-audit --no-fund --loglevel=error >&2 &&
	[ -f "$dir/node_modules/chess.js/package.json" ] && exit 0
echo "cohort: npm ci could not install the tests' node packages (tests/node/package-lock.json)" >&2
exit 1
