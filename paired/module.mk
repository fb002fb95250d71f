# paired/: paired positions: candidate manifests built with a UCI engine and verified
PAIRED_OBJS = paired/positions.o paired/candbuild.o paired/candcheck.o
PAIRED_UNIT = tests/unit/positions_walk
