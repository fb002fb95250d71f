# crate.test.sh: the bag's research-object metadata.  Python checks
# data/ro-crate-metadata.json against RO-Crate 1.2's rules for a minimal
# crate (the JSON-LD context, the metadata descriptor and its conformsTo,
# the root Dataset's fields, a flat graph of unique ids, every part in the
# payload) and against the files themselves (identity, size); pyld parses
# it as JSON-LD on its own (RDF out of it, with the context's terms given
# locally, since the test has no network); CITATION.cff when the spec has
# authors, and spec fields that are not right are refused.
PY=/usr/bin/python3
luna_evidence luna
expect_status "crate: the Luna bundle" 0 "$COHORT" bundle --spec luna/bundle.json -o luna.tar
mkdir x && tar -xf luna.tar -C x
D=x/luna-publication/data
[ -f $D/ro-crate-metadata.json ] && ok "crate: data/ro-crate-metadata.json in the bag" ||
	notok "crate: data/ro-crate-metadata.json" "missing"
grep -q ' data/ro-crate-metadata.json$' x/luna-publication/manifest-sha256.txt &&
	ok "crate: ... listed in the bag's manifest" || notok "crate: ... in the manifest" "not listed"

cat >crate.py <<'PYEOF'
import hashlib, json, os, re, sys
data, spec = sys.argv[1], json.load(open(sys.argv[2]))
c = json.load(open(os.path.join(data, "ro-crate-metadata.json")))
assert c["@context"] == "https://w3id.org/ro/crate/1.2/context", c["@context"]
g = c["@graph"]
assert isinstance(g, list) and all(isinstance(e, dict) for e in g)
ids = [e["@id"] for e in g]
assert len(ids) == len(set(ids)), "an @id twice"
ent = {e["@id"]: e for e in g}
for e in g:
    assert "@type" in e, e["@id"]
    for v in e.values():  # flat: nested objects are references only
        for x in v if isinstance(v, list) else [v]:
            if isinstance(x, dict):
                assert list(x) == ["@id"], (e["@id"], x)
d = ent["ro-crate-metadata.json"]
assert d["@type"] == "CreativeWork" and d["about"] == {"@id": "./"}
assert d["conformsTo"]["@id"].startswith("https://w3id.org/ro/crate/1.2")
r = ent["./"]
assert "Dataset" in ([r["@type"]] if isinstance(r["@type"], str) else r["@type"])
for k in ("name", "description", "datePublished", "license"):
    assert k in r, "root has no " + k
assert r["name"] == spec["name"] and r["description"] == spec["description"]
assert r["datePublished"] == spec["as_of"]
assert re.match(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$", r["datePublished"])
assert r["license"] == {"@id": spec["license"]}
parts = [p["@id"] for p in r["hasPart"]]
roles = {i["path"]: i["role"] for i in spec["items"]}
for p in parts:
    assert p in ent, p
    path = os.path.join(data, p)
    if ent[p]["@type"] == "Dataset":
        assert p.endswith("/") and os.path.isdir(path), p
        continue
    assert ent[p]["@type"] == "File" and os.path.isfile(path), p
    b = open(path, "rb").read()
    if p in roles:
        assert ent[p]["additionalType"] == roles[p], p
        assert ent[p]["identifier"] == "sha256:" + hashlib.sha256(b).hexdigest(), p
        assert ent[p]["contentSize"] == str(len(b)), p
assert set(roles) <= set(parts), set(roles) - set(parts)
sw = [e for e in g if e["@type"] == "SoftwareApplication"]
assert len(sw) == 1 and sw[0]["name"] == "cohort" and sw[0]["version"] == sys.argv[3]
act = [e for e in g if e["@type"] == "CreateAction"]
assert len(act) == 1 and act[0]["instrument"] == {"@id": sw[0]["@id"]}
assert act[0]["result"] == {"@id": "bundle.json"}
assert sorted(o["@id"] for o in act[0]["object"]) == sorted(roles)
print(len(g))
PYEOF
ver=$("$COHORT" --version 2>/dev/null | awk '{print $NF}')
[ -n "$ver" ] || ver=$(sed -n 's/^#define COHORT_VERSION "\(.*\)"/\1/p' "$ROOT/cmd/cmd.h")
n=$($PY crate.py $D luna/bundle.json "$ver" 2>err.txt)
[ -n "$n" ] && ok "crate: RO-Crate 1.2's rules for a minimal crate hold ($n entities, every part's identity and size)" ||
	notok "crate: RO-Crate 1.2's rules" "$(tail -3 err.txt)"

# JSON-LD, parsed by pyld into RDF
cat >jsonld.py <<'PYEOF'
import json, sys
from pyld import jsonld
S = "http://schema.org/"
ctx = {"@vocab": S, "conformsTo": {"@id": "http://purl.org/dc/terms/conformsTo", "@type": "@id"},
       "File": S + "MediaObject", "about": {"@type": "@id"}, "hasPart": {"@type": "@id"},
       "license": {"@type": "@id"}}
def loader(url, options=None):
    assert url == "https://w3id.org/ro/crate/1.2/context", url
    return {"contextUrl": None, "documentUrl": url, "document": {"@context": ctx}}
jsonld.set_document_loader(loader)
doc = json.load(open(sys.argv[1]))
base = "file:///crate/"
q = jsonld.to_rdf(doc, {"format": "application/n-quads", "base": base})
need = ["<%s> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <%sDataset>" % (base, S),
        "<%sro-crate-metadata.json> <%sabout> <%s>" % (base, S, base),
        "<%sro-crate-metadata.json> <http://purl.org/dc/terms/conformsTo> <https://w3id.org/ro/crate/1.2>" % (base),
        "<%s> <%sdatePublished> " % (base, S),
        "<%sbundle.json> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <%sMediaObject>" % (base, S)]
for n in need:
    assert n in q, n
print(len(q.strip().split("\n")))
PYEOF
t=$($PY jsonld.py $D/ro-crate-metadata.json 2>err.txt)
[ -n "$t" ] && ok "crate: pyld reads it as JSON-LD: $t triples, the root a Dataset, the descriptor about it" ||
	notok "crate: pyld reads it as JSON-LD" "$(tail -3 err.txt)"
[ -e $D/CITATION.cff ] && notok "crate: no CITATION.cff without authors" "there is one" ||
	ok "crate: no CITATION.cff without authors"

# with authors: CITATION.cff, its lines checked one by one
$PY - luna/bundle.json <<'PYEOF'
import json, sys
s = json.load(open(sys.argv[1]))
s["authors"] = [{"name": "Ada \"A.\" Lovelace", "orcid": "https://orcid.org/0000-0002-1825-0097"}, {"name": "Luna team"}]
open(sys.argv[1], "w").write(json.dumps(s, indent=1))
PYEOF
expect_status "crate: a spec with authors bundles" 0 "$COHORT" bundle --spec luna/bundle.json -o cite.tar
mkdir y && tar -xf cite.tar -C y
C=y/luna-publication/data/CITATION.cff
cat >want.cff <<'CFF'
cff-version: 1.2.0
message: "If you use this evidence, please cite it as below."
type: dataset
title: "luna-publication"
authors:
  - name: "Ada \"A.\" Lovelace"
    orcid: "https://orcid.org/0000-0002-1825-0097"
  - name: "Luna team"
date-released: "2026-07-20"
license: "CC-BY-4.0"
CFF
head -n 10 $C >got.cff 2>/dev/null
same_bytes "crate: CITATION.cff names the authors, date and licence" want.cff got.cff
grep -q '^abstract: "The Luna pilot' $C && grep -q "^    value: \"$(sed -n 's/.*"spec":"\(sha256:[0-9a-f]*\)".*/\1/p' y/luna-publication/data/bundle.json)\"$" $C &&
	ok "crate: ... its abstract and the spec's identity" || notok "crate: ... abstract and identity" "$(tail -5 $C)"
n=$($PY crate.py y/luna-publication/data luna/bundle.json "$ver" 2>err.txt)
[ -n "$n" ] && grep -q '"@id":"CITATION.cff"' y/luna-publication/data/ro-crate-metadata.json &&
	ok "crate: the crate lists CITATION.cff and still holds" || notok "crate: with CITATION.cff" "$(tail -3 err.txt)"
check "crate: the spec validates against schemas/bundle-spec.schema.json" $PY "$ROOT/tests/validate.py" \
	"$ROOT/schemas/bundle-spec.schema.json" luna/bundle.json

# spec fields that are not right
badspec() { # NAME PATTERN PYTHON-EDIT
	cp luna/bundle.json keep.json
	$PY -c "import json, sys; s = json.load(open('luna/bundle.json')); $3; open('luna/bundle.json', 'w').write(json.dumps(s))"
	expect_fail2 "$1" "$2" "$COHORT" bundle --spec luna/bundle.json -o never.tar
	cp keep.json luna/bundle.json
}
badspec "crate: a licence that is neither SPDX nor a URL" '"license": expected an SPDX identifier or a URL' 's["license"] = "my licence"'
badspec "crate: authors not an array" '"authors": expected a non-empty array' 's["authors"] = "me"'
badspec "crate: an author without a name" '"authors"\[2\]: "name": expected text' 's["authors"][1] = {"orcid": "x"}'
badspec "crate: an ORCID that is not one" '"authors"\[1\]: "orcid": expected' 's["authors"][0]["orcid"] = "0000-0002-1825-0097"'
badspec "crate: an empty description" '"description": expected text' 's["description"] = ""'
[ -e never.tar ] && notok "crate: a refused spec writes no archive" "never.tar" || ok "crate: a refused spec writes no archive"

# cohort verify reads the crate: every File's identity, and it covers the
# crate and CITATION.cff (no unlisted finding)
expect_status "crate: cohort verify holds on a bag with its crate and CITATION.cff" 0 \
	"$COHORT" verify --format table cite.tar
grep -q 'crate.*RO-Crate 1.2 metadata; every File' "$TMP/out" && ok "crate: ... its crate check" ||
	notok "crate: ... its crate check" "$(grep -i crate "$TMP/out" | head -3)"
