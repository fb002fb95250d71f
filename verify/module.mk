# verify/: a freeze checked against its object store
VERIFY_OBJS = verify/verify.o verify/fast.o
VERIFY_UNIT = tests/unit/verify_fast
