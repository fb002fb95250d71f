CMD_OBJS = cmd/main.o cmd/opt.o cmd/canon.o cmd/freeze.o cmd/verify.o cmd/reconcile.o \
	cmd/fit.o cmd/bound.o cmd/bundle.o cmd/ladder.o cmd/paired.o cmd/candidates.o cmd/prereg.o \
	cmd/fingerprint.o cmd/distance.o cmd/gate.o cmd/merge.o cmd/simulate.o \
	cmd/import.o cmd/export.o cmd/sign.o \
	cmd/plot.o cmd/report.o

# The source commit (mk/commit.sh, or make COHORT_COMMIT=...) as a C file
# of its own, rewritten only when it changes, so that a new commit relinks
# cohort without compiling anything else.  The golden cases (golden/) run
# cohort-golden, the same program built with the commit "test": their
# bytes cannot hold the commit of the tree that holds them.
CMD_GEN = $(BUILD)/cmd/commit.o
$(BUILD)/cmd/commit.c: FORCE
	@mkdir -p $(@D)
	@printf '/* made by cmd/module.mk; do not edit */\nconst char cohort_commit[] = "%s";\n' \
	  '$(COHORT_COMMIT)' >$@.tmp && { cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@; }

$(BUILD)/tests/commit-golden.c: cmd/module.mk
	@mkdir -p $(@D)
	@printf '/* made by cmd/module.mk; do not edit */\nconst char cohort_commit[] = "test";\n' >$@

$(BUILD)/cmd/commit.o: $(BUILD)/cmd/commit.c
	$(CC) $(CFLAGS_ALL) -c -o $@ $<
$(BUILD)/tests/commit-golden.o: $(BUILD)/tests/commit-golden.c
	$(CC) $(CFLAGS_ALL) -c -o $@ $<

FORCE:
.PHONY: FORCE
