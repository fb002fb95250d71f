FREEZE_OBJS = freeze/hash.o freeze/json.o freeze/canon.o freeze/rec.o freeze/ledger.o freeze/ledgerpar.o freeze/cas.o freeze/freeze.o freeze/repo.o freeze/table.o
FREEZE_UNIT = tests/unit/rec_diff tests/unit/freeze_write tests/unit/cas_index
