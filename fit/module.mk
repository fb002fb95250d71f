FIT_OBJS = fit/ladder.o
FIT_OBJS += fit/davidson.o fit/fitdoc.o
FIT_UNIT = tests/unit/fit_check tests/unit/fit_refit
