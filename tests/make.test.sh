# make.test.sh: `make`, `make all` and `make build` never install: with a
# package missing they print the apt-get line and fail, and apt-get is
# not run (a stand-in on PATH would notice); `make deps` is what installs.
mkdir -p fakebin
printf '#!/bin/sh\necho "$@" >>"%s/apt-get.ran"\nexit 0\n' "$TMP" >fakebin/apt-get
chmod +x fakebin/apt-get
for t in all build; do
	rm -f apt-get.ran
	(cd "$ROOT" && PKG_CONFIG_LIBDIR=/nonexistent PATH="$TMP/fakebin:$PATH" \
		make -s --no-print-directory BUILD="$TMP/nobuild" $t) >make.out 2>&1
	rc=$?
	if [ $rc != 0 ] && grep -q '^  apt-get install -y.* libgsl-dev' make.out && [ ! -e apt-get.ran ] &&
	    [ ! -e "$TMP/nobuild" ]; then
		ok "make $t with a package missing: the apt-get line, a failure, nothing installed or built"
	else
		notok "make $t with a package missing" "exit $rc, apt-get ran: $(cat apt-get.ran 2>/dev/null); $(head -c 300 make.out)"
	fi
done
(cd "$ROOT" && make -n deps demo test 2>/dev/null) >make-n.out
if grep -q '^sh mk/deps.sh build$' make-n.out && grep -q '^sh mk/deps.sh test$' make-n.out; then
	ok "make deps, demo and test install what is missing"
else
	notok "make deps, demo and test install" "$(head -c 300 make-n.out)"
fi
# plain `make` is `make all`: it builds cohort (the modules' own rules,
# included first, are not the default goal)
(cd "$ROOT" && make -n --no-print-directory BUILD="$TMP/plain" 2>/dev/null) >make-plain.out
grep -q -- "-o $TMP/plain/cohort " make-plain.out && ok "plain make builds cohort" ||
	notok "plain make builds cohort" "$(head -c 300 make-plain.out)"
