VERIFY_OBJS = verify/verify.o verify/files.o verify/hooks.o
VERIFY_UNIT =
VERIFY_OBJS += verify/csv.o verify/reconcile.o
