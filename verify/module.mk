VERIFY_OBJS = verify/verify.o verify/files.o verify/hooks.o
VERIFY_UNIT =
