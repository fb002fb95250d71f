/* verify_fast: the quick proof (verify/fast.c) against the thorough check.
 *
 * usage: verify_fast FREEZE STORE holds|declines
 * holds: the quick way must show the freeze holds, with the same checks,
 * byte for byte, as verify_freeze on the parsed document, and the same
 * identity as canon_id.  declines: the quick way must not claim it holds
 * (the freeze or its store was tampered with). */
#include <stdio.h>
#include <string.h>

#include "../../common/buf.h"
#include "../../common/io.h"
#include "../../json/json.h"
#include "../../verify/verify.h"

int
main(int argc, char **argv)
{
	struct err e = ERR_INIT;
	struct buf text = BUF_INIT, a = BUF_INIT, b = BUF_INIT;
	cJSON *fast = cJSON_CreateArray(), *slow = cJSON_CreateArray(), *doc;
	char id[HASH_ID_LEN + 1] = "", want[HASH_ID_LEN + 1];
	int rc;

	if (argc != 4 || (strcmp(argv[3], "holds") != 0 && strcmp(argv[3], "declines") != 0)) {
		fprintf(stderr, "usage: verify_fast FREEZE STORE holds|declines\n");
		return 2;
	}
	if (io_read_all(argv[1], &text, (size_t)1 << 31, &e) < 0) {
		fprintf(stderr, "verify_fast: %s\n", e.msg);
		return 2;
	}
	rc = verify_freeze_fast(text.p, text.len, argv[2], 0, fast, id, &e);
	if (strcmp(argv[3], "declines") == 0) {
		cJSON_Delete(fast);
		cJSON_Delete(slow);
		buf_release(&text);
		if (rc != 1) {
			fprintf(stderr, "verify_fast: the quick way claims %s holds\n", argv[1]);
			return 1;
		}
		return 0;
	}
	if (rc != 0) {
		fprintf(stderr, "verify_fast: the quick way does not show %s holds\n", argv[1]);
		return 1;
	}
	doc = json_parse(text.p, text.len, argv[1], 1, &e);
	if (doc == NULL || verify_freeze(doc, argv[2], 0, slow, &e) != 0 || canon_id(doc, want, &e) < 0) {
		fprintf(stderr, "verify_fast: the thorough check does not agree: %s\n", e.msg);
		return 1;
	}
	if (canon_write(fast, &a, &e) < 0 || canon_write(slow, &b, &e) < 0 || a.len != b.len ||
	    memcmp(a.p, b.p, a.len) != 0 || strcmp(id, want) != 0) {
		fprintf(stderr, "verify_fast: different checks or identity:\n  %s %s\n  %s %s\n", id,
		    a.p ? a.p : "", want, b.p ? b.p : "");
		return 1;
	}
	cJSON_Delete(doc);
	cJSON_Delete(fast);
	cJSON_Delete(slow);
	buf_release(&text);
	buf_release(&a);
	buf_release(&b);
	return 0;
}
