FREEZE_OBJS = freeze/hash.o freeze/json.o freeze/canon.o freeze/ledger.o freeze/ledgerpar.o freeze/cas.o freeze/freeze.o freeze/repo.o freeze/table.o
FREEZE_UNIT =
FREEZE_UNIT += tests/unit/freeze_write
