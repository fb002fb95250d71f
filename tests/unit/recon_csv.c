/* recon_csv.c: read a CSV file with the strict reader and print it: the
 * header and each record as "LINE: [field][field]...", with CR and LF
 * inside fields shown as \r and \n; on error print the message and exit 2.
 * Then print the SHA-256 of the bytes read.  Driven by tests/reconcile.test.sh. */
#include <stdio.h>

#include "../../reconcile/csv.h"

static void
show(const char *s, size_t n)
{
	putchar('[');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\r')
			fputs("\\r", stdout);
		else if (s[i] == '\n')
			fputs("\\n", stdout);
		else
			putchar(s[i]);
	}
	putchar(']');
}

int
main(int argc, char **argv)
{
	struct err e = ERR_INIT;
	struct csv *c;
	uint8_t d[HASH_LEN];
	char hex[2 * HASH_LEN + 1];
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: recon_csv FILE\n");
		return 2;
	}
	c = csv_open(argv[1], NULL, &e);
	if (c == NULL) {
		printf("error: %s\n", e.msg);
		return 2;
	}
	printf("header:");
	for (size_t i = 0; i < csv_ncols(c); i++) {
		const char *s = csv_col(c, i);
		size_t n = 0;
		while (s[n])
			n++;
		show(s, n);
	}
	putchar('\n');
	while ((rc = csv_next(c, &e)) == 1) {
		printf("%ld:", csv_line(c));
		for (size_t i = 0; i < csv_ncols(c); i++) {
			size_t n;
			const char *s = csv_field(c, i, &n);
			show(s, n);
		}
		putchar('\n');
	}
	if (rc < 0) {
		printf("error: %s\n", e.msg);
		csv_free(c);
		return 2;
	}
	csv_digest(c, d);
	hash_hex_format(d, hex);
	printf("sha256 %s\n", hex);
	csv_free(c);
	return 0;
}
