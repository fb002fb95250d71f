# extract.test.sh: extracting an archive is bounded by limits of cohort's
# own, not the archive's (bagit/bag.h): a compressed stream that expands
# past BAG_MAX_RATIO times what was read of it, more than half the space
# free in TMPDIR, or more than BAG_MAX_EXTRACT bytes in all are refused
# (exit 2) before the bytes past the limit are written, whatever the
# archive's Payload-Oxum declares.  The bombs are bags whose every digest
# and Payload-Oxum are true (tests/bagtool.py bomb).
PY=/usr/bin/python3
BT="$PY $ROOT/tests/bagtool.py"
MiB=1048576
ratio='the archive expands to more than 100 times its compressed size \([0-9]+ bytes from [0-9]+\): refused before writing more of it'

# written DIR CMD...: CMD run with TMPDIR=DIR, its output in w.out and
# w.err; prints its exit status and the bytes it wrote to disk (the blocks
# getrusage counts as pages are written, before any write-back).
written() {
	$PY - "$@" <<'PY'
import os, resource, subprocess, sys
with open("w.out", "wb") as o, open("w.err", "wb") as e:
    rc = subprocess.call(sys.argv[2:], env=dict(os.environ, TMPDIR=sys.argv[1]), stdout=o, stderr=e)
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_oublock * 512)
PY
}

# in_tmpfs SIZE CMD...: CMD run with TMPDIR a tmpfs of SIZE of its own (a
# mount namespace: as root, or as a user namespace's root), its output in
# fs.out and fs.err; its exit status, 125 when no such mount can be made.
mkdir -p fs
mounts=
for u in "unshare -m" "unshare -rm"; do
	if $u sh -c 'mount -t tmpfs -o size=1m tmpfs "$1"' - "$TMP/fs" 2>/dev/null; then
		mounts=$u
		break
	fi
done
in_tmpfs() {
	[ -n "$mounts" ] || return 125
	_size=$1
	shift
	$mounts sh -c 'mount -t tmpfs -o size="$1" tmpfs "$2" || exit 125; d=$2; shift 2;
		TMPDIR=$d exec "$@"' - "$_size" "$TMP/fs" "$@" >fs.out 2>fs.err
}

# --- the compression-ratio cap ----------------------------------------------

# The measure counts here: a plain tar of 8 MiB of zeros, which verifies,
# writes its 8 MiB.
mkdir -p x
$BT bomb $((8 * MiB)) >plain8.tar
set -- $(written "$TMP/x" "$COHORT" verify plain8.tar)
measured=0
if [ "$1" = 0 ] && [ "$2" -ge $((8 * MiB)) ]; then
	measured=1
	ok "a plain 8 MiB bag verifies, and the bytes it writes are counted ($2)"
elif [ "$1" = 0 ]; then
	echo "skip extract: the file system of $TMP does not count the bytes written ($2 for 8 MiB)"
else
	notok "a plain 8 MiB bag verifies" "exit $1: $(cat w.err)"
fi

# bomb NAME FILE: FILE (a bag declaring 256 MiB of zeros, compressed) is
# refused by the ratio, exit 2, after writing at most the first 64 MiB and
# a block, and leaves nothing in TMPDIR.
bomb() {
	set -- "$1" "$2" $(written "$TMP/x" "$COHORT" verify "$2")
	if [ "$3" != 2 ] || ! grep -Eq "^cohort verify: $2: $ratio" w.err || [ -s w.out ]; then
		notok "$1: refused by the ratio" "exit $3: $(head -c 300 w.err)"
	else
		ok "$1 ($(wc -c <"$2") bytes declaring 256 MiB): refused by the ratio, exit 2"
	fi
	if [ "$measured" = 1 ]; then
		[ "$4" -le $((65 * MiB)) ] && ok "$1: at most 65 MiB written before the refusal ($4 bytes)" ||
			notok "$1: bytes written before the refusal" "$4, want at most $((65 * MiB))"
	fi
	[ -z "$(ls x)" ] && ok "$1: nothing left in TMPDIR" || notok "$1: TMPDIR after the refusal" "$(ls x)"
}
$BT bomb $((256 * MiB)) | zstd -q -c >bomb.tar.zst
bomb "a zstd bomb" bomb.tar.zst
$BT bomb $((256 * MiB)) | gzip -9 -c >bomb.tar.gz
bomb "a gzip bomb" bomb.tar.gz

# report extracts the same way, with the same refusal, and writes no page.
expect_fail2 "report of the gzip bomb: refused by the ratio" "^cohort report: bomb.tar.gz: $ratio" \
	env TMPDIR="$TMP/x" "$COHORT" report -o page.html bomb.tar.gz
[ ! -e page.html ] && ok "report of a bomb writes no page" || notok "report of a bomb" "page.html written"

# The same zeros past the archive's end-of-archive blocks, where only the
# check that the stream is whole reads them: refused by the ratio too.
{ $BT bomb 1000; head -c $((256 * MiB)) /dev/zero; } | zstd -q -c >tail.tar.zst
expect_fail2 "256 MiB of zeros after the end of a small bag: refused by the ratio" \
	"^cohort verify: tail.tar.zst: $ratio" env TMPDIR="$TMP/x" "$COHORT" verify tail.tar.zst

# bag-info.txt at the end, after the zeros: the pass that looks for it
# reads the stream with the same limit.
$BT bomb $((256 * MiB)) late | gzip -1 -c >late.tar.gz
expect_fail2 "bag-info.txt after 256 MiB of zeros: refused by the ratio" \
	"^cohort verify: late.tar.gz: $ratio" env TMPDIR="$TMP/x" "$COHORT" verify late.tar.gz

# A compressed archive that expands less than 100 times verifies: the
# 8 MiB of zeros above, compressed, under the 64 MiB floor.
gzip -9 -c plain8.tar >plain8.tar.gz
expect_status "8 MiB of zeros compressed 1,000 times, under the 64 MiB floor: verifies" 0 \
	env TMPDIR="$TMP/x" "$COHORT" verify plain8.tar.gz

# --- the caps of the space free and of the bytes in all -----------------------

if [ -z "$mounts" ]; then
	echo "skip extract: no mount namespace here (unshare -m): the caps of the free space and of the bytes in all are not tried"
else
	# In a tmpfs of 32 MiB, half is 16 MiB: a plain bag of 12 MiB verifies,
	# one of 20 MiB is refused before its data is written.
	$BT bomb $((12 * MiB)) >b12.tar
	$BT bomb $((20 * MiB)) >b20.tar
	in_tmpfs 32m "$COHORT" verify b12.tar
	rc=$?
	[ $rc = 0 ] && ok "a 12 MiB bag in a tmpfs of 32 MiB verifies" ||
		notok "a 12 MiB bag in a tmpfs of 32 MiB" "exit $rc: $(cat fs.err)"
	in_tmpfs 32m "$COHORT" verify b20.tar
	rc=$?
	[ $rc = 2 ] && grep -Eq "^cohort verify: b20.tar: the archive would write more than 16777216 bytes, half the 33554432 bytes free in $TMP/fs: refused before writing more of it" fs.err &&
		ok "a 20 MiB bag in a tmpfs of 32 MiB: refused, half the space free named (exit 2)" ||
		notok "a 20 MiB bag in a tmpfs of 32 MiB" "exit $rc: $(cat fs.err)"

	# In a tmpfs of a TiB, half is past the cap of 64 GiB: an archive whose
	# entry declares 65 GiB (its bag-info.txt declaring as much) is refused
	# at the entry's header, before a byte of it is written.
	$BT bomb $((65 * 1024 * MiB)) head >cap.tar
	in_tmpfs 1t "$COHORT" verify cap.tar
	rc=$?
	[ $rc = 2 ] && grep -Eq "^cohort verify: cap.tar: the archive would write more than 68719476736 bytes, the most extracted from one archive: refused before writing more of it" fs.err &&
		ok "an entry of 65 GiB in a tmpfs of a TiB: refused by the cap of 64 GiB (exit 2)" ||
		notok "an entry of 65 GiB past the cap" "exit $rc: $(cat fs.err)"
fi
