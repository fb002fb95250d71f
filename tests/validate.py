"""validate.py SCHEMA FILE...: validate JSON documents (or JSON Lines files,
one document a line, when FILE ends in .jsonl) against a JSON Schema with
the independent python3-jsonschema validator.  Exit 0 when all are valid."""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1], encoding="utf-8"))
validator = jsonschema.Draft202012Validator(schema)
bad = 0
for path in sys.argv[2:]:
    with open(path, encoding="utf-8") as f:
        docs = [json.loads(l) for l in f if l.strip()] if path.endswith(".jsonl") else [json.load(f)]
    for i, doc in enumerate(docs, 1):
        for error in validator.iter_errors(doc):
            bad += 1
            print("%s:%d: %s at %s" % (path, i, error.message[:200], list(error.absolute_path)))
sys.exit(1 if bad else 0)
