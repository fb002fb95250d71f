# sign.test.sh: cohort sign and cohort verify --pubkey against Debian's
# minisign, both ways: keys, encrypted keys, signatures byte for byte, and
# every way a signature can fail (exit 1, one line) or a key be malformed
# (exit 2).  BLAKE2b is checked against python's hashlib.
PY=/usr/bin/python3
U=$BUILD/tests/unit
MS=$(command -v minisign 2>/dev/null)
if [ -z "$MS" ]; then
	notok "minisign installed" "not found; run: sh mk/deps.sh test"
	MS=false
fi

# ---- BLAKE2b against hashlib ----
head -c 70000 /dev/urandom >rand.bin
: >empty.bin
for spec in "64:rand.bin" "32:rand.bin" "64:empty.bin" "1:rand.bin"; do
	len=${spec%%:*} f=${spec#*:}
	want=$($PY -c "import hashlib, sys; print(hashlib.blake2b(open(sys.argv[1], 'rb').read(), digest_size=$len).hexdigest())" "$f")
	got=$("$U/blake2b_check" "$len" "$f")
	[ "$want" = "$got" ] && ok "blake2b-$((len * 8)) of $f as hashlib gives it" ||
		notok "blake2b-$((len * 8)) of $f" "$got, want $want"
done

# ---- cohort's keys ----
expect_status "sign: a new key pair" 0 sh -c 'umask 022 && exec "$0" "$@"' "$COHORT" sign --generate -p c.pub -s c.key
[ -s "$TMP/out" ] || [ -s "$TMP/err" ] && notok "sign: --generate prints nothing" "$(cat "$TMP/out" "$TMP/err")" ||
	ok "sign: --generate prints nothing"
[ "$(stat -c %a c.key)" = 600 ] && [ "$(stat -c %a c.pub)" = 644 ] && ok "sign: the secret key is 0600, the public 0644 (umask 022)" ||
	notok "sign: key modes" "$(stat -c '%n %a' c.key c.pub)"
(umask 077 && "$COHORT" sign --generate -p u.pub -s u.key) && [ "$(stat -c %a u.pub)" = 600 ] &&
	ok "sign: the public key honours the umask (077: 0600)" || notok "sign: umask 077" "$(stat -c '%n %a' u.pub)"
rm -f u.pub u.key
cp c.key c.key.before
expect_fail2 "sign: an existing key is never overwritten" 'c\.key exists' "$COHORT" sign --generate -p other.pub -s c.key
same_bytes "sign: ... and is left as it was" c.key c.key.before
[ -e other.pub ] && notok "sign: ... nor its public key written" "other.pub exists" || ok "sign: ... nor its public key written"

cp "$ROOT/examples/luna/ledger.jsonl" ledger.jsonl
expect_status "sign: cohort signs" 0 "$COHORT" sign -s c.key -t "luna ledger" ledger.jsonl
if "$MS" -V -p c.pub -m ledger.jsonl >ms.out 2>&1 && grep -qx 'Trusted comment: luna ledger' ms.out; then
	ok "sign: minisign -V verifies cohort's signature and its trusted comment"
else notok "sign: minisign -V verifies cohort's signature" "$(cat ms.out)"; fi
expect_status "verify: cohort verifies its own" 0 "$COHORT" verify --pubkey c.pub ledger.jsonl
grep -q "^ledger.jsonl: signature by key [0-9A-F]\{16\} holds; trusted comment: luna ledger$" "$TMP/out" &&
	ok "verify: one line names the key and the trusted comment" || notok "verify: the line" "$(cat "$TMP/out")"
id=$(sed -n 's/^untrusted comment: minisign public key //p' c.pub)
grep -q "key $id holds" "$TMP/out" && ok "verify: the key id as minisign prints it" || notok "verify: key id" "$id: $(cat "$TMP/out")"
# the default trusted comment is minisign's
"$COHORT" sign -s c.key -x default.sig ledger.jsonl
sed -n 3p default.sig | grep -q "^trusted comment: timestamp:[0-9]*	file:ledger.jsonl	hashed$" &&
	ok "sign: the default trusted comment is minisign's" || notok "sign: default comment" "$(sed -n 3p default.sig)"

# ---- minisign's keys ----
"$MS" -G -W -p m.pub -s m.key >/dev/null 2>&1
"$MS" -S -s m.key -m ledger.jsonl -x m.sig -c "from minisign" -t "the same comment" >/dev/null 2>&1
expect_status "verify: cohort verifies minisign's signature" 0 "$COHORT" verify --pubkey m.pub -x m.sig ledger.jsonl
"$MS" -S -l -s m.key -m ledger.jsonl -x legacy.sig >/dev/null 2>&1
sed -n 2p legacy.sig | base64 -d 2>/dev/null | head -c 2 | grep -qx Ed && ok "sign: minisign -l writes a legacy signature (Ed)" ||
	notok "sign: minisign -l writes a legacy signature" "$(sed -n 2p legacy.sig)"
expect_status "verify: ... and its legacy (not prehashed) one" 0 "$COHORT" verify --pubkey m.pub -x legacy.sig ledger.jsonl
expect_status "sign: cohort signs with minisign's secret key" 0 "$COHORT" sign -s m.key -t "the same comment" -x c-with-m.sig ledger.jsonl
sed 1d m.sig >a.txt
sed 1d c-with-m.sig >b.txt
same_bytes "sign: the same key, file and comment give minisign's bytes" a.txt b.txt

# ---- signatures that do not hold: exit 1, one line; minisign agrees ----
fails1() { # NAME PATTERN SIG FILE [PUB]
	"$COHORT" verify --pubkey "${5:-c.pub}" -x "$3" "$4" >out.txt 2>err.txt
	rc=$?
	if [ $rc != 1 ] || [ -s out.txt ] || [ "$(grep -c '' err.txt)" != 1 ] || ! grep -Eq -- "$2" err.txt; then
		notok "$1" "exit $rc, stdout $(head -c 100 out.txt), stderr $(cat err.txt)"
	elif "$MS" -V -p "${5:-c.pub}" -x "$3" -m "$4" >/dev/null 2>&1; then
		notok "$1" "minisign accepts it"
	else ok "$1"; fi
}
cp ledger.jsonl.minisig good.sig
# minisign prints a key id without its leading zeros; cohort prints all 16 digits
mid=$(sed -n 's/^untrusted comment: minisign public key //p' m.pub | awk '{ while (length($0) < 16) $0 = "0" $0; print }')
fails1 "verify: another key: exit 1 naming both ids" "signed by key $id, not by this key \\($mid\\)" good.sig ledger.jsonl m.pub
cp ledger.jsonl changed.jsonl
printf 'x' >>changed.jsonl
fails1 "verify: a changed file" "the signature does not hold" good.sig changed.jsonl
sed '3s/luna ledger/luna ledger (edited)/' good.sig >comment.sig
fails1 "verify: a changed trusted comment" "the trusted comment was changed" comment.sig ledger.jsonl
head -n 2 good.sig >trunc2.sig
fails1 "verify: a signature cut after two lines" "truncated" trunc2.sig ledger.jsonl
head -c 150 good.sig >trunc.sig
fails1 "verify: a signature cut inside its second line" "not a signature" trunc.sig ledger.jsonl
head -n 3 good.sig >trunc3.sig
sed -n 4p good.sig | cut -c1-40 >>trunc3.sig
fails1 "verify: a global signature cut short" "truncated" trunc3.sig ledger.jsonl
# one bit of the signature itself (base64 character 20 of line 2)
awk 'NR == 2 { c = substr($0, 20, 1); $0 = substr($0, 1, 19) (c == "A" ? "B" : "A") substr($0, 21) } 1' good.sig >flip.sig
fails1 "verify: a changed signature" "does not hold|signed by key" flip.sig ledger.jsonl
: >empty.sig
fails1 "verify: an empty signature file" "not a signature" empty.sig ledger.jsonl

# ---- malformed keys: exit 2 ----
expect_fail2 "verify: a public key file of one line" 'bad\.pub: not a minisign public key: expected 2 lines' \
	sh -c "head -n 1 c.pub >bad.pub; exec \"$COHORT\" verify --pubkey bad.pub ledger.jsonl"
expect_fail2 "verify: a public key that is not base64" 'bad2\.pub:2: not a minisign public key' \
	sh -c "sed '2s/^..../!!!!/' c.pub >bad2.pub; exec \"$COHORT\" verify --pubkey bad2.pub ledger.jsonl"
expect_fail2 "verify: a secret key given as the public key" 'c\.key:2: not a minisign public key' \
	"$COHORT" verify --pubkey c.key ledger.jsonl
# a flipped byte inside the secret key (its checksum), from python
$PY - c.key bad.key <<'PYEOF'
import base64, sys
lines = open(sys.argv[1]).read().split("\n")
raw = bytearray(base64.b64decode(lines[1]))
raw[60] ^= 1
lines[1] = base64.b64encode(bytes(raw)).decode()
open(sys.argv[2], "w").write("\n".join(lines))
PYEOF
expect_fail2 "sign: a secret key whose checksum does not hold" "bad\\.key:2: the secret key's checksum does not hold" \
	"$COHORT" sign -s bad.key -x never.sig ledger.jsonl
[ -e never.sig ] && notok "sign: a refused key writes no signature" "never.sig exists" || ok "sign: a refused key writes no signature"
expect_fail2 "sign: a public key given as the secret key" 'c\.pub:2: not a minisign secret key' \
	"$COHORT" sign -s c.pub -x never.sig ledger.jsonl

# ---- encrypted keys ----
# python encrypts cohort's key at small scrypt limits as minisign does: the
# limits turned into N, r, p as libsodium's pickparams turns them, then
# the last 104 bytes XORed with the scrypt stream (one set in each of its
# two branches)
cat >seal.py <<'PYEOF'
import base64, hashlib, os, struct, sys
src, dst, pw, ops, mem = sys.argv[1], sys.argv[2], sys.argv[3].encode(), int(sys.argv[4]), int(sys.argv[5])
lines = open(src).read().split("\n")
raw = bytearray(base64.b64decode(lines[1]))
assert raw[2:4] == b"\0\0"
def params(ops, mem):
    ops = max(ops, 32768)
    r = 8
    if ops < mem // 32:
        maxn, p = ops // (r * 4), 1
    else:
        maxn = mem // (r * 128)
    n = 1
    while n < 63 and not (1 << n) > maxn // 2:
        n += 1
    if not ops < mem // 32:
        p = min((ops // 4) // (1 << n), 0x3fffffff) // r
    return 1 << n, r, p
N, r, p = params(ops, mem)
salt = os.urandom(32)
stream = hashlib.scrypt(pw, salt=salt, n=N, r=r, p=p, maxmem=256 << 20, dklen=104)
raw[2:4] = b"Sc"
raw[6:38] = salt
raw[38:54] = struct.pack("<QQ", ops, mem)
raw[54:] = bytes(a ^ b for a, b in zip(raw[54:], stream))
lines[1] = base64.b64encode(bytes(raw)).decode()
open(dst, "w").write("\n".join(lines))
print(N, r, p)
PYEOF
printf 'correct horse\n' >pw
printf 'wrong horse\n' >badpw
for lim in "524288 16777216 16384,8,1" "65536 16777216 2048,8,1"; do
	set -- $lim
	nrp=$($PY seal.py c.key lo.key "correct horse" "$1" "$2" | tr ' ' ,)
	[ "$nrp" = "$3" ] || notok "sign: scrypt parameters for $1 $2" "$nrp, want $3"
	printf 'correct horse\n' | "$MS" -S -s lo.key -m ledger.jsonl -x lo-ms.sig -t "ms $1" >/dev/null 2>&1
	expect_status "sign: minisign opens a key encrypted at opslimit $1, memlimit $2 (N,r,p $nrp)" 0 \
		"$COHORT" verify --pubkey c.pub -x lo-ms.sig ledger.jsonl
	expect_status "sign: ... and so does cohort" 0 "$COHORT" sign -s lo.key --password-file pw -x lo-c.sig ledger.jsonl
	"$MS" -V -p c.pub -x lo-c.sig -m ledger.jsonl >/dev/null 2>&1 && ok "sign: ... minisign verifies what it signed" ||
		notok "sign: ... minisign verifies what it signed" "minisign -V failed"
done
expect_fail2 "sign: a wrong password" 'lo\.key: wrong password for this key' \
	"$COHORT" sign -s lo.key --password-file badpw -x never.sig ledger.jsonl
expect_fail2 "sign: an encrypted key without a password" 'lo\.key: the key is encrypted: give its password' \
	"$COHORT" sign -s lo.key -x never.sig ledger.jsonl
[ -e never.sig ] && notok "sign: ... no signature written" "never.sig exists" || ok "sign: ... no signature written"

# at minisign's own limits (1 GiB of scrypt memory each time), once each way
expect_status "sign: a new encrypted key pair" 0 "$COHORT" sign --generate --password-file pw -p e.pub -s e.key
$PY -c 'import base64, struct, sys
raw = base64.b64decode(open(sys.argv[1]).read().split("\n")[1])
print(raw[2:4].decode(), *struct.unpack("<QQ", raw[38:54]))' e.key >lim.txt
[ "$(cat lim.txt)" = "Sc 33554432 1073741824" ] && ok "sign: ... scrypt at minisign's sensitive limits" ||
	notok "sign: ... scrypt at minisign's limits" "$(cat lim.txt)"
grep -q "$(sed -n 2p e.key | cut -c1-40)" "$TMP/out" "$TMP/err" && notok "sign: ... the key is not printed" "it is" ||
	ok "sign: ... the key is not printed"
printf 'correct horse\n' | "$MS" -S -s e.key -m ledger.jsonl -x e-ms.sig >/dev/null 2>&1
expect_status "sign: minisign signs with cohort's encrypted key" 0 "$COHORT" verify --pubkey e.pub -x e-ms.sig ledger.jsonl
printf 'correct horse\ncorrect horse\n' | "$MS" -G -p me.pub -s me.key >/dev/null 2>&1
expect_status "sign: cohort signs with minisign's encrypted key" 0 "$COHORT" sign -s me.key --password-file pw -x me-c.sig ledger.jsonl
"$MS" -V -p me.pub -x me-c.sig -m ledger.jsonl >/dev/null 2>&1 && ok "sign: ... and minisign verifies it" ||
	notok "sign: ... and minisign verifies it" "minisign -V failed"

# ---- cohort bundle --sign ----
luna_evidence luna
expect_status "bundle --sign: the archive and its signature" 0 "$COHORT" bundle --spec luna/bundle.json --sign c.key -o luna.tar
bid=$(cat "$TMP/out")
sed -n 3p luna.tar.minisig | grep -qx "trusted comment: cohort bundle $bid	file:luna.tar" &&
	ok "bundle --sign: the trusted comment names the identity printed" ||
	notok "bundle --sign: the trusted comment" "$(sed -n 3p luna.tar.minisig), id $bid"
"$MS" -V -p c.pub -m luna.tar >/dev/null 2>&1 && ok "bundle --sign: minisign verifies the archive" ||
	notok "bundle --sign: minisign verifies the archive" "minisign -V failed"
expect_status "bundle --sign: cohort verify --pubkey holds" 0 "$COHORT" verify --pubkey c.pub luna.tar
expect_status "bundle --sign: the archive still verifies as a bundle" 0 "$COHORT" verify luna.tar
cp luna.tar.minisig first.minisig
"$COHORT" bundle --spec luna/bundle.json --sign c.key -o luna.tar >/dev/null 2>&1
same_bytes "bundle --sign: a second run signs the same bytes" first.minisig luna.tar.minisig
expect_fail2 "bundle --sign: a malformed key writes no archive" 'bad\.key:2: the secret key' \
	"$COHORT" bundle --spec luna/bundle.json --sign bad.key -o never.tar
[ -e never.tar ] || [ -e never.tar.minisig ] && notok "bundle --sign: ... none at all" "$(ls never.tar*)" ||
	ok "bundle --sign: ... none at all"
expect_fail2 "bundle --sign: needs -o" '--sign needs -o ARCHIVE' "$COHORT" bundle --spec luna/bundle.json --sign c.key
expect_fail2 "bundle --sign: not with --check" 'cannot go together|--check' "$COHORT" bundle --spec luna/bundle.json --sign c.key --check
