# paired/: paired positions: candidate manifests built with a UCI engine and
# verified, and the paired endpoints of a freeze's decisions
PAIRED_OBJS = paired/positions.o paired/candbuild.o paired/candcheck.o paired/collect.o paired/effects.o paired/paired.o
PAIRED_UNIT = tests/unit/positions_walk
