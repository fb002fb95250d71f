/* cas.c: packs and sorted indexes for content-addressed records. */
#define _GNU_SOURCE /* sync_file_range */
#include "cas.h"

#include "../common/io.h"
#include "../common/map.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define IDX_MAGIC "CIDX0001"
#define IDX_ENTRY 44 /* digest 32, offset 8, length 4, big-endian */
#define IDX_CHUNK 1024 /* entries written at once */
#define CAS_OUT_BUF ((size_t)1 << 20)
#define MARKER "cohort.store/1\n"

struct pack {
	const unsigned char *idx; /* mapping of NAME.idx (after the header) */
	size_t idx_len;           /* bytes mapped, with header */
	uint64_t count;
	const char *data; /* mapping of NAME.pack */
	size_t data_len;
	struct map idx_map, data_map; /* the two mappings, guarded (common/map.h) */
};

struct newrec {
	uint8_t d[HASH_LEN];
	uint64_t off;
	uint32_t len;
};

struct cas {
	char *dir;
	struct pack *packs;
	size_t npacks;
	/* the pack being written */
	char *tmp_pack;
	FILE *out;
	char *outbuf;   /* out's buffer: glibc takes a size only with a buffer */
	uint64_t out_off;
	uint64_t synced;  /* pack bytes handed to writeback so far */
	struct newrec *recs;
	size_t nrecs, caprecs;
	char **damage; /* packs that could not be read (read-only opens) */
	size_t ndamage;
	/* cas_commit_prepare's: the new index's temporary file and identity */
	char *tmp_idx;
	uint8_t idx_id[HASH_LEN];
};

static void
put_be(unsigned char *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--) {
		p[i] = (unsigned char)v;
		v >>= 8;
	}
}

/* n bytes at p as a big-endian number; eight in one load (the index
 * check reads a few million). */
static inline uint64_t
get_be(const unsigned char *p, int n)
{
	uint64_t v = 0;

	if (n == 8) {
		memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		v = __builtin_bswap64(v);
#endif
		return v;
	}
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* A pack or index mapped, guarded against its being cut (common/map.h). */
static int
map_file(const char *path, struct map *m, const char **p, size_t *n, struct err *e)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	*m = (struct map)MAP_INIT;
	if (fd < 0)
		return err_set(e, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		close(fd);
		return err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
	}
	if (map_fd(fd, path, (size_t)st.st_size, m, e) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	if (m->slot >= 0)
		madvise((void *)m->p, m->n, MADV_SEQUENTIAL);
	*p = m->p;
	*n = m->n;
	return 0;
}

static int
load_pack(struct cas *c, const char *base, struct err *e)
{
	char path[4096];
	struct pack pk = { 0 };
	const char *idx;
	struct pack *grown;

	snprintf(path, sizeof path, "%s/pack/%s.idx", c->dir, base);
	if (map_file(path, &pk.idx_map, &idx, &pk.idx_len, e) < 0)
		return -1;
	if (pk.idx_len < 16 || memcmp(idx, IDX_MAGIC, 8) != 0 ||
	    (pk.idx_len - 16) % IDX_ENTRY != 0 ||
	    get_be((const unsigned char *)idx + 8, 8) != (pk.idx_len - 16) / IDX_ENTRY) {
		map_release(&pk.idx_map);
		return err_set(e, ERR_INPUT, "%s: not a cohort index", path);
	}
	pk.idx = (const unsigned char *)idx;
	pk.count = (pk.idx_len - 16) / IDX_ENTRY;
	snprintf(path, sizeof path, "%s/pack/%s.pack", c->dir, base);
	if (map_file(path, &pk.data_map, &pk.data, &pk.data_len, e) < 0) {
		map_release(&pk.idx_map);
		return -1;
	}
	grown = realloc(c->packs, (c->npacks + 1) * sizeof *grown);
	if (grown == NULL) {
		map_release(&pk.idx_map);
		map_release(&pk.data_map);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	c->packs = grown;
	c->packs[c->npacks++] = pk;
	return 0;
}

/* mkdir -p: a new store may be several folders deep. */
static int
mkdir_p(const char *dir)
{
	char path[4096];
	size_t n = strlen(dir);

	if (n >= sizeof path)
		return -1;
	memcpy(path, dir, n + 1);
	for (size_t i = 1; i < n; i++)
		if (path[i] == '/') {
			path[i] = '\0';
			if (mkdir(path, 0777) < 0 && errno != EEXIST)
				return -1;
			path[i] = '/';
		}
	return mkdir(path, 0777) < 0 && errno != EEXIST ? -1 : 0;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A new store at dir: its folder, pack/ and the marker, each name made to
 * last a crash.  0, or -1 with e set. */
static int
cas_create(const char *dir, struct err *e)
{
	char path[4096];
	FILE *fp;

	if (mkdir_p(dir) < 0)
		return err_set(e, ERR_IO, "%s: cannot create: %s", dir, strerror(errno));
	snprintf(path, sizeof path, "%s/pack", dir);
	if (mkdir(path, 0777) < 0 && errno != EEXIST)
		return err_set(e, ERR_IO, "%s: cannot create: %s", path, strerror(errno));
	snprintf(path, sizeof path, "%s/cohort-store", dir);
	fp = fopen(path, "wx");
	if (fp == NULL && errno != EEXIST)
		return err_set(e, ERR_IO, "%s: cannot create: %s", path, strerror(errno));
	if (fp) {
		fputs(MARKER, fp);
		if (fflush(fp) != 0 || fsync(fileno(fp)) != 0) {
			fclose(fp);
			return err_set(e, ERR_IO, "%s: cannot write: %s", path, strerror(errno));
		}
		if (fclose(fp) != 0)
			return err_set(e, ERR_IO, "%s: cannot write", path);
	}
	/* the new names last a crash: the marker and pack/ in the store's
	 * folder, the store in its parent */
	return io_sync_dir(path, e) < 0 || io_sync_dir(dir, e) < 0 ? -1 : 0;
}

/* The packs in folder path (their names without ".idx"), sorted: a fixed
 * order keeps lookups of duplicated records deterministic.  0, or -1 with
 * e set; *names is the caller's either way. */
static int
pack_names(const char *path, char ***names, size_t *nnames, struct err *e)
{
	struct dirent *de;
	DIR *d = opendir(path);
	int rc = 0;

	*names = NULL;
	*nnames = 0;
	if (d == NULL)
		return err_set(e, ERR_INPUT, "%s: cannot read: %s", path, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);
		char **g;
		if (n <= 4 || strcmp(de->d_name + n - 4, ".idx") != 0 || de->d_name[0] == '.')
			continue;
		g = realloc(*names, (*nnames + 1) * sizeof *g);
		if (g == NULL || (g[*nnames] = strndup(de->d_name, n - 4)) == NULL) {
			*names = g ? g : *names;
			rc = err_set(e, ERR_NOMEM, "out of memory");
			break;
		}
		*names = g;
		(*nnames)++;
	}
	closedir(d);
	if (rc == 0 && *nnames)
		qsort(*names, *nnames, sizeof **names, cmp_names);
	return rc;
}

/* Pack name loaded into c.  A store opened to be read reports a damaged
 * pack and goes on: its records are then missing, which verify names.
 * 0, or -1 with e set. */
static int
cas_load(struct cas *c, const char *name, int create, struct err *e)
{
	char **d;

	if (load_pack(c, name, e) == 0)
		return 0;
	d = create ? NULL : realloc(c->damage, (c->ndamage + 1) * sizeof *d);
	if (d == NULL || (d[c->ndamage] = strdup(e->msg)) == NULL) {
		if (d)
			c->damage = d;
		return -1;
	}
	c->damage = d;
	c->ndamage++;
	e->code = ERR_OK;
	e->msg[0] = '\0';
	return 0;
}

int
cas_open(const char *dir, int create, struct cas **out, struct err *e)
{
	char path[4096], **names = NULL;
	size_t nnames = 0;
	struct cas *c;
	int rc;

	*out = NULL;
	if (strlen(dir) > 3000)
		return err_set(e, ERR_USAGE, "store path too long");
	snprintf(path, sizeof path, "%s/cohort-store", dir);
	if (access(path, F_OK) != 0) {
		if (!create)
			return err_set(e, ERR_INPUT, "%s: not a cohort store (no cohort-store file)", dir);
		if (cas_create(dir, e) < 0)
			return -1;
	}
	c = calloc(1, sizeof *c);
	if (c == NULL || (c->dir = strdup(dir)) == NULL) {
		free(c);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	snprintf(path, sizeof path, "%s/pack", dir);
	/* a writer clears what killed writers left: packs and indexes that
	 * were being written */
	if (create)
		io_temp_sweep(path);
	rc = pack_names(path, &names, &nnames, e);
	for (size_t i = 0; i < nnames; i++) {
		if (rc == 0)
			rc = cas_load(c, names[i], create, e);
		free(names[i]);
	}
	free(names);
	if (rc < 0) {
		cas_free(c);
		return -1;
	}
	*out = c;
	return 0;
}

void
cas_free(struct cas *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->npacks; i++) {
		map_release(&c->packs[i].idx_map);
		map_release(&c->packs[i].data_map);
	}
	if (c->out)
		fclose(c->out);
	free(c->outbuf);
	if (c->tmp_pack)
		unlink(c->tmp_pack);
	if (c->tmp_idx)
		unlink(c->tmp_idx);
	free(c->tmp_idx);
	for (size_t i = 0; i < c->ndamage; i++)
		free(c->damage[i]);
	free(c->damage);
	free(c->tmp_pack);
	free(c->packs);
	free(c->recs);
	free(c->dir);
	free(c);
}

/* Digests are uniform, so an entry's index is about its first eight bytes'
 * share of 2^64 times the count: a search that interpolates between the
 * bracket's ends takes three or four probes where a bisection takes twenty
 * (each a cache miss in an index of a million).  After six probes it
 * bisects, so an index of chosen digests costs no more than a bisection. */
static int
find_in(const struct pack *pk, const uint8_t d[HASH_LEN], uint64_t *off, uint32_t *len)
{
	uint64_t lo = 0, hi = pk->count, key = get_be(d, 8), klo = 0, khi = UINT64_MAX;
	const unsigned char *base = pk->idx + 16;

	for (int probe = 0; lo < hi; probe++) {
		/* klo <= key <= khi: the keys just outside [lo, hi) */
		uint64_t mid = probe >= 6 ? lo + (hi - lo) / 2 : lo + (uint64_t)(
		    (unsigned __int128)(key - klo) * (hi - lo) / ((unsigned __int128)(khi - klo) + 1));
		const unsigned char *at = base + mid * IDX_ENTRY;
		uint64_t k = get_be(at, 8);
		int r = k != key ? (k < key ? -1 : 1) : memcmp(at + 8, d + 8, HASH_LEN - 8);
		if (r == 0) {
			*off = get_be(at + 32, 8);
			*len = (uint32_t)get_be(at + 40, 4);
			return 1;
		}
		if (r < 0) {
			lo = mid + 1;
			klo = k;
		} else {
			hi = mid;
			khi = k;
		}
	}
	return 0;
}

int
cas_get(struct cas *c, const uint8_t d[HASH_LEN], const char **p, size_t *n, struct err *e)
{
	for (size_t i = 0; i < c->npacks; i++) {
		uint64_t off;
		uint32_t len;
		if (!find_in(&c->packs[i], d, &off, &len))
			continue;
		if (off > c->packs[i].data_len || len > c->packs[i].data_len - off) {
			char id[HASH_ID_LEN + 1];
			hash_id_format(d, id);
			return err_set(e, ERR_INPUT, "%s: index entry for %s points outside its pack",
			    c->dir, id);
		}
		*p = c->packs[i].data + off;
		*n = len;
		return 0;
	}
	return 1;
}

size_t
cas_damage(const struct cas *c, const char *const **msgs)
{
	*msgs = (const char *const *)c->damage;
	return c->ndamage;
}

size_t
cas_npacks(const struct cas *c)
{
	return c->npacks;
}

void
cas_pack_bytes(const struct cas *c, size_t i, const char **p, size_t *n)
{
	*p = c->packs[i].data;
	*n = c->packs[i].data_len;
}

/* Digests compared by their first eight bytes as one number, the rest only
 * on a tie (a million compares: a call to memcmp each cost more). */
static inline int
digest_cmp(const unsigned char *a, const unsigned char *b)
{
	uint64_t x = get_be(a, 8), y = get_be(b, 8);

	if (x != y)
		return x < y ? -1 : 1;
	return memcmp(a + 8, b + 8, HASH_LEN - 8);
}

static inline int
digest_eq(const unsigned char *a, const unsigned char *b)
{
	uint64_t x[4], y[4];

	memcpy(x, a, HASH_LEN);
	memcpy(y, b, HASH_LEN);
	return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3])) == 0;
}

/* The index check reads the entries in order and finds each one's line in
 * the pack; the lines' lengths and digests lie in the caller's arrays, in
 * pack order, so each entry's are anywhere in them.  They are asked for
 * ahead, in steps: a page's first line, then the lengths from there, then
 * the digest, each INDEX_AHEAD entries before it is needed. */
#define INDEX_AHEAD 8
#define INDEX_RING (4 * INDEX_AHEAD)
#define PAGE_SHIFT 12
#define NO_LINE UINT64_MAX

int
cas_pack_index_matches(const struct cas *c, size_t i, const uint8_t *digests, size_t stride,
    const uint32_t *lens, size_t n)
{
	const struct pack *pk = &c->packs[i];
	const unsigned char *idx = pk->idx + 16;
	size_t npages = (size_t)(pk->data_len >> PAGE_SHIFT) + 1;
	/* per entry: its offset, the first line of its page, its line */
	struct {
		uint64_t off, page, line;
	} ring[INDEX_RING];
	uint64_t *page, at = 0;
	int same;

	if (pk->count != n || n > UINT32_MAX)
		return 0;
	if (n == 0)
		return pk->data_len == 0;
	/* Each entry is checked from its own side: its offset must start a
	 * line, of its length and digest.  With the digests strictly
	 * increasing no two entries name one line, and n entries then name
	 * all n: the lines need no sorting.  A line is found from the first
	 * line that starts in its page (page[p]: that line's number, and
	 * where in the page it starts, or NO_LINE), through the lengths of
	 * the few after it. */
	if ((page = malloc(npages * sizeof *page)) == NULL)
		return 0;
	for (size_t p = 0; p < npages; p++)
		page[p] = NO_LINE;
	for (size_t k = 0; k < n; at += (uint64_t)lens[k++] + 1)
		if (at < pk->data_len && page[at >> PAGE_SHIFT] == NO_LINE)
			page[at >> PAGE_SHIFT] = (uint64_t)k << PAGE_SHIFT | (at & ((1u << PAGE_SHIFT) - 1));
	/* and the lines fill the pack */
	same = at == pk->data_len;
	for (size_t k = 0; same && k < n + 3 * INDEX_AHEAD; k++) {
		if (k < n) {
			uint64_t o = get_be(idx + k * IDX_ENTRY + 32, 8);
			ring[k % INDEX_RING].off = o;
			if (o < pk->data_len)
				__builtin_prefetch(&page[o >> PAGE_SHIFT]);
		}
		if (k >= INDEX_AHEAD && k - INDEX_AHEAD < n) {
			size_t e = k - INDEX_AHEAD;
			uint64_t o = ring[e % INDEX_RING].off, v = NO_LINE;
			if (o < pk->data_len && (v = page[o >> PAGE_SHIFT]) != NO_LINE)
				__builtin_prefetch(&lens[v >> PAGE_SHIFT]);
			ring[e % INDEX_RING].page = v;
		}
		if (k >= 2 * INDEX_AHEAD && k - 2 * INDEX_AHEAD < n) {
			size_t e = k - 2 * INDEX_AHEAD;
			uint64_t o = ring[e % INDEX_RING].off, v = ring[e % INDEX_RING].page;
			uint64_t r = NO_LINE;
			if (v != NO_LINE && (o & ((1u << PAGE_SHIFT) - 1)) >= (v & ((1u << PAGE_SHIFT) - 1))) {
				/* from the page's first line to the one at o */
				uint64_t a = (o >> PAGE_SHIFT << PAGE_SHIFT) | (v & ((1u << PAGE_SHIFT) - 1));
				for (r = v >> PAGE_SHIFT; a < o && r < n; r++)
					a += (uint64_t)lens[r] + 1;
				if (a != o || r >= n)
					r = NO_LINE;
			}
			if (r != NO_LINE)
				__builtin_prefetch(digests + r * stride);
			ring[e % INDEX_RING].line = r;
		}
		if (k >= 3 * INDEX_AHEAD) {
			size_t e = k - 3 * INDEX_AHEAD;
			uint64_t r = ring[e % INDEX_RING].line;
			const unsigned char *ent = idx + e * IDX_ENTRY;
			same = r != NO_LINE && get_be(ent + 40, 4) == lens[r] &&
			    digest_eq(digests + r * stride, ent) &&
			    (e == 0 || digest_cmp(ent - IDX_ENTRY, ent) < 0);
		}
	}
	free(page);
	return same;
}

void
cas_pack_count_ranges(const struct cas *c, size_t i, const uint64_t *bounds, size_t nb,
    uint64_t *counts)
{
	const struct pack *pk = &c->packs[i];
	size_t nmb = (pk->data_len >> 20) + 1, *first = calloc(nmb, sizeof *first);

	for (size_t k = 0; k < nb; k++)
		counts[k] = 0;
	/* first[m]: the last range that starts at or before megabyte m, where
	 * a search for an offset in that megabyte starts */
	for (size_t m = 0, r = 0; first != NULL && m < nmb; m++) {
		while (r + 1 < nb && bounds[r + 1] <= (uint64_t)m << 20)
			r++;
		first[m] = r;
	}
	for (uint64_t k = 0; k < pk->count; k++) {
		uint64_t off = get_be(pk->idx + 16 + k * IDX_ENTRY + 32, 8);
		size_t r = first != NULL && (off >> 20) < nmb ? first[off >> 20] : 0;
		/* the last range whose start is at or before off */
		while (r + 1 < nb && bounds[r + 1] <= off)
			r++;
		if (nb > 0 && bounds[r] <= off)
			counts[r]++;
	}
	free(first);
}

uint64_t
cas_count(const struct cas *c)
{
	uint64_t n = 0;

	for (size_t i = 0; i < c->npacks; i++)
		n += c->packs[i].count;
	return n;
}

int
cas_put(struct cas *c, const uint8_t d[HASH_LEN], const void *p, size_t n, struct err *e)
{
	const char *q;
	size_t qn;

	if (n > UINT32_MAX)
		return err_set(e, ERR_INPUT, "record too large for the store");
	if (cas_get(c, d, &q, &qn, e) == 0)
		return 0;
	if (c->out == NULL) {
		char base[4096];
		int fd;
		snprintf(base, sizeof base, "%s/pack/.new", c->dir);
		if ((fd = io_temp_open(base, &c->tmp_pack, e)) < 0)
			return -1;
		c->out = fdopen(fd, "wb");
		if (c->out == NULL) {
			close(fd);
			return err_set(e, ERR_IO, "%s/pack: cannot write", c->dir);
		}
		/* a megabyte a write, not the 4 KB glibc picks for itself */
		if ((c->outbuf = malloc(CAS_OUT_BUF)) != NULL)
			setvbuf(c->out, c->outbuf, _IOFBF, CAS_OUT_BUF);
	}
	if (c->nrecs == c->caprecs) {
		size_t cap = c->caprecs ? 2 * c->caprecs : 4096;
		struct newrec *r = realloc(c->recs, cap * sizeof *r);
		if (r == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		c->recs = r;
		c->caprecs = cap;
	}
	/* the stream is this thread's alone: no lock taken for each record */
	if (fwrite_unlocked(p, 1, n, c->out) != n || putc_unlocked('\n', c->out) == EOF)
		return err_set(e, ERR_IO, "%s/pack: write error: %s", c->dir, strerror(errno));
	memcpy(c->recs[c->nrecs].d, d, HASH_LEN);
	c->recs[c->nrecs].off = c->out_off;
	c->recs[c->nrecs].len = (uint32_t)n;
	c->nrecs++;
	c->out_off += n + 1;
#ifdef SYNC_FILE_RANGE_WRITE
	/* Start writing back every 64 MiB, so that the fsync at the commit
	 * waits for the last stretch only, not for the whole pack. */
	if (c->out_off - c->synced >= ((uint64_t)64 << 20) && fflush(c->out) == 0) {
		sync_file_range(fileno(c->out), (off64_t)c->synced, (off64_t)(c->out_off - c->synced),
		    SYNC_FILE_RANGE_WRITE);
		c->synced = c->out_off;
	}
#endif
	return 0;
}

static int
cmp_recs(const void *a, const void *b)
{
	return memcmp(((const struct newrec *)a)->d, ((const struct newrec *)b)->d, HASH_LEN);
}

/* Below this many records qsort is as quick as the counting sort. */
#define SORT_COUNTING 4096

/* The new records in digest order, stably (of a record put twice the one
 * first in the pack stays first).  Digests are uniform: a counting sort
 * on their first two bytes into a second array leaves buckets of a dozen
 * or so for a million records, finished by insertion.  qsort took a third
 * of a second for a million, at the end of every freeze.  -1 out of
 * memory. */
static int
sort_recs(struct cas *c)
{
	size_t n = c->nrecs;
	struct newrec *out;
	uint32_t *at;

	if (n < SORT_COUNTING) {
		qsort(c->recs, n, sizeof *c->recs, cmp_recs);
		return 0;
	}
	out = malloc(n * sizeof *out);
	at = calloc(65537, sizeof *at);
	if (out == NULL || at == NULL || n > UINT32_MAX) {
		free(out);
		free(at);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		at[(c->recs[i].d[0] << 8 | c->recs[i].d[1]) + 1]++;
	for (size_t b = 0; b < 65536; b++)
		at[b + 1] += at[b];
	for (size_t i = 0; i < n; i++)
		out[at[c->recs[i].d[0] << 8 | c->recs[i].d[1]]++] = c->recs[i];
	/* at[b] is now the end of bucket b */
	for (size_t b = 0, from = 0; b < 65536; from = at[b], b++)
		for (size_t x = from + 1; x < at[b]; x++) {
			struct newrec v = out[x];
			size_t y = x;
			while (y > from && digest_cmp(out[y - 1].d, v.d) > 0) {
				out[y] = out[y - 1];
				y--;
			}
			out[y] = v;
		}
	free(at);
	free(c->recs);
	c->recs = out;
	c->caprecs = n;
	return 0;
}

/* The index of the new pack's n records (sorted, without repeats) into a
 * temporary file, fsync'ed: its name in *tmp (the caller's to free) and
 * the digest of its entries in id. */
static int
write_index(struct cas *c, size_t n, uint8_t id[HASH_LEN], char **tmp, struct err *e)
{
	unsigned char head[16], chunk[IDX_CHUNK * IDX_ENTRY];
	char base[4096];
	struct hash *h;
	FILE *fp;
	int fd, rc = 0;

	snprintf(base, sizeof base, "%s/pack/.idx", c->dir);
	if ((fd = io_temp_open(base, tmp, e)) < 0)
		return -1;
	if ((fp = fdopen(fd, "wb")) == NULL) {
		close(fd);
		return err_set(e, ERR_IO, "%s/pack: cannot write: %s", c->dir, strerror(errno));
	}
	if ((h = hash_new()) == NULL) {
		fclose(fp);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	memcpy(head, IDX_MAGIC, 8);
	put_be(head + 8, n, 8);
	fwrite(head, 1, 16, fp);
	/* entries written and hashed a chunk at a time */
	for (size_t i = 0; i < n;) {
		size_t m = 0;
		for (; i < n && m < IDX_CHUNK; i++, m++) {
			unsigned char *ent = chunk + m * IDX_ENTRY;
			memcpy(ent, c->recs[i].d, HASH_LEN);
			put_be(ent + 32, c->recs[i].off, 8);
			put_be(ent + 40, c->recs[i].len, 4);
		}
		fwrite(chunk, IDX_ENTRY, m, fp);
		hash_update(h, chunk, m * IDX_ENTRY);
	}
	hash_final(h, id);
	hash_free(h);
	if (fflush(fp) != 0 || fsync(fileno(fp)) != 0 || ferror(fp))
		rc = err_set(e, ERR_IO, "%s: write error: %s", *tmp, strerror(errno));
	if (fclose(fp) != 0 && rc == 0)
		rc = err_set(e, ERR_IO, "%s: write error: %s", *tmp, strerror(errno));
	return rc;
}

int
cas_commit_prepare(struct cas *c, struct err *e)
{
	size_t n = 0;

	if (c->out == NULL)
		return 0;
	if (fflush(c->out) != 0 || fsync(fileno(c->out)) != 0)
		return err_set(e, ERR_IO, "%s: write error: %s", c->tmp_pack, strerror(errno));
	fclose(c->out);
	c->out = NULL;
	free(c->outbuf);
	c->outbuf = NULL;
	if (sort_recs(c) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < c->nrecs; i++)
		if (n == 0 || !digest_eq(c->recs[n - 1].d, c->recs[i].d))
			c->recs[n++] = c->recs[i];
	return write_index(c, n, c->idx_id, &c->tmp_idx, e);
}

int
cas_commit_publish(struct cas *c, struct err *e)
{
	char path[4096], hex[2 * HASH_LEN + 1];

	if (c->tmp_idx == NULL)
		return 0;
	/* The pack goes into place before its index: an index never names a
	 * pack that is not there. */
	hash_hex_format(c->idx_id, hex);
	hex[24] = '\0';
	snprintf(path, sizeof path, "%s/pack/%s.pack", c->dir, hex);
	if (rename(c->tmp_pack, path) != 0)
		return err_set(e, ERR_IO, "%s: cannot rename: %s", path, strerror(errno));
	free(c->tmp_pack);
	c->tmp_pack = NULL;
	snprintf(path, sizeof path, "%s/pack/%s.idx", c->dir, hex);
	if (rename(c->tmp_idx, path) != 0)
		return err_set(e, ERR_IO, "%s: cannot rename: %s", path, strerror(errno));
	free(c->tmp_idx);
	c->tmp_idx = NULL;
	c->nrecs = 0;
	if (io_sync_dir(path, e) < 0)
		return -1;
	return load_pack(c, hex, e);
}

int
cas_commit(struct cas *c, struct err *e)
{
	return cas_commit_prepare(c, e) < 0 ? -1 : cas_commit_publish(c, e);
}

int
cas_temp_name(const char *name)
{
	/* ".new-XXXXXX" and ".idx-XXXXXX": the names mkstemp gave before */
	if (strlen(name) == 11 && (strncmp(name, ".new-", 5) == 0 || strncmp(name, ".idx-", 5) == 0))
		return 1;
	return io_temp_name(name);
}
