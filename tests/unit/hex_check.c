/* hex_check.c: hash_hex_format (a table, or AVX2 where the processor has
 * it) against printf's %02x, on digests of every byte value in every
 * place and on pseudo-random ones. */
#include <stdio.h>
#include <string.h>

#include "../../common/hash.h"

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
	if (bad > 0)
		return 1;
	printf("hex_check: %ld digests agree\n", n);
	return 0;
}
