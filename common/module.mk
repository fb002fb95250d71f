COMMON_OBJS = common/err.o common/buf.o common/io.o common/mem.o common/ts.o common/utf8.o
