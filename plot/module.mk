# plot/: deterministic SVG figures of fits, freezes, paired and distance documents
PLOT_OBJS = plot/svg.o plot/chart.o plot/read.o plot/plot.o plot/curve.o plot/path.o \
	plot/sens.o plot/kcurve.o plot/heat.o
PLOT_UNIT = tests/unit/svg_fixed
