# pgnio/: PGN games into ledger records and back, and blocks for Ordo
PGNIO_OBJS = pgnio/map.o pgnio/tagtext.o pgnio/import.o pgnio/export.o
PGNIO_UNIT = tests/unit/pgn_pairs
