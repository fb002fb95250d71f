# simulate/: data with known truth (cohort simulate paired)
SIMULATE_OBJS = simulate/design.o simulate/paired.o
