# freeze/: cohort.freeze/1 manifests, built and derived again
FREEZE_OBJS = freeze/ids.o freeze/record.o freeze/idsort.o freeze/order.o freeze/manifest.o freeze/build.o freeze/repo.o freeze/table.o freeze/live.o freeze/decisions.o freeze/deviate.o
FREEZE_UNIT = tests/unit/freeze_write
