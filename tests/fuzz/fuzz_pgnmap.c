/* fuzz_pgnmap.c: any bytes as a tag map (cohort.pgn-map/1), then, after
 * the first NUL, as PGN imported with it.  The map reader accepts or
 * refuses with a message; the importer either writes one canonical record
 * per game, each line the canonical bytes of what it parses to, or
 * refuses with a message for each game it refused. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../json/json.h"
#include "../../pgnio/pgnio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
refused(void *ctx, const char *msg)
{
	if (msg[0] == '\0')
		abort();
	(*(long *)ctx)++;
}

/* Every line of out is canonical JSON; n lines in all. */
static void
lines_canonical(const struct buf *out, long n)
{
	const char *p = out->p ? out->p : "", *end = p + out->len;
	long lines = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct err e = ERR_INIT;
		struct buf c = BUF_INIT;
		cJSON *v;

		if (nl == NULL)
			abort();
		if ((v = json_parse(p, (size_t)(nl - p), "record", 1, &e)) == NULL ||
		    canon_write(v, &c, &e) < 0 || c.len != (size_t)(nl - p) ||
		    memcmp(c.p, p, c.len) != 0)
			abort();
		cJSON_Delete(v);
		buf_release(&c);
		lines++;
		p = nl + 1;
	}
	if (lines != n)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t nmap = nul ? (size_t)(nul - data) : size;
	struct pgnio_map *m = NULL;
	struct err e = ERR_INIT;
	char path[64];
	const char *files[1] = { path };
	long nrefused = 0, n;
	struct pgnio_import_opts o = { files, 1, NULL, refused, &nrefused };
	struct buf out = BUF_INIT;
	int fd;

	if (pgnio_map_parse((const char *)data, nmap, "fuzz.json", &m, &e) < 0) {
		if (e.msg[0] == '\0' || m != NULL)
			abort();
		return 0;
	}
	if (nul == NULL) {
		pgnio_map_free(m);
		return 0;
	}
	snprintf(path, sizeof path, "/tmp/fuzz-pgnmap-%d.pgn", (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, nul + 1, size - nmap - 1) != (ssize_t)(size - nmap - 1)) {
		if (fd >= 0)
			close(fd);
		unlink(path);
		pgnio_map_free(m);
		return 0;
	}
	close(fd);
	o.map = m;
	n = pgnio_import(&o, &out, &e);
	if (n < 0 && (e.msg[0] == '\0' || (e.code == ERR_INPUT && nrefused == 0)))
		abort();
	if (n >= 0)
		lines_canonical(&out, n);
	unlink(path);
	buf_release(&out);
	pgnio_map_free(m);
	return 0;
}
