#!/bin/sh
# shot.sh FILE PNG [WIDTH HEIGHT]: render an SVG or HTML file in headless
# Chromium to a PNG, twice the pixels of its size (an SVG's own width and
# height unless given), with networking off and a fresh profile.  The
# tests and docs/img/luna-curve.png are made this way.
#      shot.sh --dom FILE: print the DOM after the page's scripts ran.
#      shot.sh --net FILE LOG: load the page, its network log into LOG
#      (Chromium's net-log JSON; tests/netlog.py reads it).
set -u
dom=0
net=
if [ "${1:-}" = --dom ]; then
	dom=1
	shift
elif [ "${1:-}" = --net ]; then
	net=$3
	shift
fi
f=$1
chrome=$(command -v chromium || command -v chromium-browser || echo /usr/bin/chromium)
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
set -- "$@" "" "" "" ""
flags="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
	--disable-background-networking --disable-component-update --disable-sync
	--disable-extensions --disable-default-apps --hide-scrollbars
	--host-resolver-rules=MAP*~NOTFOUND --proxy-server=127.0.0.1:9
	--user-data-dir=$profile"
case $f in /*) url=file://$f ;; *) url=file://$(pwd)/$f ;; esac
if [ -n "$net" ]; then
	case $net in /*) ;; *) net=$(pwd)/$net ;; esac
	# shellcheck disable=SC2086
	timeout 120 "$chrome" $flags --log-net-log="$net" --net-log-capture-mode=Default \
		--virtual-time-budget=2000 --dump-dom "$url" >/dev/null 2>&1
	[ -s "$net" ]
	exit $?
fi
if [ "$dom" = 1 ]; then
	# shellcheck disable=SC2086
	timeout 120 "$chrome" $flags --virtual-time-budget=2000 --dump-dom "$url" 2>/dev/null
	exit $?
fi
png=$2
w=$3 h=$4
if [ -z "$w" ]; then
	w=$(sed -n 's/.*<svg[^>]* width="\([0-9.]*\)" height="\([0-9.]*\)".*/\1/p' "$f" | head -n 1)
	h=$(sed -n 's/.*<svg[^>]* width="\([0-9.]*\)" height="\([0-9.]*\)".*/\2/p' "$f" | head -n 1)
fi
rm -f "$png"
# shellcheck disable=SC2086
timeout 120 "$chrome" $flags --force-device-scale-factor=2 --window-size="${w:-800},${h:-600}" \
	--screenshot="$png" "$url" >/dev/null 2>&1
[ -s "$png" ]
