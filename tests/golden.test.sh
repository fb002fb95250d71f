# golden.test.sh: every case in golden/, run one way.  A case is a folder:
#   cmd      the command: a shell script run by sh in the project's top
#            folder, with cohort on PATH, $OUT a scratch folder of the
#            case's own and $BUILD the build folder;
#   stdin    its standard input (without one, /dev/null);
#   stdout, stderr, status   what it must write and exit with, byte for byte;
#   files/   files it must leave under $OUT, byte for byte;
# anything else in the folder is the case's input.  Every case has all of
# stdout, stderr and status: one missing is a failure, not a pass.  A
# tampered copy of a case must fail.
# The cases run cohort-golden: cohort built with the source commit "test"
# (cmd/module.mk), since every bag records the commit its cohort was built
# from, and a golden file cannot hold the commit of the tree that holds it.
# tests/bundle.test.sh checks that the two builds differ in nothing else.
mkdir -p bin golden
ln -sf "$BUILD/tests/cohort-golden" bin/cohort
[ -x "$BUILD/tests/cohort-golden" ] || notok "golden: the build has tests/cohort-golden" "make build makes it"

# golden_case DIR NAME: run the case in DIR, reporting under NAME.
golden_case() {
	_g=$1 _name=$2 _out=$TMP/golden/$2
	rm -rf "$_out" && mkdir -p "$_out"
	_in=/dev/null
	[ -f "$_g/stdin" ] && _in=$_g/stdin
	(cd "$ROOT" && OUT=$_out PATH="$TMP/bin:$PATH" sh "$_g/cmd" <"$_in" >"$_out.stdout" 2>"$_out.stderr"
		echo $? >"$_out.status")
	for _f in stdout stderr status; do
		if [ -f "$_g/$_f" ]; then
			same_bytes "golden $_name: $_f" "$_out.$_f" "$_g/$_f"
		else
			notok "golden $_name: $_f" "no golden/$_name/$_f (the program gives: $(head -c 200 "$_out.$_f"))"
		fi
	done
	if [ -d "$_g/files" ]; then
		(cd "$_g/files" && find . -type f | LC_ALL=C sort) >"$_out.files"
		while IFS= read -r _f; do
			_f=${_f#./}
			same_bytes "golden $_name: $_f" "$_out/$_f" "$_g/files/$_f"
		done <"$_out.files"
	fi
}

for g in "$ROOT"/golden/*/; do
	g=${g%/}
	golden_case "$g" "$(basename "$g")"
done

# The runner itself: a case whose expected stdout, stderr or status is
# changed by one byte must fail on that file alone.
for f in stdout stderr status; do
	rm -rf tampered && cp -r "$ROOT/golden/bundle-refusal" tampered
	printf 'x' >>"tampered/$f"
	golden_case "$TMP/tampered" tampered >tampered.out
	if grep -q "^not ok golden tampered: $f:" tampered.out && [ "$(grep -c '^not ok' tampered.out)" = 1 ]; then
		ok "golden: a tampered expected $f fails"
	else
		notok "golden: a tampered expected $f fails" "$(cat tampered.out)"
	fi
done
