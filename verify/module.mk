VERIFY_OBJS = verify/verify.o verify/fast.o verify/files.o verify/hooks.o
VERIFY_UNIT =
VERIFY_OBJS += verify/csv.o verify/recon_feed.o verify/recon_flat.o verify/reconcile.o
VERIFY_UNIT += tests/unit/recon_time
VERIFY_UNIT += tests/unit/recon_csv
VERIFY_UNIT += tests/unit/recon_flat
VERIFY_UNIT += tests/unit/verify_fast
