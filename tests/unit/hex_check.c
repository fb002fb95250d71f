/* hex_check.c: hash_hex_format (a table, or AVX2 where the processor has
 * it) against printf's %02x, on digests of every byte value in every
 * place and on pseudo-random ones; and hash_git_blob against the ids git
 * hash-object gives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/hash.h"

/* Git's ids of the empty blob, of "hello\n" and of 100,000 zeros. */
static long
git_blobs(void)
{
	static const char *const want[] = { "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
		"ce013625030ba8dba906f756967f9e9ca394464a",
		"f18c9a678f421d5c52f6c5acc23670267d5f632f" };
	char *zeros = calloc(100000, 1), got[HASH_GIT_HEX + 1];
	const void *p[] = { "", "hello\n", zeros };
	size_t n[] = { 0, 6, 100000 };
	long bad = 0;

	for (int i = 0; i < 3; i++) {
		got[0] = '\0';
		if (zeros == NULL || hash_git_blob(p[i], n[i], got) < 0 ||
		    strcmp(got, want[i]) != 0) {
			fprintf(stderr, "hex_check: git blob of %zu bytes: got %.40s, want %s\n",
			    n[i], zeros ? got : "(out of memory)", want[i]);
			bad++;
		}
	}
	free(zeros);
	return bad;
}

int
main(void)
{
	uint8_t d[HASH_LEN];
	char got[2 * HASH_LEN + 1], want[2 * HASH_LEN + 1];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	long bad = 0, n = 0;

	for (int round = 0; round < 256 + 100000; round++) {
		for (int i = 0; i < HASH_LEN; i++) {
			if (round < 256) {
				d[i] = (uint8_t)(round + i);
			} else {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				d[i] = (uint8_t)x;
			}
			snprintf(want + 2 * i, 3, "%02x", d[i]);
		}
		memset(got, 'X', sizeof got);
		hash_hex_format(d, got);
		n++;
		if (memcmp(got, want, sizeof got) != 0 && bad++ < 5)
			fprintf(stderr, "hex_check: got %.64s, want %s\n", got, want);
	}
	bad += git_blobs();
	if (bad > 0)
		return 1;
	printf("hex_check: %ld digests agree, and 3 git blob ids\n", n);
	return 0;
}
