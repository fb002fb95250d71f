# reconcile/: a freeze against ledgers, request logs and billing exports
RECONCILE_OBJS = reconcile/csv.o reconcile/recon_feed.o reconcile/recon_flat.o reconcile/reconcile.o
RECONCILE_UNIT = tests/unit/recon_time tests/unit/recon_csv tests/unit/recon_flat
