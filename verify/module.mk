VERIFY_OBJS =
VERIFY_UNIT =
VERIFY_OBJS += verify/csv.o verify/reconcile.o
