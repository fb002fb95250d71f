# reconcile/: a freeze against ledgers, request logs and billing exports
RECONCILE_OBJS = reconcile/csv.o reconcile/recon_feed.o reconcile/recon_flat.o reconcile/values.o \
	reconcile/database.o reconcile/fields.o reconcile/freeze.o reconcile/sources.o \
	reconcile/ledger.o reconcile/requests.o reconcile/billing.o reconcile/checks.o \
	reconcile/report.o reconcile/table.o reconcile/reconcile.o
RECONCILE_UNIT = tests/unit/recon_time tests/unit/recon_csv tests/unit/recon_flat
