/* fuzz_json.c: libFuzzer target for the strict JSON reader and the canonical
 * writer.  Any input either is refused, or parses into a tree whose
 * canonical bytes parse again into the same canonical bytes (the writer's
 * output is a fixed point).  A parsed tree the writer refuses is a bug too:
 * the reader is the stricter of the two. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/buf.h"
#include "../../common/err.h"
#include "../../json/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err e = ERR_INIT;
	struct buf one = BUF_INIT, two = BUF_INIT;
	cJSON *v, *w;

	v = json_parse((const char *)data, size, "fuzz", 1, &e);
	if (v == NULL) {
		/* A refusal always says why. */
		if (e.msg[0] == '\0')
			abort();
		return 0;
	}
	if (canon_write(v, &one, &e) < 0)
		abort();
	w = json_parse(one.p ? one.p : "", one.len, "canonical", 1, &e);
	if (w == NULL)
		abort();
	if (canon_write(w, &two, &e) < 0)
		abort();
	if (one.len != two.len || (one.len && memcmp(one.p, two.p, one.len) != 0))
		abort();
	cJSON_Delete(v);
	cJSON_Delete(w);
	buf_release(&one);
	buf_release(&two);
	return 0;
}
