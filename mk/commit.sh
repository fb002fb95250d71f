#!/bin/sh
# commit.sh: the source commit cohort is built from, for the bags it makes
# (Bag-Software-Agent) and their RO-Crate metadata.  HEAD's 40 hex digits,
# with "-dirty" when tracked files differ from it; "unknown" outside a git
# clone of cohort itself (a source tarball, or a copy inside another
# project's repository, whose HEAD is not cohort's).
top=$(git rev-parse --show-toplevel 2>/dev/null) &&
	[ "$(cd "$top" && pwd -P)" = "$(pwd -P)" ] &&
	head=$(git rev-parse --verify -q HEAD 2>/dev/null) || { echo unknown; exit 0; }
if git diff-index --quiet HEAD -- 2>/dev/null; then
	echo "$head"
else
	echo "$head-dirty"
fi
