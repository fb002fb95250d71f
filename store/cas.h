/* cas.h: the content-addressed object store.
 *
 * A store is a folder holding the marker file `cohort-store` and packs in
 * `pack/`: NAME.pack is the records' canonical bytes, each followed by a
 * newline (so a pack is itself JSON Lines), and NAME.idx is a sorted table
 * of (SHA-256, offset, length) that finds them.  One freeze writes one pack;
 * records already in the store are not written again.  Millions of records
 * cost two files, not millions.
 *
 * Ownership: cas_open returns a store the caller frees with cas_free
 * (which discards an uncommitted pack).  Bytes returned by cas_get point into
 * a read-only mapping and live until cas_free.  The mappings are guarded
 * (common/map.h): a pack cut while mapped reads as zeros from there, and
 * the run's outputs are refused.
 */
#ifndef COHORT_CAS_H
#define COHORT_CAS_H

#include <stddef.h>
#include <stdint.h>

#include "../common/err.h"
#include "../common/hash.h"

struct cas;

/* Open the store at dir; with create, make it if it does not exist (and
 * refuse a damaged pack); without, a damaged pack is skipped and listed by
 * cas_damage. */
int cas_open(const char *dir, int create, struct cas **out, struct err *e);
void cas_free(struct cas *c);

/* Add a record whose digest is d (computed by the caller over p).  A record
 * already present is skipped. */
int cas_put(struct cas *c, const uint8_t d[HASH_LEN], const void *p, size_t n, struct err *e);
/* Write the new pack's index and move both into place (fsync'ed). */
int cas_commit(struct cas *c, struct err *e);
/* cas_commit in two steps: the pack and its index written and synced
 * under temporary names (no other call on c meanwhile; cas_free removes
 * them), then moved into place. */
int cas_commit_prepare(struct cas *c, struct err *e);
int cas_commit_publish(struct cas *c, struct err *e);

/* Find a record: 0 and its bytes, 1 when absent, -1 on error. */
int cas_get(struct cas *c, const uint8_t d[HASH_LEN], const char **p, size_t *n, struct err *e);

/* Packs a read-only open could not load (a damaged index, a missing
 * pack): their messages, which stay valid until cas_free. */
size_t cas_damage(const struct cas *c, const char *const **msgs);

/* The committed packs, for a pass over every stored record in order:
 * pack i's bytes (valid until cas_free). */
size_t cas_npacks(const struct cas *c);
void cas_pack_bytes(const struct cas *c, size_t i, const char **p, size_t *n);

/* 1 when pack i's index lists exactly its records, as a pass over the
 * pack found them: its n lines, one after another from its start, line
 * k's length (without its newline) lens[k] and its digest at digests +
 * k * stride (the digests may lie in larger records).  The index must be
 * sorted by digest without repeats, every entry at the offset and length
 * of a line with that digest; 0 otherwise. */
int cas_pack_index_matches(const struct cas *c, size_t i, const uint8_t *digests, size_t stride,
    const uint32_t *lens, size_t n);

/* How many of pack i's index entries lie in each of nb ranges of the
 * pack: range k starts at bounds[k] (increasing) and ends where the next
 * starts (the last, at the end).  What the index says, not checked. */
void cas_pack_count_ranges(const struct cas *c, size_t i, const uint64_t *bounds, size_t nb,
    uint64_t *counts);

/* 1 when name (a file name in a store, without its folder) is a
 * temporary file of a writer (a pack or index being written, or left by
 * one that was killed; common/io.h): never part of the store, and never
 * published with it.  Writers remove the stale ones when they open the
 * store; names of the form ".new-XXXXXX" and ".idx-XXXXXX", left by
 * versions that did not name their process, count too but are left for
 * their owner to remove. */
int cas_temp_name(const char *name);

/* Number of records in committed packs. */
uint64_t cas_count(const struct cas *c);

#endif
