/* attest.h: an in-toto Statement v1 for a bundle archive, in a DSSE
 * envelope signed with the bundle's Ed25519 key.
 *
 * The statement's subjects are the archive's payload files ("data/..."),
 * each with its SHA-256 as the bag's manifest-sha256.txt gives it; its
 * predicate (type ATTEST_PREDICATE) holds the bundle document
 * (data/bundle.json) with its identity, the gate's checks and that none
 * found anything, and the archive's name and SHA-256.  The envelope is
 * {"payload": base64 of the statement's canonical bytes, "payloadType":
 * "application/vnd.in-toto+json", "signatures": [{"keyid": the minisign
 * key id, "sig": base64 of Ed25519 over DSSE's PAE}]}, written as one line
 * of canonical JSON (ARCHIVE.intoto.jsonl).
 */
#ifndef COHORT_ATTEST_H
#define COHORT_ATTEST_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../common/err.h"
#include "../sign/minisign.h"

#define ATTEST_STATEMENT "https://in-toto.io/Statement/v1"
#define ATTEST_PAYLOAD_TYPE "application/vnd.in-toto+json"
#define ATTEST_PREDICATE "urn:cohort:bundle-attestation:1"

/* Attest the archive just written (bundle_doc: its data/bundle.json,
 * archive_id its "sha256:" identity) into path, atomically. */
int attest_write(const char *archive, const cJSON *bundle_doc, const char *archive_id,
                 const struct ms_sec *sk, const char *path, struct err *e);

/* Check the envelope at path against the archive and pk: the envelope's
 * form, the signature over PAE, the statement's form, every subject's
 * digest against the archive's own files (each payload file a subject,
 * once), and the predicate's archive digest.  0 with *nsubjects set when
 * all holds; ERR_FINDING (exit 1) on any failure; ERR_INPUT when the
 * archive itself cannot be read. */
int attest_verify(const char *archive, const char *path, const struct ms_pub *pk,
                  size_t *nsubjects, struct err *e);

#endif
