# bagit.test.sh: BagIt validation (bagit/bag.c) against the Library of
# Congress conformance suite, as folders and as archives, and archives that
# must be refused before anything is trusted.
B=$BUILD/tests/unit/bundle_bag
D=$ROOT/tests/data/bagit-conformance

# The suite's rules: valid bags pass, invalid and linux-only ones fail (with
# their reason), warning bags may go either way, windows-only ones are skipped.
nvalid=0 ninvalid=0 nwarn=0
for dir in "$D"/v*/valid "$D"/v*/invalid "$D"/v*/linux-only "$D"/v*/warning; do
	cat=$(basename "$dir")
	for bag in "$dir"/*/; do
		name=$(basename "$bag")
		(cd "$dir" && "$B" "$name") >bag.out 2>&1
		rc=$?
		case $cat in
		valid)
			nvalid=$((nvalid + 1))
			[ $rc = 0 ] || notok "valid ${dir#$D/}/$name" "exit $rc: $(cat bag.out)" ;;
		invalid | linux-only)
			ninvalid=$((ninvalid + 1))
			if [ $rc != 1 ] || ! grep -q '^  ' bag.out; then
				notok "invalid ${dir#$D/}/$name" "exit $rc, no reason: $(cat bag.out)"
			fi ;;
		warning)
			nwarn=$((nwarn + 1))
			[ $rc -le 1 ] || notok "warning ${dir#$D/}/$name" "exit $rc: $(cat bag.out)" ;;
		esac
	done
done
[ $nvalid = 27 ] && ok "27 valid bags pass" || notok "valid bag count" "$nvalid"
[ $ninvalid = 21 ] && ok "21 invalid and linux-only bags fail with a reason" || notok "invalid bag count" "$ninvalid"
[ $nwarn = 6 ] && ok "6 warning bags: no error" || notok "warning bag count" "$nwarn"

# A few reasons, word for word.
reason() { (cd "$D/$1" && "$B" "$2") 2>&1 | grep -q -- "$3" && ok "reason: $2" || notok "reason: $2" "$( (cd "$D/$1" && "$B" "$2") 2>&1)"; }
reason v0.97/invalid corrupt-data-file 'payload data/bare-filename: md5 is 9858c54cd2f7e94969daa1e170f37be8, manifest-md5.txt says 751e32179ec8acd71081654527f2e771'
reason v0.97/invalid bom-in-bagit.txt 'byte-order mark'
reason v0.97/invalid extra-file-in-bag 'data/bar: in the payload but not listed in manifest-md5.txt'
reason v0.97/invalid invalid-version-number 'BagIt-Version ".97" is not M.N'
reason v0.97/invalid missing-bagit.txt 'bagit.txt is missing'
reason v0.97/invalid same-filename-listed-twice-with-different-hashes '"data/README" is listed twice'
reason v0.97/invalid out-of-scope-file-paths-using-dot-notation-for-fetch 'path escapes the bag'
reason v0.97/linux-only out-of-scope-file-paths-using-absolute-path 'absolute path'
reason v0.97/linux-only out-of-scope-file-paths-using-shortcut '"~/foo": path outside the bag'
reason v1.0/invalid notAllManifestsListAllFiles 'not listed in manifest-sha512.txt'
reason v1.0/invalid bagit-with-invalid-whitespace 'expected exactly the lines'

# The same bags as archives (one top folder, as RFC 8493 serializes them).
fails=
for bag in "$D"/v*/valid/*/; do
	name=$(basename "$bag")
	tar -C "$(dirname "$bag")" -cf "a-$name.tar" "$name" && "$B" "a-$name.tar" >/dev/null 2>&1 || fails="$fails $name"
done
[ -z "$fails" ] && ok "valid bags pass as tar archives" || notok "valid bags as archives" "$fails"
tar -C "$D/v0.97/invalid" -czf corrupt.tgz corrupt-data-file
"$B" corrupt.tgz >out 2>&1
[ $? = 1 ] && grep -q 'md5 is 9858c54c' out && ok "corrupt bag as .tgz: finding" || notok "corrupt bag as .tgz" "$(cat out)"

# Archives that are refused before anything is written or trusted.
mkdir -p evil scratch && cd evil
TMPDIR=$TMP/scratch
export TMPDIR
/usr/bin/python3 - <<'PY'
import io, tarfile
def bag(name, extra):
    with tarfile.open(name, "w", format=tarfile.PAX_FORMAT) as t:
        def add(n, data=b"x", **kw):
            i = tarfile.TarInfo(n)
            for k, v in kw.items():
                setattr(i, k, v)
            i.size = len(data) if i.type == tarfile.REGTYPE else 0
            t.addfile(i, io.BytesIO(data) if i.type == tarfile.REGTYPE else None)
        add("b/bagit.txt", b"BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n")
        extra(add)
bag("dotdot.tar", lambda add: add("../x"))
bag("dotdot2.tar", lambda add: add("b/data/../../x"))
bag("abs.tar", lambda add: add("/tmp/cohort-evil-x"))
bag("symlink.tar", lambda add: add("b/data/l", type=tarfile.SYMTYPE, linkname="/etc/passwd"))
bag("hardlink.tar", lambda add: add("b/data/h", type=tarfile.LNKTYPE, linkname="b/bagit.txt"))
bag("device.tar", lambda add: add("b/data/d", type=tarfile.CHRTYPE, devmajor=1, devminor=3))
bag("fifo.tar", lambda add: add("b/data/f", type=tarfile.FIFOTYPE))
bag("twice.tar", lambda add: (add("b/data/t"), add("b/data/t", b"y")))
bag("outside.tar", lambda add: add("stray.txt"))
PY
cd ..
for case in "dotdot:entry \"../x\": path escapes the bag" "dotdot2:path escapes the bag" \
	"abs:absolute path" "symlink:symbolic link not allowed" "hardlink:hard link not allowed" \
	"device:special file not allowed" "fifo:special file not allowed" "twice:appears twice"; do
	f=${case%%:*} want=${case#*:}
	"$B" "evil/$f.tar" >out 2>&1
	rc=$?
	if [ $rc = 2 ] && grep -q -- "$want" out; then ok "archive $f refused (exit 2)"; else notok "archive $f refused" "exit $rc: $(cat out)"; fi
done
"$B" evil/outside.tar >out 2>&1
[ $? = 1 ] && grep -q 'path stray.txt: the archive holds this entry outside the bag' out &&
	ok "an entry beside the bag's folder: exit 1, named" || notok "entry outside the bag" "$(cat out)"
[ -e x ] || [ -e ../x ] || [ -e /tmp/cohort-evil-x ] && notok "nothing written outside" "found x" || ok "nothing written outside"
[ -z "$(ls scratch)" ] && ok "no temporary folder left behind" || notok "temporary folders" "$(ls scratch)"
unset TMPDIR
