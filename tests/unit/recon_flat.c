/* recon_flat.c: the fast path accepts nothing the strict reader refuses,
 * and reads what it accepts as the strict reader does.  Each argument is a
 * seed line; it and N deterministic mutations of it (bytes replaced,
 * inserted, deleted) go through both readers.  Prints a summary; exit 1 on
 * the first disagreement. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../json/json.h"
#include "../../reconcile/recon_flat.h"

static unsigned long long state = 88172645463325252ULL;

static unsigned
next(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return (unsigned)(state >> 11);
}

static const char alphabet[] = "{}[]\":,.-+eE0123456789 \t\\nultrfase\xc3\xa9\xff\x01";

static const cJSON *
lookup(const cJSON *root, const char *path)
{
	char buf[256];
	const char *dot = strchr(path, '.');

	if (dot == NULL)
		return json_get(root, path);
	snprintf(buf, sizeof buf, "%.*s", (int)(dot - path), path);
	return json_get(json_get(root, buf), dot + 1);
}

/* 0 when both readers agree on line p[0..n). */
static int
agree(const char *p, size_t n, long *accepted)
{
	struct recon_flat fl;
	struct err e = ERR_INIT;
	cJSON *v;
	int rc = 0;

	if (recon_flat_parse(&fl, p, n) < 0)
		return 0;
	(*accepted)++;
	v = json_parse(p, n, "line", 1, &e);
	if (v == NULL || !cJSON_IsObject(v)) {
		printf("fast path accepted what the strict reader refuses: %.*s (%s)\n", (int)n, p, e.msg);
		cJSON_Delete(v);
		return 1;
	}
	for (int i = 0; i < fl.n && rc == 0; i++) {
		const struct recon_flat_field *f = &fl.f[i];
		const cJSON *c = lookup(v, f->key);
		switch (f->type) {
		case RF_STR:
			rc = !cJSON_IsString(c) || strlen(c->valuestring) != f->n ||
			    memcmp(c->valuestring, f->s, f->n) != 0;
			break;
		case RF_NUM:
			rc = !cJSON_IsNumber(c) || c->valuedouble != f->num;
			break;
		case RF_TRUE:
			rc = !cJSON_IsTrue(c);
			break;
		case RF_FALSE:
			rc = !cJSON_IsFalse(c);
			break;
		case RF_NULL:
			rc = !cJSON_IsNull(c);
			break;
		case RF_OBJ:
			rc = !cJSON_IsObject(c);
			break;
		}
		if (rc)
			printf("readers disagree on \"%s\" in: %.*s\n", f->key, (int)n, p);
	}
	cJSON_Delete(v);
	return rc;
}

int
main(int argc, char **argv)
{
	long rounds = 20000, accepted = 0, tried = 0;
	char buf[4096];

	for (int a = 1; a < argc; a++) {
		const char *seed = argv[a];
		size_t len = strlen(seed);
		if (len >= sizeof buf / 2)
			continue;
		tried++;
		if (agree(seed, len, &accepted))
			return 1;
		for (long r = 0; r < rounds; r++) {
			size_t n = len;
			memcpy(buf, seed, len);
			for (int k = 0, edits = 1 + (int)(next() % 3); k < edits; k++) {
				size_t at = n ? next() % n : 0;
				char c = alphabet[next() % (sizeof alphabet - 1)];
				switch (next() % 3) {
				case 0:
					if (n)
						buf[at] = c;
					break;
				case 1:
					if (n + 1 < sizeof buf) {
						memmove(buf + at + 1, buf + at, n - at);
						buf[at] = c;
						n++;
					}
					break;
				default:
					if (n) {
						memmove(buf + at, buf + at + 1, n - at - 1);
						n--;
					}
				}
			}
			tried++;
			if (agree(buf, n, &accepted))
				return 1;
		}
	}
	printf("%ld lines, %ld taken by the fast path, all read alike by the strict reader\n", tried,
	    accepted);
	return 0;
}
