/* cand_legal: cand_legal_move (the legal moves' UCI texts, packed once for
 * a position) against chess_uci_among on the position's moves generated
 * again, for every position of the candidate manifests named and every
 * text of up to six bytes from squares, promotion letters (either case)
 * and other bytes: the same answer and the same move.  Prints
 * "P positions, T texts, L legal" and exits 1 at the first difference. */
#include <stdio.h>
#include <string.h>

#include "../../chess/chess.h"
#include "../../protocol/candidates.h"

/* 1 when the two readers differ on text in p. */
static int
differ(const struct cand_position *p, const struct chess_move *list, int n, const char *text,
    long *legal)
{
	struct chess_move a, b;
	struct err e = ERR_INIT;
	int ra = cand_legal_move(p, text, &a), rb = chess_uci_among(list, n, text, &b, &e);

	if ((ra == 0) != (rb == 0))
		return 1;
	*legal += ra == 0;
	return ra == 0 && (a.from != b.from || a.to != b.to || a.promo != b.promo);
}

int
main(int argc, char **argv)
{
	static const char tail[] = { '\0', 'n', 'b', 'r', 'q', 'k', 'N', 'Q', 'x', ' ' };
	long positions = 0, texts = 0, legal = 0;

	for (int f = 1; f < argc; f++) {
		struct candidates c = CANDIDATES_INIT;
		struct err e = ERR_INIT;
		if (cand_read(argv[f], &c, &e) < 0) {
			fprintf(stderr, "cand_legal: %s\n", e.msg);
			return 2;
		}
		for (size_t i = 0; i < c.n; i++) {
			const struct cand_position *p = &c.p[i];
			struct chess_move list[CHESS_MAX_MOVES];
			int n = chess_moves(&p->pos, list);
			char t[8] = { 0 };
			positions++;
			for (int a = 0; a < 64 * 64; a++)
				for (size_t k = 0; k < sizeof tail; k++)
					for (int extra = 0; extra < (k == 0 ? 1 : 2); extra++) {
						t[0] = (char)('a' + a % 8), t[1] = (char)('1' + a / 8 % 8);
						t[2] = (char)('a' + a / 64 % 8), t[3] = (char)('1' + a / 512);
						t[4] = tail[k], t[5] = extra ? 'q' : '\0';
						texts++;
						if (differ(p, list, n, t, &legal)) {
							fprintf(stderr, "cand_legal: %s: \"%s\" in %s\n", argv[f],
							    t, p->fen);
							return 1;
						}
					}
			/* texts that are not squares at all */
			const char *odd[] = { "", "e2", "e2e", "i2e4", "e0e4", "e2e4e4", "E2E4", "0000",
				"e2e4\n", "a7a8Q" };
			for (size_t k = 0; k < sizeof odd / sizeof odd[0]; k++, texts++)
				if (differ(p, list, n, odd[k], &legal)) {
					fprintf(stderr, "cand_legal: %s: \"%s\" in %s\n", argv[f], odd[k],
					    p->fen);
					return 1;
				}
		}
		cand_release(&c);
	}
	printf("%ld positions, %ld texts, %ld legal\n", positions, texts, legal);
	return 0;
}
