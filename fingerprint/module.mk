# fingerprint/: model fingerprints from a freeze's decisions and games, and
# the distances between them
FINGERPRINT_OBJS = fingerprint/fp.o fingerprint/features.o fingerprint/fpdoc.o fingerprint/distance.o fingerprint/fppart.o fingerprint/fprows.o
FINGERPRINT_UNIT = tests/unit/fp_ranges tests/unit/dist_simd
