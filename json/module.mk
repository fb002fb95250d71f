# json/: the strict JSON reader, the canonical writer, the flat record reader
JSON_OBJS = json/read.o json/json.o json/canon.o json/rec.o
JSON_UNIT = tests/unit/numbers tests/unit/jsonsuite tests/unit/rec_diff tests/unit/canon_stream
