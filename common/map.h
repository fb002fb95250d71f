/* map.h: read-only mappings of input files that survive the file being
 * cut while it is mapped.
 *
 * A mapped file that another process truncates ends the process with
 * SIGBUS on the next page touched beyond its new end.  A mapping made here
 * is guarded: such a SIGBUS puts zero pages in place of the lost ones (from
 * the page touched to the mapping's end) and marks the mapping cut, and
 * the run goes on to its end, where what it computed from those zeros is
 * refused: outfile_commit (io.h) refuses to publish an output of a run that
 * read a cut file, naming the file, and so does map_check for a caller
 * that writes nothing.  A file cut inside a page reads zeros there with no
 * signal at all; map_check compares each file's size with its mapping's
 * too: the file that was opened, found by the absolute path the kernel
 * gave it and known by its device and inode, never by the name used in
 * messages (which may be relative to another folder, or only a label).  Freeze reads its ledgers instead (protocol/ledgerpar.c), in chunks
 * it parses as they come; this is for files read whole, and for the
 * store's packs, which verify reads on every processor at once.
 *
 * The guard's table of mappings is global, as signal handling requires: a
 * SIGBUS is delivered to the thread that touched the page, with only the
 * address, so the handler can only find the mapping there.
 *
 * Ownership: a struct map owns its mapping (or, past MAP_GUARDED mappings
 * at once, its copy of the file) until map_release, which is NULL-safe and
 * safe on MAP_INIT.
 */
#ifndef COHORT_MAP_H
#define COHORT_MAP_H

#include <stddef.h>

#include "err.h"

/* At most this many guarded mappings at once; more are read into memory. */
#define MAP_GUARDED 4096

struct map {
	const char *p; /* the bytes (NULL when empty) */
	size_t n;      /* how many */
	int slot;      /* its place in the guard's table, -1 for none */
	char *copy;    /* the bytes read into memory, past MAP_GUARDED */
};

#define MAP_INIT { NULL, 0, -1, NULL }

/* Map n bytes of the file open for reading on fd (named path in
 * messages), read-only and guarded; fd may be closed after.  0, or -1
 * with e set ("PATH: cannot map: why"). */
int map_fd(int fd, const char *path, size_t n, struct map *m, struct err *e);

/* The regular file at path (not a symbolic link) mapped whole as map_fd
 * maps it, named name in messages: 0, or -1 with e set ("NAME: cannot
 * read: why", "NAME: not a regular file"). */
int map_path(const char *path, const char *name, struct map *m, struct err *e);
/* Give the mapping back.  A cut one is remembered for map_check. */
void map_release(struct map *m);

/* 0 when no file this process mapped (here) was cut while mapped, else -1
 * with e set (ERR_INPUT, "PATH: cut short while being read: read it again
 * once whatever writes it is done"). */
int map_check(struct err *e);

#endif
