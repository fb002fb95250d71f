/* fuzz_csv.c: any bytes as a billing CSV: the strict reader either reads
 * every record, each with the header's field count, or refuses with a
 * message; it never crashes, leaks or reads past the input. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../reconcile/csv.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	struct err e = ERR_INIT;
	struct csv *c;
	int fd, r;

	snprintf(path, sizeof path, "/tmp/fuzz-csv-%d.csv", (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	c = csv_open(path, "fuzz.csv", &e);
	if (c == NULL) {
		if (e.msg[0] == '\0')
			abort();
		unlink(path);
		return 0;
	}
	while ((r = csv_next(c, &e)) == 1) {
		for (size_t i = 0; i < csv_ncols(c); i++) {
			size_t len;
			const char *f = csv_field(c, i, &len);
			if (f == NULL || strlen(f) > len)
				abort();
		}
	}
	if (r < 0 && e.msg[0] == '\0')
		abort();
	csv_free(c);
	unlink(path);
	return 0;
}
