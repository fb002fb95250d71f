# common/: errors, buffers, files, memory, time stamps, UTF-8, SHA-256, threads, git,
# temporary folders removed on signals,
# input files mapped with a guard against their being cut
COMMON_OBJS = common/err.o common/buf.o common/io.o common/mem.o common/ts.o common/utf8.o \
	common/hash.o common/base64.o common/lines.o common/pool.o common/repo.o common/cleanup.o \
	common/map.o common/quantile.o common/ring.o
COMMON_UNIT = tests/unit/ts_check tests/unit/hex_check tests/unit/pool_check tests/unit/ring_check \
	tests/unit/quantile_check tests/unit/stop_at_map.so
