# chess/: positions, legal moves, FEN, UCI and SAN move text, PGN
CHESS_OBJS = chess/board.o chess/movegen.o chess/fen.o chess/san.o chess/pgn.o chess/pgnwrite.o
CHESS_UNIT = tests/unit/chess_perft tests/unit/chess_rules tests/unit/chess_pgn
