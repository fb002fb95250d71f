/* attest.c: in-toto statements for bundle archives in DSSE envelopes
 * (see attest.h). */
#include <stdio.h>
#include <string.h>

#include "../bagit/bag.h"
#include "../common/base64.h"
#include "../common/io.h"
#include "../json/json.h"
#include "attest.h"

/* DSSE's pre-authentication encoding, the bytes that are signed:
 * "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body. */
static int
pae(struct buf *out, const char *type, const char *body, size_t n)
{
	return buf_printf(out, "DSSEv1 %zu %s %zu ", strlen(type), type, n) < 0 ||
	    buf_add(out, body, n) < 0 ? -1 : 0;
}

/* The payload files of a checked bag as in-toto subjects, in the order of
 * its manifest-sha256.txt ("HEX  data/PATH" lines). */
static cJSON *
manifest_subjects(const struct bag *b, struct err *e)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	cJSON *subjects = cJSON_CreateArray();
	size_t i = 0;

	if (subjects == NULL || buf_printf(&path, "%s/manifest-sha256.txt", bag_root(b)) < 0 ||
	    io_read_all(path.p, &text, IO_MAX_DOCUMENT, e) < 0)
		goto fail;
	while (i < text.len) {
		char *nl = memchr(text.p + i, '\n', text.len - i), *line = text.p + i, *name;
		cJSON *s = cJSON_CreateObject(), *d = cJSON_CreateObject();

		if (nl != NULL)
			*nl = '\0';
		i = nl != NULL ? (size_t)(nl - text.p) + 1 : text.len;
		name = line + 64;
		while (*name == ' ' || *name == '\t')
			name++;
		line[64] = '\0';
		cJSON_AddItemToArray(subjects, s);
		if (d == NULL || json_add_string(s, "name", name) == NULL ||
		    json_add_string(d, "sha256", line) == NULL) {
			cJSON_Delete(d);
			err_set(e, ERR_NOMEM, "out of memory");
			goto fail;
		}
		cJSON_AddItemToObject(s, "digest", d);
	}
	buf_release(&path);
	buf_release(&text);
	return subjects;
fail:
	buf_release(&path);
	buf_release(&text);
	cJSON_Delete(subjects);
	return NULL;
}

/* Open and check the archive; its subjects, or NULL (a finding appended to
 * e as ERR_FINDING when the bag does not hold). */
static cJSON *
archive_subjects(const char *archive, struct err *e)
{
	struct bag *b = NULL;
	cJSON *checks = cJSON_CreateArray(), *subjects = NULL;
	int rc;

	if (checks == NULL || bag_open(archive, &b, e) < 0)
		goto done;
	if ((rc = bag_check(b, checks, e)) < 0)
		goto done;
	if (rc > 0) {
		err_set(e, ERR_FINDING, "%s: the bag does not hold (cohort verify %s names why)",
		        archive, archive);
		goto done;
	}
	subjects = manifest_subjects(b, e);
done:
	bag_free(b);
	cJSON_Delete(checks);
	return subjects;
}

static cJSON *
statement(cJSON *subjects, const cJSON *doc, const char *archive, const char *archive_id,
          struct err *e)
{
	cJSON *st = cJSON_CreateObject(), *pred = cJSON_CreateObject(), *gate = cJSON_CreateObject(),
	      *arch = cJSON_CreateObject(), *dig = cJSON_CreateObject();
	const char *base = strrchr(archive, '/');
	char bid[HASH_ID_LEN + 1];

	if (st == NULL || pred == NULL || gate == NULL || arch == NULL || dig == NULL ||
	    canon_id(doc, bid, e) < 0) {
		cJSON_Delete(st), cJSON_Delete(pred), cJSON_Delete(gate), cJSON_Delete(arch);
		cJSON_Delete(dig), cJSON_Delete(subjects);
		return NULL;
	}
	json_add_string(st, "_type", ATTEST_STATEMENT);
	cJSON_AddItemToObject(st, "subject", subjects);
	json_add_string(st, "predicateType", ATTEST_PREDICATE);
	json_add_string(arch, "name", base != NULL ? base + 1 : archive);
	json_add_string(dig, "sha256", archive_id + 7);
	cJSON_AddItemToObject(arch, "digest", dig);
	cJSON_AddItemToObject(pred, "archive", arch);
	cJSON_AddItemToObject(pred, "bundle", cJSON_Duplicate(doc, 1));
	json_add_string(pred, "bundle_id", bid);
	cJSON_AddItemToObject(gate, "checks", cJSON_Duplicate(json_get(doc, "checks"), 1));
	json_add_number(gate, "findings", 0);
	json_add_bool(gate, "passed", 1);
	cJSON_AddItemToObject(pred, "gate", gate);
	cJSON_AddItemToObject(st, "predicate", pred);
	return st;
}

int
attest_write(const char *archive, const cJSON *doc, const char *archive_id,
             const struct ms_sec *sk, const char *path, struct err *e)
{
	struct buf body = BUF_INIT, signed_part = BUF_INIT, b64 = BUF_INIT, out = BUF_INIT;
	cJSON *subjects = archive_subjects(archive, e), *st = NULL, *env = NULL, *sigs, *sig;
	char id[2 * MS_ID_LEN + 1];
	uint8_t s[64];
	int rc = -1;

	if (subjects == NULL || (st = statement(subjects, doc, archive, archive_id, e)) == NULL ||
	    canon_write(st, &body, e) < 0)
		goto done;
	if (pae(&signed_part, ATTEST_PAYLOAD_TYPE, body.p, body.len) < 0 ||
	    ms_sign_bytes(sk, signed_part.p, signed_part.len, s) < 0 ||
	    base64_encode(&b64, (const uint8_t *)body.p, body.len) < 0) {
		err_set(e, ERR_NOMEM, "cannot sign the attestation");
		goto done;
	}
	env = cJSON_CreateObject();
	json_add_string(env, "payload", b64.p);
	json_add_string(env, "payloadType", ATTEST_PAYLOAD_TYPE);
	cJSON_AddItemToObject(env, "signatures", sigs = cJSON_CreateArray());
	cJSON_AddItemToArray(sigs, sig = cJSON_CreateObject());
	ms_id_format(sk->id, id);
	json_add_string(sig, "keyid", id);
	buf_reset(&b64);
	if (base64_encode(&b64, s, 64) < 0 || json_add_string(sig, "sig", b64.p) == NULL ||
	    canon_write(env, &out, e) < 0 || buf_addc(&out, '\n') < 0) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	rc = io_write_all(path, out.p, out.len, e);
done:
	cJSON_Delete(st);
	cJSON_Delete(env);
	buf_release(&body);
	buf_release(&signed_part);
	buf_release(&b64);
	buf_release(&out);
	return rc;
}

/* A string member, or NULL. */
static const char *
str(const cJSON *o, const char *key)
{
	const cJSON *v = json_get(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The envelope's payload, decoded, once its signature by pk holds. */
static int
envelope_payload(const char *path, const struct ms_pub *pk, struct buf *payload, struct err *e)
{
	struct err pe = ERR_INIT;
	cJSON *env = json_parse_file(path, &pe);
	const char *p64 = str(env, "payload"), *type = str(env, "payloadType");
	const cJSON *sig;
	struct buf signed_part = BUF_INIT;
	char id[2 * MS_ID_LEN + 1];
	long long n = p64 != NULL ? base64_len(p64, strlen(p64)) : -1;
	int found = 0, rc = -1;

	ms_id_format(pk->id, id);
	if (env == NULL)
		err_set(e, ERR_FINDING, "%s", pe.msg);
	else if (type == NULL || strcmp(type, ATTEST_PAYLOAD_TYPE) != 0)
		err_set(e, ERR_FINDING, "%s: \"payloadType\": expected \"%s\"", path, ATTEST_PAYLOAD_TYPE);
	else if (n < 0 || buf_grow(payload, (size_t)n + 1) < 0 ||
	         base64_decode(p64, strlen(p64), (uint8_t *)payload->p, (size_t)n) < 0)
		err_set(e, ERR_FINDING, "%s: \"payload\": expected base64", path);
	else if (payload->len = (size_t)n, payload->p[n] = '\0',
	         pae(&signed_part, type, payload->p, payload->len) < 0)
		err_set(e, ERR_NOMEM, "out of memory");
	else {
		cJSON_ArrayForEach(sig, json_get(env, "signatures")) {
			const char *kid = str(sig, "keyid"), *s64 = str(sig, "sig");
			uint8_t s[64];

			if (kid == NULL || strcmp(kid, id) != 0 || s64 == NULL)
				continue;
			found = 1;
			if (base64_decode(s64, strlen(s64), s, 64) == 0 &&
			    ms_verify_bytes(pk, signed_part.p, signed_part.len, s))
				rc = 0;
		}
		if (rc < 0)
			err_set(e, ERR_FINDING, found ? "%s: the envelope's signature by key %s does not "
			        "hold: the statement was changed" : "%s: no signature by key %s", path, id);
	}
	cJSON_Delete(env);
	buf_release(&signed_part);
	return rc;
}

/* Every subject names one payload file, each once, with its digest. */
static int
subjects_match(const char *path, const cJSON *got, const cJSON *want, struct err *e)
{
	const cJSON *s, *w;
	int ng = cJSON_GetArraySize(got), nw = cJSON_GetArraySize(want), i = 0;

	cJSON_ArrayForEach(s, got) {
		const char *name = str(s, "name"), *hex = str(json_get(s, "digest"), "sha256");
		int seen = 0, matched = 0;

		if (name == NULL || hex == NULL)
			return err_set(e, ERR_FINDING, "%s: subject %d: expected a name and a sha256 digest",
			               path, i + 1);
		cJSON_ArrayForEach(w, want)
			if (strcmp(str(w, "name"), name) == 0)
				seen = 1, matched = strcmp(str(json_get(w, "digest"), "sha256"), hex) == 0;
		if (!seen)
			return err_set(e, ERR_FINDING, "%s: subject %s is not in the archive", path, name);
		if (!matched)
			return err_set(e, ERR_FINDING, "%s: subject %s: its sha256 is not the archive's "
			               "file's", path, name);
		i++;
	}
	if (ng != nw)
		return err_set(e, ERR_FINDING, "%s: %d subjects for the archive's %d payload files",
		               path, ng, nw);
	return 0;
}

int
attest_verify(const char *archive, const char *path, const struct ms_pub *pk,
              size_t *nsubjects, struct err *e)
{
	struct buf payload = BUF_INIT;
	struct err pe = ERR_INIT;
	cJSON *st = NULL, *want = NULL;
	const char *type, *ptype, *adig;
	uint8_t d[HASH_LEN];
	char hex[2 * HASH_LEN + 1];
	int rc = -1;

	if (envelope_payload(path, pk, &payload, e) < 0)
		goto done;
	if ((st = json_parse(payload.p, payload.len, "the statement", 1, &pe)) == NULL) {
		err_set(e, ERR_FINDING, "%s: %s", path, pe.msg);
		goto done;
	}
	type = str(st, "_type");
	ptype = str(st, "predicateType");
	adig = str(json_get(json_get(json_get(st, "predicate"), "archive"), "digest"), "sha256");
	if (type == NULL || strcmp(type, ATTEST_STATEMENT) != 0 || ptype == NULL ||
	    strcmp(ptype, ATTEST_PREDICATE) != 0 || !cJSON_IsArray(json_get(st, "subject"))) {
		err_set(e, ERR_FINDING, "%s: not an in-toto Statement v1 of a cohort bundle", path);
		goto done;
	}
	if (hash_file(archive, d, NULL, e) < 0)
		goto done;
	hash_hex_format(d, hex);
	if (adig == NULL || strcmp(adig, hex) != 0) {
		err_set(e, ERR_FINDING, "%s: the predicate's archive sha256 is not %s's", path, archive);
		goto done;
	}
	if ((want = archive_subjects(archive, e)) == NULL ||
	    subjects_match(path, json_get(st, "subject"), want, e) < 0)
		goto done;
	*nsubjects = (size_t)cJSON_GetArraySize(want);
	rc = 0;
done:
	cJSON_Delete(st);
	cJSON_Delete(want);
	buf_release(&payload);
	return rc;
}
