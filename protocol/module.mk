# protocol/: the cohort's input formats and rules: ledgers, the ladder policy
PROTOCOL_OBJS = protocol/ledger.o protocol/ledgerpar.o protocol/ladder.o protocol/rules.o protocol/spec.o protocol/blocks.o protocol/candidates.o protocol/decision.o protocol/prereg.o protocol/part.o protocol/games.o \
	protocol/openings.o
PROTOCOL_UNIT = tests/unit/prereg_check tests/unit/decision_flat tests/unit/freeze_games \
	tests/unit/cand_legal
