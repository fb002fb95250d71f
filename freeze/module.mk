FREEZE_OBJS = freeze/hash.o freeze/json.o freeze/canon.o
FREEZE_UNIT =
