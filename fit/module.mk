# fit/: ratings, exact bounds, ladder documents and the ladder simulation
FIT_OBJS = fit/beta.o fit/davidson.o fit/fitdoc.o fit/bound.o fit/sim.o fit/ladderdoc.o fit/pairs.o
FIT_UNIT = tests/unit/pairs_cover tests/unit/fit_check tests/unit/fit_refit tests/unit/fit_bench \
	tests/unit/bound_cp tests/unit/sim_solver tests/unit/sim_vs_fit
