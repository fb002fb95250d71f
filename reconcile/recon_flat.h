/* recon_flat.h: a fast path for the JSON Lines records reconcile streams.
 *
 * recon_flat_parse reads one line holding a JSON object whose values are
 * strings without escapes, numbers, true, false, null or objects of those
 * (one level deep), and indexes its fields by path ("tokens.input").  It
 * accepts only what the strict reader (json/json.h) accepts; anything
 * else, including valid JSON it does not handle (escapes, arrays, deeper
 * nesting, duplicate keys, keys with dots), makes it return -1 so the
 * caller falls back to the strict reader, which then gives the record or
 * the precise error.  No allocation: fields point into the line.
 */
#ifndef COHORT_RECON_FLAT_H
#define COHORT_RECON_FLAT_H

#include <stddef.h>

#define RECON_FLAT_FIELDS 48

enum recon_flat_type { RF_STR, RF_NUM, RF_TRUE, RF_FALSE, RF_NULL, RF_OBJ };

struct recon_flat_field {
	const char *key;            /* path, NUL-terminated, in the keys buffer */
	enum recon_flat_type type;
	const char *s;              /* RF_STR: the bytes between the quotes */
	size_t n;                   /* their length */
	double num;                 /* RF_NUM */
};

struct recon_flat {
	struct recon_flat_field f[RECON_FLAT_FIELDS];
	int n;
	char keys[2048];            /* paths */
	size_t used;
};

/* Index the object on line p[0..n).  Returns 0, or -1: not handled here. */
int recon_flat_parse(struct recon_flat *fl, const char *p, size_t n);

/* The field at path, or NULL. */
const struct recon_flat_field *recon_flat_get(const struct recon_flat *fl, const char *path);

#endif
