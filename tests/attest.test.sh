# attest.test.sh: cohort bundle --attest: an in-toto Statement v1 in a DSSE
# envelope.  Python checks it on its own (the envelope, PAE, the Ed25519
# signature with the minisign public key, every subject against the
# archive's files read with tarfile); cohort verify --attestation holds,
# and fails (exit 1, one line) on every forgery python makes, re-signed
# with the right key where the point is the content.
PY=/usr/bin/python3
luna_evidence luna
"$COHORT" sign --generate -p c.pub -s c.key
"$COHORT" sign --generate -p other.pub -s other.key
expect_status "attest: bundle --sign --attest" 0 "$COHORT" bundle --spec luna/bundle.json --sign c.key --attest -o luna.tar
[ -s luna.tar.intoto.jsonl ] && ok "attest: the envelope beside the archive" || notok "attest: the envelope" "missing"

cat >dsse.py <<'PYEOF'
import base64, hashlib, json, sys, tarfile
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
def pae(t, body):
    t = t.encode()
    return b"DSSEv1 %d %s %d %s" % (len(t), t, len(body), body)
def pubkey(path):
    raw = base64.b64decode(open(path).read().split("\n")[1])
    return raw[2:10], Ed25519PublicKey.from_public_bytes(raw[10:42])
def keyid(kid):
    return kid[::-1].hex().upper()
def check(env_path, archive, pub):
    env = json.loads(open(env_path).read())
    assert sorted(env) == ["payload", "payloadType", "signatures"], sorted(env)
    assert env["payloadType"] == "application/vnd.in-toto+json"
    body = base64.b64decode(env["payload"], validate=True)
    kid, pk = pubkey(pub)
    sig = [s for s in env["signatures"] if s["keyid"] == keyid(kid)]
    assert len(sig) == 1
    pk.verify(base64.b64decode(sig[0]["sig"]), pae(env["payloadType"], body))
    st = json.loads(body)
    assert st["_type"] == "https://in-toto.io/Statement/v1"
    assert st["predicateType"] == "urn:cohort:bundle-attestation:1"
    files = {}
    with tarfile.open(archive) as t:
        for m in t.getmembers():
            parts = m.name.split("/", 1)
            if m.isfile() and len(parts) == 2 and parts[1].startswith("data/"):
                files[parts[1]] = hashlib.sha256(t.extractfile(m).read()).hexdigest()
    got = {s["name"]: s["digest"]["sha256"] for s in st["subject"]}
    assert len(got) == len(st["subject"])
    assert got == files, (sorted(got), sorted(files))
    a = hashlib.sha256(open(archive, "rb").read()).hexdigest()
    assert st["predicate"]["archive"]["digest"]["sha256"] == a
    doc = st["predicate"]["bundle"]
    bj = [v for k, v in files.items() if k == "data/bundle.json"][0]
    assert st["predicate"]["bundle_id"] == "sha256:" + bj
    assert st["predicate"]["gate"]["passed"] is True and st["predicate"]["gate"]["checks"] == doc["checks"]
    print(len(got))
def forge(env_path, out, seckey, how):
    env = json.loads(open(env_path).read())
    st = json.loads(base64.b64decode(env["payload"]))
    if how == "digest":
        st["subject"][0]["digest"]["sha256"] = "0" * 64
    elif how == "drop":
        st["subject"].pop()
    elif how == "extra":
        st["subject"].append({"name": "data/extra.txt", "digest": {"sha256": "0" * 64}})
    elif how == "archive":
        st["predicate"]["archive"]["digest"]["sha256"] = "1" * 64
    elif how == "type":
        st["_type"] = "https://in-toto.io/Statement/v0.1"
    body = json.dumps(st).encode()
    env["payload"] = base64.b64encode(body).decode()
    if seckey:
        raw = base64.b64decode(open(seckey).read().split("\n")[1])
        sk = Ed25519PrivateKey.from_private_bytes(raw[54 + 8:54 + 40])
        env["signatures"][0]["sig"] = base64.b64encode(sk.sign(pae(env["payloadType"], body))).decode()
    open(out, "w").write(json.dumps(env))
if sys.argv[1] == "check":
    check(*sys.argv[2:5])
else:
    forge(*sys.argv[2:6])
PYEOF
n=$($PY dsse.py check luna.tar.intoto.jsonl luna.tar c.pub 2>err.txt)
[ -n "$n" ] && [ "$n" -gt 5 ] && ok "attest: python checks envelope, PAE signature and all $n subjects against the tar" ||
	notok "attest: python's check" "$(tail -3 err.txt)"
expect_status "attest: cohort verify --attestation holds" 0 "$COHORT" verify --pubkey c.pub --attestation luna.tar.intoto.jsonl luna.tar
grep -q "^luna.tar: attestation luna.tar.intoto.jsonl by key [0-9A-F]* holds: $n subjects, each the archive's$" "$TMP/out" &&
	ok "attest: ... naming its $n subjects" || notok "attest: ... the line" "$(cat "$TMP/out")"
cp luna.tar.intoto.jsonl first.jsonl
"$COHORT" bundle --spec luna/bundle.json --sign c.key --attest -o luna.tar >/dev/null 2>&1
same_bytes "attest: a second run gives the same envelope" first.jsonl luna.tar.intoto.jsonl

# forgeries: exit 1, one line naming what
fails1() { # NAME PATTERN ENV [PUB]
	"$COHORT" verify --pubkey "${4:-c.pub}" --attestation "$3" luna.tar >out.txt 2>err.txt
	rc=$?
	if [ $rc = 1 ] && [ "$(grep -c '' err.txt)" = 1 ] && grep -Eq -- "$2" err.txt; then ok "$1"; else
		notok "$1" "exit $rc: $(cat err.txt)"; fi
}
$PY dsse.py forge luna.tar.intoto.jsonl unsigned.jsonl "" digest
fails1 "attest: a changed statement, not signed again" "signature by key [0-9A-F]+ does not hold" unsigned.jsonl
$PY dsse.py forge luna.tar.intoto.jsonl digest.jsonl c.key digest
fails1 "attest: a subject's digest that is not the file's" "subject data/[^ ]+: its sha256 is not the archive" digest.jsonl
$PY dsse.py forge luna.tar.intoto.jsonl drop.jsonl c.key drop
fails1 "attest: a payload file left out" "subjects for the archive's [0-9]+ payload files" drop.jsonl
$PY dsse.py forge luna.tar.intoto.jsonl extra.jsonl c.key extra
fails1 "attest: a subject the archive has not" "subject data/extra.txt is not in the archive" extra.jsonl
$PY dsse.py forge luna.tar.intoto.jsonl archive.jsonl c.key archive
fails1 "attest: another archive's digest" "archive sha256 is not luna.tar's" archive.jsonl
$PY dsse.py forge luna.tar.intoto.jsonl type.jsonl c.key type
fails1 "attest: not a Statement v1" "not an in-toto Statement v1" type.jsonl
fails1 "attest: another key" "not by this key" luna.tar.intoto.jsonl other.pub
head -c 200 luna.tar.intoto.jsonl >cut.jsonl
fails1 "attest: a truncated envelope" "cut\\.jsonl" cut.jsonl
# the archive changed under a good envelope: the minisign signature fails first
"$COHORT" bundle --spec luna/bundle.json --gzip -o other.tar >/dev/null 2>&1
cp luna.tar.minisig other.tar.minisig
"$COHORT" verify --pubkey c.pub --attestation luna.tar.intoto.jsonl other.tar >out.txt 2>err.txt
[ $? = 1 ] && ok "attest: another archive under the envelope is refused" || notok "attest: another archive" "$(cat err.txt)"
expect_fail2 "attest: --attest needs --sign" '--attest belongs to --sign' "$COHORT" bundle --spec luna/bundle.json --attest -o x.tar
expect_fail2 "attest: --attestation needs --pubkey" 'belong to --pubkey' "$COHORT" verify --attestation luna.tar.intoto.jsonl luna.tar
