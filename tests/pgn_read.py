#!/usr/bin/python3
# pgn_read.py PGN: every game of PGN as python-chess (tests/vendor) reads
# it, one JSON line each: its tags, its result, its moves in UCI, and the
# reader's errors.  python-chess skips ';' comments, so "note" is null.
import json, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vendor", "python-chess"))
import chess.pgn

with open(sys.argv[1], encoding="utf-8") as f:
    while True:
        g = chess.pgn.read_game(f)
        if g is None:
            break
        print(json.dumps({"tags": dict(g.headers), "result": g.headers.get("Result"),
                          "moves": [m.uci() for m in g.mainline_moves()],
                          "errors": [str(x) for x in g.errors], "note": None}))
