FIT_OBJS = fit/ladder.o
