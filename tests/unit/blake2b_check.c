/* blake2b_check LEN [FILE]: the BLAKE2b digest of LEN bytes (1 to 64) of
 * FILE (or standard input) in hex, for the tests to compare with python's
 * hashlib; fed in uneven slices so block edges are crossed every way. */
#include <stdio.h>
#include <stdlib.h>

#include "../../sign/blake2b.h"

int
main(int argc, char **argv)
{
	struct blake2b s;
	unsigned char chunk[1000], out[64];
	size_t n, len = argc > 1 ? (size_t)atoi(argv[1]) : 0, slice = 1;
	FILE *fp = argc > 2 ? fopen(argv[2], "rb") : stdin;

	if (len < 1 || len > 64 || fp == NULL)
		return 2;
	blake2b_init(&s, len);
	while ((n = fread(chunk, 1, slice, fp)) > 0) {
		blake2b_update(&s, chunk, n);
		slice = slice % 937 + 61; /* 61 to 997: within chunk */
	}
	blake2b_final(&s, out);
	for (size_t i = 0; i < len; i++)
		printf("%02x", out[i]);
	printf("\n");
	return 0;
}
