# gate/: the first seed's analysis gates A to D (cohort.gate/1)
GATE_OBJS = gate/gate.o gate/gate_ab.o gate/gate_cd.o
GATE_UNIT = tests/unit/gate_refit
