// pgn_read.js PGN: every game of PGN as chess.js (tests/node) reads it,
// one JSON line each: its tags, its result, its moves in UCI, the text of
// its comment before the first move, and the reader's error.  chess.js
// reads one game at a time, so the file is cut before each [Event tag.
'use strict';
const fs = require('fs');
const { Chess } = require('chess.js');

const text = fs.readFileSync(process.argv[2], 'utf8');
for (const pgn of text.split(/\n(?=\[Event )/)) {
	if (pgn.trim() === '')
		continue;
	const c = new Chess();
	try {
		c.loadPgn(pgn);
	} catch (err) {
		console.log(JSON.stringify({ errors: [String(err.message)] }));
		continue;
	}
	const tags = c.getHeaders();
	const start = new Chess(tags.FEN || undefined).fen();
	const first = c.getComments().find((x) => x.fen === start);
	console.log(JSON.stringify({
		tags: tags,
		result: tags.Result,
		moves: c.history({ verbose: true }).map((m) => m.from + m.to + (m.promotion || '')),
		errors: [],
		note: first ? first.comment : null,
	}));
}
