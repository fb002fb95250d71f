# engine/: a UCI chess engine run as a subprocess
ENGINE_OBJS = engine/proc.o engine/uci.o engine/engine.o
ENGINE_UNIT = tests/unit/fake_uci tests/unit/engine_check tests/unit/engine_real
