FIT_OBJS = fit/ladder.o
FIT_UNIT =
