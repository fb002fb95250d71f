# paired/: the paired diagnostics: candidate manifests built and checked,
# and the paired endpoints of a freeze's decisions
PAIRED_OBJS = paired/paired.o
PAIRED_UNIT =
