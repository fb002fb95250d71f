/* bag.h: BagIt bags (RFC 8493): writing a deterministic bag archive, and
 * validating a bag folder or archive without trusting it.
 *
 * Ownership: bag_open returns a bag the caller releases with bag_free,
 * which also removes any temporary folder it extracted.  bag_write borrows
 * everything it is given.  Checks are appended to a caller's cJSON array as
 * {"check", "subject", "ok", "detail"} objects (the shape of verify.h).
 *
 * Limits of an untrusted archive (larger is an input error): BAG_MAX_ENTRIES
 * entries, names of BAG_MAX_NAME bytes, entries of BAG_MAX_ENTRY bytes, tag
 * files (read whole) of BAG_MAX_TAG bytes.  An archive is extracted whole
 * into a private temporary folder, in one pass that takes each file's
 * SHA-256 as it is written (a sparse entry's holes read as zeros, as GNU
 * tar extracts them).  What it may write there is set by its own
 * bag-info.txt: at most Payload-Oxum's octets plus BAG_TAG_ROOM bytes, and
 * twice Payload-Oxum's count plus BAG_TAG_ENTRIES files and folders; with
 * no Payload-Oxum, BAG_UNDECLARED_BYTES and BAG_UNDECLARED_ENTRIES.  An
 * archive that needs more is refused before it is written.  (bag-info.txt
 * met after payload that would go past the undeclared limits is looked
 * for first, in a pass over the headers, and the archive extracted
 * again.)  Whatever the archive declares, three limits of its own bound
 * what extracting writes, each refused (an input error) before the bytes
 * past it are written: BAG_MAX_EXTRACT bytes on disk in all (a sparse
 * entry's holes, which take no room, aside); half the space free in the
 * temporary folder's file system when extracting begins (statvfs); and, for
 * a compressed archive, a stream that expands to more than BAG_MAX_RATIO
 * times the bytes read of it, once past BAG_RATIO_FLOOR bytes (a
 * decompression bomb: checked as the stream is read, the passes that only
 * look for bag-info.txt or for the stream's end included).  A bag past
 * them is still checked as a folder, extracted by other means.
 * A manifest's lines are checked in O(n log n) (a path listed
 * twice is found by sorting), and past BAG_MAX_LISTED findings in one
 * manifest the rest are counted.
 */
#ifndef COHORT_BAG_H
#define COHORT_BAG_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "../common/err.h"
#include "../common/hash.h"

#define BAG_MAX_ENTRIES 1000000
#define BAG_MAX_NAME 4096
#define BAG_MAX_ENTRY ((uint64_t)1 << 40)
#define BAG_MAX_TAG ((size_t)64 << 20)
#define BAG_TAG_ROOM ((uint64_t)64 << 20)
#define BAG_TAG_ENTRIES 1024
#define BAG_UNDECLARED_BYTES ((uint64_t)64 << 20)
#define BAG_UNDECLARED_ENTRIES 4096
/* The most extracting one archive writes to disk (bytes). */
#define BAG_MAX_EXTRACT ((uint64_t)64 << 30)
/* A compressed archive's stream expands at most this many times the bytes
 * read of it, past its first BAG_RATIO_FLOOR bytes.  (Compressed ledgers,
 * decision logs and requests expand 7 to 31 times under gzip -9 and
 * zstd -19; zeros expand 1,030 times under gzip and 30,000 under zstd.) */
#define BAG_MAX_RATIO 100
#define BAG_RATIO_FLOOR ((uint64_t)64 << 20)
/* Findings of one manifest listed one by one; past this many, counted. */
#define BAG_MAX_LISTED 1000

/* One payload file to write: its bytes come from src (a file on disk) or,
 * when src is NULL, from mem. */
struct bag_file {
	const char *name;          /* path inside data/, e.g. "luna/freeze.json" */
	const char *src;           /* file to copy, or NULL */
	const char *mem;           /* bytes when src is NULL */
	uint64_t size;             /* bytes */
	uint8_t sha256[HASH_LEN];  /* digest of the bytes (the caller's) */
};

enum bag_compress { BAG_PLAIN, BAG_GZIP, BAG_ZSTD };

struct bag_write_opts {
	const char *top;            /* top folder inside the archive (the bag's name) */
	int64_t mtime;              /* every entry's modification time (seconds) */
	enum bag_compress compress;
	const char *info;           /* extra "Label: value\n" lines for bag-info.txt, or NULL */
	const char *date;           /* Bagging-Date, YYYY-MM-DD */
	const char *agent;          /* Bag-Software-Agent (RFC 8493 2.2.2), NULL: "cohort" */
};

/* Write a bag of files (sorted by the callee; names must be unique) as a pax
 * tar to path atomically ("-" or NULL: standard output), and store the
 * SHA-256 of the archive's bytes in id.  Entries are sorted by name, owned
 * by 0:0 with no user or group names, mode 0644 (0755 for folders), and
 * dated opts->mtime.  A file whose size changed since it was hashed fails. */
int bag_write(const struct bag_write_opts *o, struct bag_file *files, size_t n,
    const char *path, uint8_t id[HASH_LEN], struct err *e);

struct bag;

/* Open a bag folder, or an archive (tar, optionally gzip/zstd/xz/bzip2
 * compressed): entries with an absolute path, "..", a link or device, a
 * duplicate name, or beyond the limits, and a truncated or corrupt archive,
 * are input errors. */
int bag_open(const char *path, struct bag **out, struct err *e);
void bag_free(struct bag *b);

/* The folder holding bagit.txt (for an archive, inside the temporary copy). */
const char *bag_root(const struct bag *b);

/* Validate the bag: bagit.txt, every manifest line and tag manifest line,
 * every payload file listed in every manifest, Payload-Oxum, fetch.txt
 * paths.  0 when all holds, 1 with findings appended, -1 on error. */
int bag_check(struct bag *b, cJSON *checks, struct err *e);

/* After bag_check: the SHA-256 of a payload file ("data/..."), which is on
 * disk under bag_root; 0, or -1 if the bag has no such file. */
int bag_payload_sha256(const struct bag *b, const char *name, uint8_t d[HASH_LEN]);

/* The payload files ("data/..."), sorted by name: how many, and the i-th. */
size_t bag_payload_count(const struct bag *b);
const char *bag_payload_name(const struct bag *b, size_t i);

/* A path the bag's own documents name (relative to the bag's root, e.g.
 * "data/store"): 0 when it stays inside the bag (relative, in plain form,
 * no "." or ".." or empty component, no control character, and no
 * symbolic link on the way under the root), else -1 with the reason in
 * why.  Whether it exists is the caller's question. */
int bag_confined(const struct bag *b, const char *rel, const char **why);

/* The value of a bag-info.txt label (its first line, the label matched
 * without regard to case) into out as a string: 0, 1 when bag-info.txt or
 * the label is absent, -1 with e set. */
struct buf;
int bag_info_get(const struct bag *b, const char *label, struct buf *out, struct err *e);

/* Append {"check", "subject", "ok", "detail"} to checks; returns ok. */
int bag_check_add(cJSON *checks, const char *check, const char *subject, int ok,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
