CMD_OBJS = cmd/main.o cmd/opt.o cmd/canon.o cmd/freeze.o cmd/verify.o cmd/reconcile.o \
	cmd/fit.o cmd/bound.o cmd/bundle.o cmd/ladder.o cmd/paired.o cmd/candidates.o cmd/prereg.o \
	cmd/fingerprint.o cmd/distance.o cmd/gate.o cmd/merge.o cmd/simulate.o \
	cmd/import.o cmd/export.o cmd/sign.o \
	cmd/plot.o cmd/report.o
