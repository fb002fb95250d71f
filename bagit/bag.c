/* bag.c: BagIt bags: the deterministic writer (libarchive, pax tar) and
 * the validator of folders and archives that trusts nothing it reads. */
#define _GNU_SOURCE /* asprintf */
#include "bag.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "../common/buf.h"
#include "../common/io.h"
#include "../common/pool.h"

/* The digests a manifest may use, in the order of their index. */
static const char *const ALGS[] = { "md5", "sha1", "sha224", "sha256", "sha384", "sha512" };
#define NALGS 6
#define ALG_SHA256 3

static int
alg_index(const char *name)
{
	for (int i = 0; i < NALGS; i++)
		if (strcmp(name, ALGS[i]) == 0)
			return i;
	return -1;
}

int
bag_check_add(cJSON *checks, const char *check, const char *subject, int ok, const char *fmt, ...)
{
	char detail[1024];
	va_list ap;
	cJSON *c = cJSON_CreateObject();

	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	if (c == NULL)
		return ok;
	cJSON_AddStringToObject(c, "check", check);
	cJSON_AddStringToObject(c, "subject", subject);
	cJSON_AddBoolToObject(c, "ok", ok);
	cJSON_AddStringToObject(c, "detail", detail);
	cJSON_AddItemToArray(checks, c);
	return ok;
}

/* ---------------------------------------------------------------- writer */

/* The archive's own digest is taken on a second thread: the writer copies
 * each block into a small ring and goes on while the hasher catches up.
 * With no second thread the writer hashes each block itself. */
#define RING_SLOTS 4
#define RING_SLOT ((size_t)1 << 20)

struct ring {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *slot[RING_SLOTS];
	size_t len[RING_SLOTS];
	unsigned head, tail, count;
	int done;
	int direct;         /* no hasher thread: ring_put hashes */
	struct hash *h;
};

static void
ring_hasher(void *arg)
{
	struct ring *r = arg;

	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (r->count == 0 && !r->done)
			pthread_cond_wait(&r->cv, &r->mu);
		if (r->count == 0)
			break;
		unsigned i = r->tail;
		pthread_mutex_unlock(&r->mu);
		hash_update(r->h, r->slot[i], r->len[i]);
		pthread_mutex_lock(&r->mu);
		r->tail = (r->tail + 1) % RING_SLOTS;
		r->count--;
		pthread_cond_broadcast(&r->cv);
	}
	pthread_mutex_unlock(&r->mu);
}

/* Hand n bytes to the hasher (in order); blocks while the ring is full. */
static void
ring_put(struct ring *r, const char *p, size_t n)
{
	if (r->direct) {
		hash_update(r->h, p, n);
		return;
	}
	while (n > 0) {
		size_t k = n < RING_SLOT ? n : RING_SLOT;
		pthread_mutex_lock(&r->mu);
		while (r->count == RING_SLOTS)
			pthread_cond_wait(&r->cv, &r->mu);
		unsigned i = r->head;
		pthread_mutex_unlock(&r->mu);
		memcpy(r->slot[i], p, k);
		r->len[i] = k;
		pthread_mutex_lock(&r->mu);
		r->head = (r->head + 1) % RING_SLOTS;
		r->count++;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		p += k;
		n -= k;
	}
}

/* No more bytes: the hasher ends once it has taken those it has. */
static void
ring_end(struct ring *r, struct pool_thread *hasher)
{
	pthread_mutex_lock(&r->mu);
	r->done = 1;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	pool_join(hasher);
}

struct wout {
	int fd;
	struct ring *ring;  /* the hasher of the archive's bytes */
	int err;            /* errno of a failed write */
	uint64_t written;   /* bytes so far */
	uint64_t flushed;   /* bytes whose write-back has been started */
};

static la_ssize_t
wout_write(struct archive *a, void *p, const void *buf, size_t n)
{
	struct wout *w = p;
	const char *q = buf;
	size_t left = n;

	while (left > 0) {
		ssize_t k = write(w->fd, q, left);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			w->err = errno ? errno : EIO;
			archive_set_error(a, w->err, "write error");
			return -1;
		}
		q += k;
		left -= (size_t)k;
	}
	ring_put(w->ring, buf, n);
	w->written += n;
	/* start write-back early, so the fsync at the end has little left to
	 * wait for (a pipe refuses; that is fine) */
	if (w->written - w->flushed >= ((uint64_t)8 << 20)) {
		sync_file_range(w->fd, (off_t)w->flushed, (off_t)(w->written - w->flushed),
		    SYNC_FILE_RANGE_WRITE);
		w->flushed = w->written;
	}
	return (la_ssize_t)n;
}

/* One entry of the archive being written. */
struct went {
	char *path;   /* full name inside the archive */
	int dir;      /* a folder */
	const char *mem;
	const char *src;
	uint64_t size;
};

static int
went_cmp(const void *a, const void *b)
{
	return strcmp(((const struct went *)a)->path, ((const struct went *)b)->path);
}

/* Percent-encode what a manifest line cannot hold (RFC 8493 2.1.3). */
static int
manifest_name(struct buf *b, const char *name)
{
	for (const char *p = name; *p; p++) {
		int r = *p == '%' ? buf_adds(b, "%25") : *p == '\n' ? buf_adds(b, "%0A") :
		    *p == '\r' ? buf_adds(b, "%0D") : buf_addc(b, *p);
		if (r < 0)
			return -1;
	}
	return 0;
}

static int
add_went(struct went **v, size_t *n, size_t *cap, const char *path, int dir, const char *mem,
    const char *src, uint64_t size)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		struct went *nv = realloc(*v, nc * sizeof *nv);
		if (nv == NULL)
			return -1;
		*v = nv;
		*cap = nc;
	}
	(*v)[*n].path = strdup(path);
	if ((*v)[*n].path == NULL)
		return -1;
	(*v)[*n].dir = dir;
	(*v)[*n].mem = mem;
	(*v)[*n].src = src;
	(*v)[*n].size = size;
	(*n)++;
	return 0;
}

static int
write_data(struct archive *a, const struct went *w, struct err *e)
{
	static const size_t chunk = 1 << 20;
	char *b;
	uint64_t total = 0;
	ssize_t k;
	int fd;

	if (w->mem != NULL) {
		if (w->size > 0 && archive_write_data(a, w->mem, w->size) != (la_ssize_t)w->size)
			return err_set(e, ERR_IO, "%s", archive_error_string(a));
		return 0;
	}
	fd = open(w->src, O_RDONLY | O_NOFOLLOW);
	if (fd < 0)
		return err_set(e, ERR_IO, "%s: cannot open: %s", w->src, strerror(errno));
	b = malloc(chunk);
	if (b == NULL) {
		close(fd);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	while ((k = read(fd, b, chunk)) > 0) {
		total += (uint64_t)k;
		if (total > w->size)
			break;
		if (archive_write_data(a, b, (size_t)k) != k) {
			free(b);
			close(fd);
			return err_set(e, ERR_IO, "%s", archive_error_string(a));
		}
	}
	free(b);
	close(fd);
	if (k < 0)
		return err_set(e, ERR_IO, "%s: read error: %s", w->src, strerror(errno));
	if (total != w->size)
		return err_set(e, ERR_INPUT, "%s: changed while it was being bundled", w->src);
	return 0;
}

/* A bag being written: its payload by name, its tag files, and every
 * entry of its archive. */
struct bagw {
	const struct bag_write_opts *o;
	struct bag_file **sorted;  /* the payload, sorted by name */
	size_t n;
	struct buf manifest;       /* manifest-sha256.txt */
	struct buf info;           /* bag-info.txt */
	struct buf tagm;           /* tagmanifest-sha256.txt */
	struct went *v;            /* every entry, folders included, sorted by name */
	size_t nv, cv;
};

static const char bagit_txt[] = "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n";

static void
bagw_release(struct bagw *b)
{
	for (size_t i = 0; i < b->nv; i++)
		free(b->v[i].path);
	free(b->v);
	free(b->sorted);
	buf_release(&b->manifest);
	buf_release(&b->info);
	buf_release(&b->tagm);
}

/* The payload manifest, sorted by name (a name given twice refused), and
 * bag-info.txt with the payload's size. */
static int
bagw_payload(struct bagw *b, struct bag_file *files, struct err *e)
{
	const struct bag_write_opts *o = b->o;
	uint64_t bytes = 0;
	char hex[2 * HASH_LEN + 1];

	b->sorted = malloc((b->n ? b->n : 1) * sizeof *b->sorted);
	if (b->sorted == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < b->n; i++)
		b->sorted[i] = &files[i];
	for (size_t i = 1; i < b->n; i++) /* insertion sort keeps it simple; n is small */
		for (size_t j = i; j > 0 && strcmp(b->sorted[j - 1]->name, b->sorted[j]->name) > 0;
		     j--) {
			struct bag_file *t = b->sorted[j];
			b->sorted[j] = b->sorted[j - 1];
			b->sorted[j - 1] = t;
		}
	for (size_t i = 0; i < b->n; i++) {
		const struct bag_file *f = b->sorted[i];
		if (i > 0 && strcmp(b->sorted[i - 1]->name, f->name) == 0)
			return err_set(e, ERR_INPUT, "\"%s\": named twice in the bag", f->name);
		hash_hex_format(f->sha256, hex);
		if (buf_printf(&b->manifest, "%s  data/", hex) < 0 ||
		    manifest_name(&b->manifest, f->name) < 0 || buf_addc(&b->manifest, '\n') < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
		bytes += f->size;
	}
	if (buf_printf(&b->info,
	        "Bag-Software-Agent: cohort\nBagging-Date: %s\n%sPayload-Oxum: %llu.%zu\n", o->date,
	        o->info ? o->info : "", (unsigned long long)bytes, b->n) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

/* The tag manifest: bag-info.txt, bagit.txt, manifest-sha256.txt (sorted). */
static int
bagw_tags(struct bagw *b, struct err *e)
{
	const struct { const char *name, *p; size_t n; } tags[] = {
		{ "bag-info.txt", b->info.p, b->info.len },
		{ "bagit.txt", bagit_txt, sizeof bagit_txt - 1 },
		{ "manifest-sha256.txt", b->manifest.p ? b->manifest.p : "", b->manifest.len },
	};
	char hex[2 * HASH_LEN + 1];
	uint8_t d[HASH_LEN];

	for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
		hash_bytes(tags[i].p, tags[i].n, d);
		hash_hex_format(d, hex);
		if (buf_printf(&b->tagm, "%s  %s\n", hex, tags[i].name) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
	}
	return 0;
}

/* Every entry of the archive, folders included, then sorted by name. */
static int
bagw_entries(struct bagw *b, struct err *e)
{
	const char *top = b->o->top;
	struct buf full = BUF_INIT;
	int rc = -1;

#define FULL(...) (buf_reset(&full), buf_printf(&full, __VA_ARGS__))
#define ADD(dir, mem, src, size) add_went(&b->v, &b->nv, &b->cv, full.p, dir, mem, src, size)
	if (FULL("%s", top) < 0 || ADD(1, NULL, NULL, 0) < 0 ||
	    FULL("%s/data", top) < 0 || ADD(1, NULL, NULL, 0) < 0 ||
	    FULL("%s/bagit.txt", top) < 0 || ADD(0, bagit_txt, NULL, sizeof bagit_txt - 1) < 0 ||
	    FULL("%s/bag-info.txt", top) < 0 || ADD(0, b->info.p, NULL, b->info.len) < 0 ||
	    FULL("%s/manifest-sha256.txt", top) < 0 ||
	    ADD(0, b->manifest.p ? b->manifest.p : "", NULL, b->manifest.len) < 0 ||
	    FULL("%s/tagmanifest-sha256.txt", top) < 0 ||
	    ADD(0, b->tagm.p, NULL, b->tagm.len) < 0)
		goto done;
	for (size_t i = 0; i < b->n; i++) {
		const struct bag_file *f = b->sorted[i];
		if (FULL("%s/data/%s", top, f->name) < 0 ||
		    ADD(0, f->src ? NULL : (f->mem ? f->mem : ""), f->src, f->size) < 0)
			goto done;
		/* the folders above it */
		for (char *s = strchr(full.p + strlen(top) + 6, '/'); s; s = strchr(s + 1, '/')) {
			*s = '\0';
			int seen = 0;
			for (size_t j = b->nv; j-- > 0 && !seen;)
				seen = b->v[j].dir && strcmp(b->v[j].path, full.p) == 0;
			if (!seen && ADD(1, NULL, NULL, 0) < 0)
				goto done;
			*s = '/';
		}
	}
#undef ADD
#undef FULL
	qsort(b->v, b->nv, sizeof *b->v, went_cmp);
	rc = 0;
done:
	buf_release(&full);
	return rc < 0 ? err_set(e, ERR_NOMEM, "out of memory") : 0;
}

/* A pax archive writing to w, compressed as o says. */
static struct archive *
archive_start(const struct bag_write_opts *o, struct wout *w, const char *path, struct err *e)
{
	struct archive *a = archive_write_new();

	if (a == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    archive_write_set_bytes_per_block(a, 1 << 20) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    (o->compress == BAG_GZIP &&
	        (archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	            archive_write_set_filter_option(a, "gzip", "timestamp", NULL) != ARCHIVE_OK)) ||
	    (o->compress == BAG_ZSTD && archive_write_add_filter_zstd(a) != ARCHIVE_OK) ||
	    archive_write_open2(a, w, NULL, wout_write, NULL, NULL) != ARCHIVE_OK) {
		err_set(e, ERR_IO, "%s: %s", io_name(path), archive_error_string(a));
		archive_write_free(a);
		return NULL;
	}
	return a;
}

/* Every entry with its fixed metadata and its bytes, then the archive's end. */
static int
archive_put(struct archive *a, const struct bagw *b, const char *path, struct err *e)
{
	for (size_t i = 0; i < b->nv; i++) {
		const struct went *v = &b->v[i];
		struct archive_entry *ae = archive_entry_new();
		if (ae == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		archive_entry_set_pathname(ae, v->path);
		archive_entry_set_filetype(ae, v->dir ? AE_IFDIR : AE_IFREG);
		archive_entry_set_perm(ae, v->dir ? 0755 : 0644);
		archive_entry_set_size(ae, v->dir ? 0 : (la_int64_t)v->size);
		archive_entry_set_mtime(ae, (time_t)b->o->mtime, 0);
		archive_entry_set_uid(ae, 0);
		archive_entry_set_gid(ae, 0);
		if (archive_write_header(a, ae) != ARCHIVE_OK) {
			err_set(e, ERR_IO, "%s: %s", io_name(path), archive_error_string(a));
			archive_entry_free(ae);
			return -1;
		}
		archive_entry_free(ae);
		if (!v->dir && write_data(a, v, e) < 0)
			return -1;
	}
	if (archive_write_close(a) != ARCHIVE_OK)
		return err_set(e, ERR_IO, "%s: %s", io_name(path), archive_error_string(a));
	return 0;
}

/* The ring's slots and its hasher; -1 when out of memory (the ring is
 * then still released by ring_release). */
static int
ring_init(struct ring *r)
{
	memset(r, 0, sizeof *r);
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	r->h = hash_new();
	for (int i = 0; i < RING_SLOTS; i++)
		if ((r->slot[i] = malloc(RING_SLOT)) == NULL)
			return -1;
	return r->h != NULL ? 0 : -1;
}

static void
ring_release(struct ring *r)
{
	hash_free(r->h);
	for (int i = 0; i < RING_SLOTS; i++)
		free(r->slot[i]);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
}

int
bag_write(const struct bag_write_opts *o, struct bag_file *files, size_t n, const char *path,
    uint8_t id[HASH_LEN], struct err *e)
{
	struct bagw b = { o, NULL, n, BUF_INIT, BUF_INIT, BUF_INIT, NULL, 0, 0 };
	struct outfile out = OUTFILE_INIT;
	struct wout w = { -1, NULL, 0, 0, 0 };
	struct ring ring;
	struct pool_thread hasher = POOL_THREAD_INIT;
	struct archive *a = NULL;
	int rc = -1;

	if (bagw_payload(&b, files, e) < 0 || bagw_tags(&b, e) < 0 || bagw_entries(&b, e) < 0 ||
	    outfile_open(&out, path, e) < 0) {
		bagw_release(&b);
		return -1;
	}
	/* the archive's digest taken by the hasher as the archive is written */
	w.fd = fileno(out.fp);
	w.ring = &ring;
	if (ring_init(&ring) < 0) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	ring.direct = !pool_spawn(&hasher, ring_hasher, &ring);
	if ((a = archive_start(o, &w, path, e)) == NULL || archive_put(a, &b, path, e) < 0)
		goto done;
	ring_end(&ring, &hasher);
	hash_final(ring.h, id);
	if (outfile_commit(&out, e) < 0)
		goto done;
	rc = 0;
done:
	if (rc < 0)
		outfile_abort(&out);
	archive_write_free(a);
	ring_end(&ring, &hasher);
	ring_release(&ring);
	bagw_release(&b);
	return rc;
}

/* ---------------------------------------------------------------- reader */

/* A payload file of the bag. */
struct bentry {
	char *name;                       /* "data/..." */
	uint64_t size;
	int big;                          /* in the archive only, not extracted */
	char *arcname;                    /* its name in the archive (big ones) */
	unsigned have;                    /* bit i: digest for ALGS[i] known */
	uint8_t dig[NALGS][HASH_MAX_LEN];
	unsigned listed;                  /* bit m: listed in payload manifest m */
};

struct bag {
	char *path;     /* what was opened */
	char *tmp;      /* temporary folder to remove, or NULL */
	char *root;     /* folder holding bagit.txt */
	int archive;    /* opened from an archive */
	struct bentry *ent;
	size_t nent, cent;
	struct bentry *big; /* archive entries too large to extract (names relative to tmp) */
	size_t nbig, cbig;
	char *outside[16];  /* top-level archive entries beside the bag's folder */
	size_t noutside;
};

const char *
bag_root(const struct bag *b)
{
	return b->root;
}

static int
rm_tree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *de;

	if (lstat(path, &st) != 0)
		return 0;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	d = opendir(path);
	if (d != NULL) {
		while ((de = readdir(d)) != NULL) {
			char *sub;
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			if (asprintf(&sub, "%s/%s", path, de->d_name) < 0)
				break;
			rm_tree(sub);
			free(sub);
		}
		closedir(d);
	}
	return rmdir(path);
}

void
bag_free(struct bag *b)
{
	if (b == NULL)
		return;
	if (b->tmp)
		rm_tree(b->tmp);
	for (size_t i = 0; i < b->nent; i++) {
		free(b->ent[i].name);
		free(b->ent[i].arcname);
	}
	for (size_t i = 0; i < b->nbig; i++)
		free(b->big[i].name);
	for (size_t i = 0; i < b->noutside; i++)
		free(b->outside[i]);
	free(b->ent);
	free(b->big);
	free(b->path);
	free(b->tmp);
	free(b->root);
	free(b);
}

static struct bentry *
push_entry(struct bentry **v, size_t *n, size_t *cap, const char *name, uint64_t size)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		struct bentry *nv = realloc(*v, nc * sizeof *nv);
		if (nv == NULL)
			return NULL;
		*v = nv;
		*cap = nc;
	}
	memset(&(*v)[*n], 0, sizeof **v);
	(*v)[*n].name = strdup(name);
	if ((*v)[*n].name == NULL)
		return NULL;
	(*v)[*n].size = size;
	return &(*v)[(*n)++];
}

/* An archive entry's name, made relative and checked: no absolute path, no
 * "." or ".." or empty component (a leading "./" is dropped).  0, or -1 with
 * the reason in why. */
static int
safe_name(const char *name, char *out, size_t cap, const char **why)
{
	const char *p = name;
	size_t n;

	while (p[0] == '.' && p[1] == '/')
		p += 2;
	n = strlen(p);
	if (n == 0) {
		*why = "empty name";
		return -1;
	}
	if (n >= cap || n >= BAG_MAX_NAME) {
		*why = "name too long";
		return -1;
	}
	if (p[0] == '/') {
		*why = "absolute path";
		return -1;
	}
	memcpy(out, p, n + 1);
	if (n > 0 && out[n - 1] == '/')
		out[--n] = '\0';
	for (char *s = out;;) {
		char *slash = strchr(s, '/');
		size_t k = slash ? (size_t)(slash - s) : strlen(s);
		if (k == 0 || (k == 1 && s[0] == '.')) {
			*why = "empty or \".\" path component";
			return -1;
		}
		if (k == 2 && s[0] == '.' && s[1] == '.') {
			*why = "path escapes the bag (\"..\")";
			return -1;
		}
		for (size_t i = 0; i < k; i++)
			if ((unsigned char)s[i] < 32) {
				*why = "control character in name";
				return -1;
			}
		if (!slash)
			break;
		s = slash + 1;
	}
	return 0;
}

/* mkdir -p of the parents of rel under base (0700). */
static int
make_parents(const char *base, const char *rel, struct err *e)
{
	char path[BAG_MAX_NAME * 2];

	if (snprintf(path, sizeof path, "%s/%s", base, rel) >= (int)sizeof path)
		return err_set(e, ERR_INPUT, "name too long");
	for (char *s = path + strlen(base) + 1; (s = strchr(s, '/')) != NULL; s++) {
		struct stat st;
		*s = '\0';
		if (mkdir(path, 0700) != 0 && errno != EEXIST)
			return err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
		if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			return err_set(e, ERR_INPUT, "\"%s\": a file and a folder of the same name",
			    path + strlen(base) + 1);
		*s = '/';
	}
	return 0;
}

static struct archive *
reader_open(const char *path, struct err *e)
{
	struct archive *a = archive_read_new();

	if (a == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	archive_read_support_filter_gzip(a);
	archive_read_support_filter_zstd(a);
	archive_read_support_filter_xz(a);
	archive_read_support_filter_bzip2(a);
	archive_read_support_format_tar(a);
	if (archive_read_open_filename(a, path, 1 << 16) != ARCHIVE_OK) {
		err_set(e, ERR_INPUT, "%s: not a readable archive: %s", path, archive_error_string(a));
		archive_read_free(a);
		return NULL;
	}
	return a;
}

/* The one message for an archive that ends early or does not read. */
static int
corrupt(const struct bag *b, struct archive *a, struct err *e)
{
	return err_set(e, ERR_INPUT, "%s: truncated or corrupt archive: %s", b->path,
	    archive_error_string(a));
}

/* An uncompressed tar must end with its two zero blocks: otherwise it was
 * cut at a block boundary and may miss entries. */
static int
tar_end_check(const char *path, struct err *e)
{
	char tail[1024];
	struct stat st;
	int fd = open(path, O_RDONLY), ok = 0;

	if (fd < 0)
		return err_set(e, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && st.st_size >= 1024 && st.st_size % 512 == 0 &&
	    pread(fd, tail, sizeof tail, st.st_size - 1024) == (ssize_t)sizeof tail) {
		ok = 1;
		for (size_t i = 0; i < sizeof tail; i++)
			ok &= tail[i] == 0;
	}
	close(fd);
	return ok ? 0 : err_set(e, ERR_INPUT, "%s: truncated archive (no end-of-archive blocks)", path);
}

/* A compressed archive must be whole to its last byte: the tar reader
 * stops at the end-of-archive blocks and never reads the padding after
 * them, nor the compressed stream's own end, so a cut there would go
 * unseen.  The stream is read raw to its end here. */
static int
stream_end_check(const char *path, struct err *e)
{
	struct archive *a = archive_read_new();
	struct archive_entry *ae;
	char buf[1 << 14];
	la_ssize_t k = 0;
	int rc = -1;

	if (a == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	archive_read_support_filter_gzip(a);
	archive_read_support_filter_zstd(a);
	archive_read_support_filter_xz(a);
	archive_read_support_filter_bzip2(a);
	archive_read_support_format_raw(a);
	if (archive_read_open_filename(a, path, 1 << 16) == ARCHIVE_OK &&
	    archive_read_next_header(a, &ae) == ARCHIVE_OK) {
		while ((k = archive_read_data(a, buf, sizeof buf)) > 0)
			;
		rc = k == 0 ? 0 : -1;
	}
	if (rc < 0)
		err_set(e, ERR_INPUT, "%s: truncated or corrupt archive: %s", path,
		    archive_error_string(a) ? archive_error_string(a) : "the stream ends early");
	archive_read_free(a);
	return rc;
}

static int
write_fd(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* An entry's name, made safe and relative (rel), or an error. */
static const char *
entry_name(const struct bag *b, struct archive_entry *ae, size_t count, char rel[BAG_MAX_NAME + 1],
    struct err *e)
{
	const char *name = archive_entry_pathname_utf8(ae), *why;

	if (name == NULL)
		name = archive_entry_pathname(ae);
	if (name == NULL) {
		err_set(e, ERR_INPUT, "%s: entry %zu has no readable name", b->path, count);
		return NULL;
	}
	if (safe_name(name, rel, BAG_MAX_NAME + 1, &why) < 0) {
		err_set(e, ERR_INPUT, "%s: entry \"%s\": %s", b->path, name, why);
		return NULL;
	}
	return name;
}

/* A regular entry's bytes into a new file at path. */
static int
extract_file(struct bag *b, struct archive *a, const char *name, const char *path,
    la_int64_t size, char *buf, struct err *e)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	la_ssize_t k;
	la_int64_t got = 0;

	if (fd < 0)
		return err_set(e, errno == EEXIST ? ERR_INPUT : ERR_IO, "%s: entry \"%s\": %s",
		    b->path, name, errno == EEXIST ? "appears twice" : strerror(errno));
	while ((k = archive_read_data(a, buf, 1 << 16)) > 0) {
		got += k;
		if (write_fd(fd, buf, (size_t)k) < 0) {
			close(fd);
			return err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
		}
	}
	close(fd);
	if (k < 0 || got != size)
		return err_set(e, ERR_INPUT, "%s: truncated or corrupt archive: %s", b->path,
		    k < 0 ? archive_error_string(a) : "short entry");
	return 0;
}

/* One entry of the archive: a folder made, a file written, or a big file
 * noted and skipped (read from the archive when it is hashed). */
static int
extract_entry(struct bag *b, struct archive *a, struct archive_entry *ae, size_t count, char *buf,
    struct err *e)
{
	char rel[BAG_MAX_NAME + 1], path[BAG_MAX_NAME * 2];
	const char *name = entry_name(b, ae, count, rel, e);
	mode_t type = archive_entry_filetype(ae);
	la_int64_t size;
	struct stat st;

	if (name == NULL)
		return -1;
	if (archive_entry_hardlink(ae) != NULL || archive_entry_symlink(ae) != NULL ||
	    (type != AE_IFREG && type != AE_IFDIR))
		return err_set(e, ERR_INPUT, "%s: entry \"%s\": %s not allowed in a bag", b->path,
		    name, type == AE_IFLNK || archive_entry_symlink(ae) ? "symbolic link" :
		    archive_entry_hardlink(ae) ? "hard link" : "special file");
	if (make_parents(b->tmp, rel, e) < 0)
		return err_prefix(e, "%s: entry \"%s\"", b->path, name);
	snprintf(path, sizeof path, "%s/%s", b->tmp, rel);
	if (type == AE_IFDIR) {
		if (mkdir(path, 0700) != 0 && (errno != EEXIST || lstat(path, &st) != 0 ||
		                                   !S_ISDIR(st.st_mode)))
			return err_set(e, ERR_INPUT, "%s: entry \"%s\": cannot be a folder here",
			    b->path, name);
		return 0;
	}
	size = archive_entry_size(ae);
	if (size < 0 || (uint64_t)size > BAG_MAX_ENTRY)
		return err_set(e, ERR_INPUT, "%s: entry \"%s\": size out of bounds", b->path, name);
	for (size_t i = 0; i < b->nbig; i++)
		if (strcmp(b->big[i].name, rel) == 0)
			return err_set(e, ERR_INPUT, "%s: entry \"%s\" appears twice", b->path, name);
	if ((uint64_t)size <= BAG_EXTRACT_MAX)
		return extract_file(b, a, name, path, size, buf, e);
	if (lstat(path, &st) == 0)
		return err_set(e, ERR_INPUT, "%s: entry \"%s\" appears twice", b->path, name);
	if (push_entry(&b->big, &b->nbig, &b->cbig, rel, (uint64_t)size) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (archive_read_data_skip(a) != ARCHIVE_OK)
		return corrupt(b, a, e);
	return 0;
}

/* Every entry of the archive into b->tmp. */
static int
extract(struct bag *b, struct err *e)
{
	struct archive *a;
	struct archive_entry *ae;
	size_t count = 0;
	int r, rc = -1;
	char *buf = malloc(1 << 16);

	if (buf == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	a = reader_open(b->path, e);
	if (a == NULL) {
		free(buf);
		return -1;
	}
	while ((r = archive_read_next_header(a, &ae)) != ARCHIVE_EOF) {
		if (r < ARCHIVE_WARN) {
			corrupt(b, a, e);
			goto done;
		}
		if (++count > BAG_MAX_ENTRIES) {
			err_set(e, ERR_INPUT, "%s: more than %d entries", b->path, BAG_MAX_ENTRIES);
			goto done;
		}
		if (extract_entry(b, a, ae, count, buf, e) < 0)
			goto done;
	}
	if (archive_filter_count(a) <= 1 ? tar_end_check(b->path, e) < 0 :
	    stream_end_check(b->path, e) < 0)
		goto done;
	rc = 0;
done:
	archive_read_free(a);
	free(buf);
	return rc;
}

/* Collect the payload files under root/data (and the big ones). */
static int
walk(struct bag *b, const char *dir, const char *rel, struct err *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int rc = 0;

	if (d == NULL)
		return errno == ENOENT ? 0 : err_set(e, ERR_IO, "%s: %s", dir, strerror(errno));
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char *sub = NULL, *subrel = NULL;
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (asprintf(&sub, "%s/%s", dir, de->d_name) < 0 ||
		    asprintf(&subrel, "%s/%s", rel, de->d_name) < 0) {
			free(sub);
			rc = err_set(e, ERR_NOMEM, "out of memory");
			break;
		}
		if (lstat(sub, &st) != 0)
			rc = err_set(e, ERR_IO, "%s: %s", sub, strerror(errno));
		else if (S_ISDIR(st.st_mode))
			rc = walk(b, sub, subrel, e);
		else if (S_ISREG(st.st_mode)) {
			if (b->nent >= BAG_MAX_ENTRIES)
				rc = err_set(e, ERR_INPUT, "%s: more than %d files", b->path, BAG_MAX_ENTRIES);
			else if (push_entry(&b->ent, &b->nent, &b->cent, subrel, (uint64_t)st.st_size) == NULL)
				rc = err_set(e, ERR_NOMEM, "out of memory");
		} else {
			rc = err_set(e, ERR_INPUT, "%s: %s not allowed in a bag", subrel,
			    S_ISLNK(st.st_mode) ? "symbolic link" : "special file");
		}
		free(sub);
		free(subrel);
	}
	closedir(d);
	return rc;
}

static int
bentry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct bentry *)a)->name, ((const struct bentry *)b)->name);
}

static struct bentry *
find_entry(const struct bag *b, const char *name)
{
	struct bentry key;

	key.name = (char *)name;
	return b->nent ? bsearch(&key, b->ent, b->nent, sizeof *b->ent, bentry_cmp) : NULL;
}

/* The bag inside the extracted archive: its top, or its one top folder
 * holding bagit.txt (anything beside that folder is outside the bag).
 * Sets b->root and *prefix, the bag's folder inside the archive ("" or
 * "NAME/"); -1 when out of memory. */
static int
find_root(struct bag *b, char **prefix)
{
	struct stat st;
	char *probe;

	if (asprintf(&probe, "%s/bagit.txt", b->tmp) < 0)
		return -1;
	if (lstat(probe, &st) == 0) {
		free(probe);
		b->root = strdup(b->tmp);
		*prefix = strdup("");
		return b->root && *prefix ? 0 : -1;
	}
	free(probe);
	DIR *d = opendir(b->tmp);
	struct dirent *de;
	char *only = NULL;
	int bags = 0;
	while (d && (de = readdir(d)) != NULL) {
		char *bt;
		struct stat bs;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (asprintf(&bt, "%s/%s/bagit.txt", b->tmp, de->d_name) < 0)
			break;
		if (lstat(bt, &bs) == 0 && S_ISREG(bs.st_mode)) {
			bags++;
			free(only);
			only = strdup(de->d_name);
		}
		free(bt);
	}
	if (d)
		rewinddir(d);
	while (bags == 1 && only && d && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    strcmp(de->d_name, only) == 0)
			continue;
		if (b->noutside < sizeof b->outside / sizeof b->outside[0])
			b->outside[b->noutside++] = strdup(de->d_name);
	}
	if (d)
		closedir(d);
	if (bags == 1 && only) {
		if (asprintf(&b->root, "%s/%s", b->tmp, only) < 0)
			b->root = NULL;
		if (asprintf(prefix, "%s/", only) < 0)
			*prefix = NULL;
	} else {
		b->root = strdup(b->tmp);
		*prefix = strdup("");
	}
	free(only);
	return b->root && *prefix ? 0 : -1;
}

/* The archive at path extracted into a temporary folder, its bag found;
 * its big entries (left in the archive) must lie in the bag's data/ and
 * become payload entries. */
static int
unpack(struct bag *b, const char *path, struct err *e)
{
	const char *tmpdir = getenv("TMPDIR");
	char *prefix = NULL;
	int rc = -1;

	b->archive = 1;
	if (asprintf(&b->tmp, "%s/cohort-bag.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp") < 0) {
		b->tmp = NULL;
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	if (mkdtemp(b->tmp) == NULL) {
		err_set(e, ERR_IO, "%s: cannot make a temporary folder: %s", b->tmp, strerror(errno));
		free(b->tmp);
		b->tmp = NULL;
		return -1;
	}
	if (extract(b, e) < 0)
		return -1;
	if (find_root(b, &prefix) < 0)
		goto nomem;
	for (size_t i = 0; i < b->nbig; i++) {
		const char *n = b->big[i].name;
		size_t k = strlen(prefix);
		if (strncmp(n, prefix, k) != 0 || strncmp(n + k, "data/", 5) != 0) {
			err_set(e, ERR_INPUT, "%s: entry \"%s\": tag file larger than %llu bytes", path, n,
			    (unsigned long long)BAG_EXTRACT_MAX);
			goto done;
		}
		struct bentry *be = push_entry(&b->ent, &b->nent, &b->cent, n + k, b->big[i].size);
		if (be == NULL || (be->arcname = strdup(n)) == NULL)
			goto nomem;
		be->big = 1;
	}
	rc = 0;
	goto done;
nomem:
	err_set(e, ERR_NOMEM, "out of memory");
done:
	free(prefix);
	return rc;
}

/* The payload: every file under the bag's data/, sorted by name, none twice. */
static int
read_payload(struct bag *b, const char *path, struct err *e)
{
	struct stat st;
	char *data;
	int r;

	if (asprintf(&data, "%s/data", b->root) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (lstat(data, &st) == 0 && !S_ISDIR(st.st_mode)) {
		free(data);
		return err_set(e, ERR_INPUT, "%s: data is not a folder", path);
	}
	r = walk(b, data, "data", e);
	free(data);
	if (r < 0)
		return -1;
	if (b->nent > 1)
		qsort(b->ent, b->nent, sizeof *b->ent, bentry_cmp);
	for (size_t i = 1; i < b->nent; i++)
		if (strcmp(b->ent[i - 1].name, b->ent[i].name) == 0)
			return err_set(e, ERR_INPUT, "%s: entry \"%s\" appears twice", path,
			    b->ent[i].name);
	return 0;
}

int
bag_open(const char *path, struct bag **out, struct err *e)
{
	struct bag *b = calloc(1, sizeof *b);
	struct stat st;

	*out = NULL;
	if (b == NULL || (b->path = strdup(path)) == NULL) {
		free(b);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	if (stat(path, &st) != 0) {
		err_set(e, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		if ((b->root = strdup(path)) == NULL) {
			err_set(e, ERR_NOMEM, "out of memory");
			goto fail;
		}
	} else if (unpack(b, path, e) < 0) {
		goto fail;
	}
	if (read_payload(b, path, e) < 0)
		goto fail;
	*out = b;
	return 0;
fail:
	bag_free(b);
	return -1;
}

/* ------------------------------------------------------------ validation */

/* Hash a file on disk with every algorithm in mask, in one read. */
static int
hash_path(const char *path, unsigned mask, uint8_t dig[NALGS][HASH_MAX_LEN], struct err *e)
{
	struct hash *h[NALGS] = { 0 };
	static const size_t chunk = 1 << 20;
	char *buf = malloc(chunk);
	ssize_t k;
	int fd = open(path, O_RDONLY | O_NOFOLLOW), rc = 0;

	if (fd < 0 || buf == NULL) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return err_set(e, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	}
	for (int i = 0; i < NALGS; i++)
		if (mask & (1u << i))
			h[i] = hash_new_alg(ALGS[i]);
	while ((k = read(fd, buf, chunk)) > 0)
		for (int i = 0; i < NALGS; i++)
			if (h[i])
				hash_update(h[i], buf, (size_t)k);
	if (k < 0)
		rc = err_set(e, ERR_IO, "%s: read error: %s", path, strerror(errno));
	for (int i = 0; i < NALGS; i++) {
		size_t n;
		if (h[i]) {
			hash_final_alg(h[i], dig[i], &n);
			hash_free(h[i]);
		}
	}
	close(fd);
	free(buf);
	return rc;
}

/* What each_big does with one big entry's data, read from a. */
typedef int (*big_fn)(struct bag *b, struct archive *a, struct bentry *be, const char *rel,
    char *buf, size_t nbuf, void *ctx, struct err *e);

/* Another pass over the archive for the entries too large to extract in
 * the first: each regular entry that is one of b's big entries (under
 * prefix, when given; larger than BAG_EXTRACT_MAX, when sized) goes to fn
 * with a megabyte of scratch.  A corrupt archive or fn's failure stops it. */
static int
each_big(struct bag *b, const char *prefix, int sized, big_fn fn, void *ctx, struct err *e)
{
	struct archive *a;
	struct archive_entry *ae;
	char rel[BAG_MAX_NAME + 1];
	const char *why;
	size_t k = prefix ? strlen(prefix) : 0;
	char *buf;
	int r, rc = -1;

	a = reader_open(b->path, e);
	if (a == NULL)
		return -1;
	buf = malloc(1 << 20);
	if (buf == NULL) {
		archive_read_free(a);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	while ((r = archive_read_next_header(a, &ae)) != ARCHIVE_EOF) {
		const char *name;
		struct bentry *be = NULL;

		if (r < ARCHIVE_WARN) {
			corrupt(b, a, e);
			goto done;
		}
		name = archive_entry_pathname_utf8(ae);
		if (name == NULL)
			name = archive_entry_pathname(ae);
		if (name == NULL || safe_name(name, rel, sizeof rel, &why) < 0 ||
		    archive_entry_filetype(ae) != AE_IFREG ||
		    (sized && (uint64_t)archive_entry_size(ae) <= BAG_EXTRACT_MAX))
			continue;
		for (size_t i = 0; i < b->nent && be == NULL; i++)
			if (b->ent[i].big && strcmp(b->ent[i].arcname, rel) == 0 &&
			    (prefix == NULL || strncmp(b->ent[i].name, prefix, k) == 0))
				be = &b->ent[i];
		if (be != NULL && fn(b, a, be, rel, buf, 1 << 20, ctx, e) < 0)
			goto done;
	}
	rc = 0;
done:
	free(buf);
	archive_read_free(a);
	return rc;
}

/* each_big's work for validation: the entry's digests, every algorithm
 * in *(unsigned *)ctx at once. */
static int
hash_one_big(struct bag *b, struct archive *a, struct bentry *be, const char *rel, char *buf,
    size_t nbuf, void *ctx, struct err *e)
{
	unsigned mask = *(unsigned *)ctx;
	struct hash *h[NALGS] = { 0 };
	la_ssize_t k;

	(void)rel;
	for (int i = 0; i < NALGS; i++)
		if (mask & (1u << i))
			h[i] = hash_new_alg(ALGS[i]);
	while ((k = archive_read_data(a, buf, nbuf)) > 0)
		for (int i = 0; i < NALGS; i++)
			if (h[i])
				hash_update(h[i], buf, (size_t)k);
	for (int i = 0; i < NALGS; i++) {
		size_t n;
		if (h[i]) {
			hash_final_alg(h[i], be->dig[i], &n);
			hash_free(h[i]);
		}
	}
	if (k < 0)
		return corrupt(b, a, e);
	be->have |= mask;
	return 0;
}

/* Second pass over an archive: hash the entries too large to extract. */
static int
hash_big(struct bag *b, unsigned mask, struct err *e)
{
	return each_big(b, NULL, 1, hash_one_big, &mask, e);
}

/* Read a tag file under the root (no links); 1 when it does not exist. */
static int
read_tag(const struct bag *b, const char *name, struct buf *out, struct err *e)
{
	char *path;
	struct stat st;
	int rc;

	if (asprintf(&path, "%s/%s", b->root, name) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (lstat(path, &st) != 0) {
		free(path);
		return 1;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = err_set(e, ERR_INPUT, "%s: %s: not a regular file", b->path, name);
		free(path);
		return rc;
	}
	rc = io_read_all(path, out, BAG_MAX_TAG, e);
	free(path);
	return rc;
}

/* Turn a tag file's bytes into UTF-8 text per the declared encoding. */
static int
decode_tag(const char *enc, const struct buf *in, struct buf *out)
{
	const unsigned char *p = (const unsigned char *)(in->p ? in->p : "");
	size_t n = in->len;

	if (strcasecmp(enc, "UTF-8") == 0) {
		if (n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF)
			p += 3, n -= 3;
		return buf_add(out, p, n);
	}
	if (strcasecmp(enc, "ISO-8859-1") == 0 || strcasecmp(enc, "latin1") == 0) {
		for (size_t i = 0; i < n; i++) {
			if (p[i] < 0x80 ? buf_addc(out, (char)p[i]) < 0 :
			    (buf_addc(out, (char)(0xC0 | p[i] >> 6)) < 0 ||
			        buf_addc(out, (char)(0x80 | (p[i] & 0x3F))) < 0))
				return -1;
		}
		return 0;
	}
	if (strncasecmp(enc, "UTF-16", 6) == 0) {
		int le = strcasecmp(enc, "UTF-16LE") == 0;
		size_t i = 0;
		if (n >= 2 && p[0] == 0xFF && p[1] == 0xFE)
			le = 1, i = 2;
		else if (n >= 2 && p[0] == 0xFE && p[1] == 0xFF)
			le = 0, i = 2;
		for (; i + 1 < n; i += 2) {
			unsigned u = le ? (unsigned)(p[i] | p[i + 1] << 8) : (unsigned)(p[i] << 8 | p[i + 1]);
			if (u >= 0xD800 && u < 0xDC00 && i + 3 < n) {
				unsigned lo = le ? (unsigned)(p[i + 2] | p[i + 3] << 8) :
				                   (unsigned)(p[i + 2] << 8 | p[i + 3]);
				u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
				i += 2;
			}
			char t[4];
			size_t k;
			if (u < 0x80)
				t[0] = (char)u, k = 1;
			else if (u < 0x800)
				t[0] = (char)(0xC0 | u >> 6), t[1] = (char)(0x80 | (u & 0x3F)), k = 2;
			else if (u < 0x10000)
				t[0] = (char)(0xE0 | u >> 12), t[1] = (char)(0x80 | ((u >> 6) & 0x3F)),
				t[2] = (char)(0x80 | (u & 0x3F)), k = 3;
			else
				t[0] = (char)(0xF0 | u >> 18), t[1] = (char)(0x80 | ((u >> 12) & 0x3F)),
				t[2] = (char)(0x80 | ((u >> 6) & 0x3F)), t[3] = (char)(0x80 | (u & 0x3F)), k = 4;
			if (buf_add(out, t, k) < 0)
				return -1;
		}
		return 0;
	}
	return 1; /* unsupported */
}

/* Next line of text (CR LF, LF or CR ends it); NULL at the end. */
static char *
next_line(char **cursor)
{
	char *s = *cursor, *q;

	if (s == NULL || *s == '\0')
		return NULL;
	q = s + strcspn(s, "\r\n");
	if (*q == '\r' && q[1] == '\n')
		*q = '\0', *cursor = q + 2;
	else if (*q)
		*q = '\0', *cursor = q + 1;
	else
		*cursor = q;
	return s;
}

/* A manifest or fetch path: decoded (%0A %0D %25), leading "./" dropped,
 * and checked to stay inside the bag; -1 with why if it does not. */
static int
manifest_path(const char *in, char *out, size_t cap, const char **why)
{
	char dec[BAG_MAX_NAME + 1];
	size_t k = 0;

	for (const char *p = in; *p; p++) {
		if (k >= sizeof dec - 1) {
			*why = "path too long";
			return -1;
		}
		if (p[0] == '%' && p[1] == '0' && (p[2] == 'A' || p[2] == 'a'))
			dec[k++] = '\n', p += 2;
		else if (p[0] == '%' && p[1] == '0' && (p[2] == 'D' || p[2] == 'd'))
			dec[k++] = '\r', p += 2;
		else if (p[0] == '%' && p[1] == '2' && p[2] == '5')
			dec[k++] = '%', p += 2;
		else
			dec[k++] = *p;
	}
	dec[k] = '\0';
	if (dec[0] == '~') {
		*why = "path outside the bag (\"~\")";
		return -1;
	}
	if (strchr(dec, '\\') != NULL && strstr(dec, "..") != NULL) {
		*why = "path escapes the bag (\"..\")";
		return -1;
	}
	return safe_name(dec, out, cap, why) < 0 ? -1 : 0;
}

struct manifest {
	char name[260];
	int alg;
	int tag;
};

static int
check_bagit_txt(struct bag *b, cJSON *checks, char *enc, size_t encsz, struct err *e)
{
	struct buf raw = BUF_INIT;
	int r = read_tag(b, "bagit.txt", &raw, e), bad = 0;
	char *cur, *line, *ver = NULL, *en = NULL;
	int nlines = 0;

	if (r < 0)
		return -1;
	snprintf(enc, encsz, "UTF-8");
	if (r == 1) {
		buf_release(&raw);
		return !bag_check_add(checks, "bagit", "bagit.txt", 0,
		    "bagit.txt is missing: this is not a bag");
	}
	if (raw.len >= 3 && memcmp(raw.p, "\xEF\xBB\xBF", 3) == 0) {
		buf_release(&raw);
		return !bag_check_add(checks, "bagit", "bagit.txt", 0,
		    "bagit.txt starts with a byte-order mark, which RFC 8493 forbids");
	}
	cur = raw.p;
	while ((line = next_line(&cur)) != NULL) {
		nlines++;
		if (strncmp(line, "BagIt-Version: ", 15) == 0 && ver == NULL)
			ver = line + 15;
		else if (strncmp(line, "Tag-File-Character-Encoding: ", 29) == 0 && en == NULL)
			en = line + 29;
		else if (*line)
			bad = 1;
	}
	if (ver == NULL || en == NULL || bad) {
		bag_check_add(checks, "bagit", "bagit.txt", 0,
		    "expected exactly the lines \"BagIt-Version: M.N\" and "
		    "\"Tag-File-Character-Encoding: ENCODING\"");
		buf_release(&raw);
		return 1;
	}
	size_t i = 0;
	while (ver[i] >= '0' && ver[i] <= '9')
		i++;
	int okv = i > 0 && ver[i] == '.';
	size_t j = i + 1;
	while (okv && ver[j] >= '0' && ver[j] <= '9')
		j++;
	okv = okv && j > i + 1 && ver[j] == '\0';
	if (!okv) {
		bag_check_add(checks, "bagit", "bagit.txt", 0, "BagIt-Version \"%s\" is not M.N", ver);
		buf_release(&raw);
		return 1;
	}
	snprintf(enc, encsz, "%s", en);
	bag_check_add(checks, "bagit", "bagit.txt", 1, "BagIt-Version %s, %s", ver, en);
	buf_release(&raw);
	return 0;
}

/* Parse one manifest into (path, hex) pairs; appends findings. */
/* The hex digits of a digest of ALGS[alg]. */
static size_t
digest_hexlen(int alg)
{
	struct hash *h = hash_new_alg(ALGS[alg]);
	uint8_t probe[HASH_MAX_LEN];
	size_t n = 0;

	hash_final_alg(h, probe, &n);
	hash_free(h);
	return 2 * n;
}

/* A manifest line "DIGEST PATH": the digest in lowercase into hex, *path
 * where the path starts.  1 (a finding recorded) when the line is not
 * one. */
static int
split_line(const struct manifest *m, char *line, long lineno, size_t hexlen,
    char hex[2 * HASH_MAX_LEN + 1], char **path, cJSON *checks)
{
	size_t k = 0;

	while ((line[k] >= '0' && line[k] <= '9') || (line[k] >= 'a' && line[k] <= 'f') ||
	    (line[k] >= 'A' && line[k] <= 'F'))
		k++;
	if (k != hexlen || (line[k] != ' ' && line[k] != '\t'))
		return !bag_check_add(checks, "manifest", m->name, 0,
		    "line %ld: expected a %s digest, white space and a path", lineno, ALGS[m->alg]);
	for (size_t i = 0; i < k; i++)
		hex[i] = (char)(line[i] >= 'A' && line[i] <= 'F' ? line[i] + 32 : line[i]);
	hex[k] = '\0';
	*path = line + k;
	while (**path == ' ' || **path == '\t')
		(*path)++;
	if (**path == '*')
		(*path)++; /* md5sum's binary mode marker */
	return 0;
}

static int
listed_before(char *const *seen, size_t nseen, const char *rel)
{
	for (size_t i = 0; i < nseen; i++)
		if (strcmp(seen[i], rel) == 0)
			return 1;
	return 0;
}

/* The digest dig of rel against the one m lists (hex): 1 (a finding
 * recorded under check) when they differ. */
static int
compare_digest(cJSON *checks, const char *check, const struct manifest *m, const char *rel,
    const uint8_t *dig, size_t hexlen, const char *hex)
{
	char want[2 * HASH_MAX_LEN + 1];

	for (size_t i = 0; i < hexlen / 2; i++)
		snprintf(want + 2 * i, 3, "%02x", dig[i]);
	if (strcmp(want, hex) == 0)
		return 0;
	return !bag_check_add(checks, check, rel, 0, "%s is %s, %s says %s", ALGS[m->alg], want,
	    m->name, hex);
}

/* A tag file listed in a tag manifest: there, with the digest listed.
 * The findings (0 or 1), or -1 when it cannot be read. */
static int
check_tag_file(struct bag *b, const struct manifest *m, const char *rel, size_t hexlen,
    const char *hex, cJSON *checks, struct err *e)
{
	uint8_t dig[NALGS][HASH_MAX_LEN];
	struct stat st;
	char *full;
	int r;

	if (asprintf(&full, "%s/%s", b->root, rel) < 0)
		return 0;
	if (lstat(full, &st) != 0 || !S_ISREG(st.st_mode))
		r = !bag_check_add(checks, "tagmanifest", rel, 0, "listed in %s but missing from the bag",
		    m->name);
	else if (hash_path(full, 1u << m->alg, dig, e) < 0)
		r = -1;
	else
		r = compare_digest(checks, "tagmanifest", m, rel, dig[m->alg], hexlen, hex);
	free(full);
	return r;
}

/* A payload file listed in payload manifest mi: there, with the digest
 * listed.  The findings (0 or 1). */
static int
check_payload_file(struct bag *b, const struct manifest *m, int mi, const char *rel,
    size_t hexlen, const char *hex, cJSON *checks)
{
	struct bentry *be = find_entry(b, rel);

	if (be == NULL)
		return !bag_check_add(checks, "payload", rel, 0, "listed in %s but missing from the bag",
		    m->name);
	be->listed |= 1u << mi;
	return compare_digest(checks, "payload", m, rel, be->dig[m->alg], hexlen, hex);
}

/* Every line of manifest m (payload manifest number mi), each file it
 * lists checked against it.  The findings, or -1 with e set. */
static int
check_manifest(struct bag *b, const struct manifest *m, int mi, const char *enc,
    cJSON *checks, struct err *e)
{
	struct buf raw = BUF_INIT, txt = BUF_INIT;
	char *cur, *line;
	long lineno = 0, listed = 0;
	int findings = 0, r;
	size_t hexlen = digest_hexlen(m->alg);
	char **seen = NULL;
	size_t nseen = 0;

	r = read_tag(b, m->name, &raw, e);
	if (r != 0) {
		buf_release(&raw);
		return r < 0 ? -1 : 0;
	}
	if (decode_tag(enc, &raw, &txt) != 0) {
		buf_release(&raw);
		buf_release(&txt);
		return !bag_check_add(checks, "bagit", m->name, 0, "cannot decode as %s", enc);
	}
	cur = txt.p;
	while ((line = next_line(&cur)) != NULL) {
		char rel[BAG_MAX_NAME + 1], hex[2 * HASH_MAX_LEN + 1], *path = NULL;
		const char *why;

		lineno++;
		if (*line == '\0')
			continue;
		if (split_line(m, line, lineno, hexlen, hex, &path, checks)) {
			findings++;
			continue;
		}
		if (manifest_path(path, rel, sizeof rel, &why) < 0) {
			findings += !bag_check_add(checks, "manifest", m->name, 0, "line %ld: \"%s\": %s",
			    lineno, path, why);
			continue;
		}
		if (!m->tag && strncmp(rel, "data/", 5) != 0) {
			findings += !bag_check_add(checks, "manifest", m->name, 0,
			    "line %ld: \"%s\" is outside the payload folder data/", lineno, rel);
			continue;
		}
		if (listed_before(seen, nseen, rel)) {
			findings += !bag_check_add(checks, "manifest", m->name, 0,
			    "line %ld: \"%s\" is listed twice", lineno, rel);
			continue;
		}
		seen = realloc(seen, (nseen + 1) * sizeof *seen);
		if (seen == NULL || (seen[nseen] = strdup(rel)) == NULL) {
			err_set(e, ERR_NOMEM, "out of memory");
			findings = -1;
			break;
		}
		nseen++;
		listed++;
		r = m->tag ? check_tag_file(b, m, rel, hexlen, hex, checks, e) :
		    check_payload_file(b, m, mi, rel, hexlen, hex, checks);
		if (r < 0) {
			findings = -1;
			break;
		}
		findings += r;
	}
	for (size_t i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	if (findings == 0)
		bag_check_add(checks, m->tag ? "tagmanifest" : "manifest", m->name, 1,
		    "%ld lines hold", listed);
	buf_release(&raw);
	buf_release(&txt);
	return findings;
}

static int
check_oxum(struct bag *b, const char *enc, cJSON *checks, struct err *e)
{
	const char *names[] = { "bag-info.txt", "package-info.txt" };
	int findings = 0;

	for (int t = 0; t < 2; t++) {
		struct buf raw = BUF_INIT, txt = BUF_INIT;
		char *cur, *line;
		int r = read_tag(b, names[t], &raw, e);
		if (r < 0)
			return -1;
		if (r == 1 || decode_tag(enc, &raw, &txt) != 0) {
			buf_release(&raw);
			buf_release(&txt);
			continue;
		}
		cur = txt.p;
		while ((line = next_line(&cur)) != NULL) {
			unsigned long long bytes, count, have_b = 0, have_c = 0;
			char *colon = strchr(line, ':');
			size_t k;
			if (colon == NULL)
				continue;
			k = (size_t)(colon - line);
			while (k > 0 && (line[k - 1] == ' ' || line[k - 1] == '\t'))
				k--;
			if (k != 12 || strncasecmp(line, "Payload-Oxum", 12) != 0)
				continue;
			if (sscanf(colon + 1, " %llu.%llu", &bytes, &count) != 2) {
				findings += !bag_check_add(checks, "oxum", names[t], 0,
				    "Payload-Oxum \"%s\" is not OCTETS.COUNT", colon + 1);
				continue;
			}
			for (size_t i = 0; i < b->nent; i++)
				have_b += b->ent[i].size, have_c++;
			if (bytes != have_b || count != have_c)
				findings += !bag_check_add(checks, "oxum", names[t], 0,
				    "Payload-Oxum says %llu bytes in %llu files, the payload has %llu in %llu",
				    bytes, count, have_b, have_c);
			else
				bag_check_add(checks, "oxum", names[t], 1, "%llu bytes in %llu files",
				    have_b, have_c);
		}
		buf_release(&raw);
		buf_release(&txt);
	}
	return findings;
}

static int
check_fetch(struct bag *b, const char *enc, cJSON *checks, struct err *e)
{
	struct buf raw = BUF_INIT, txt = BUF_INIT;
	char *cur, *line;
	long lineno = 0;
	int findings = 0, r = read_tag(b, "fetch.txt", &raw, e);

	if (r != 0) {
		buf_release(&raw);
		return r < 0 ? -1 : 0;
	}
	if (decode_tag(enc, &raw, &txt) != 0) {
		buf_release(&raw);
		buf_release(&txt);
		return !bag_check_add(checks, "fetch", "fetch.txt", 0, "cannot decode as %s", enc);
	}
	cur = txt.p;
	while ((line = next_line(&cur)) != NULL) {
		char rel[BAG_MAX_NAME + 1];
		const char *why;
		char *sp1, *sp2;
		lineno++;
		if (*line == '\0')
			continue;
		sp1 = strpbrk(line, " \t");
		sp2 = sp1 ? strpbrk(sp1 + strspn(sp1, " \t"), " \t") : NULL;
		if (sp2 == NULL) {
			findings += !bag_check_add(checks, "fetch", "fetch.txt", 0,
			    "line %ld: expected URL LENGTH PATH", lineno);
			continue;
		}
		sp2 += strspn(sp2, " \t");
		if (manifest_path(sp2, rel, sizeof rel, &why) < 0 || strncmp(rel, "data/", 5) != 0)
			findings += !bag_check_add(checks, "fetch", "fetch.txt", 0, "line %ld: \"%s\": %s",
			    lineno, sp2, manifest_path(sp2, rel, sizeof rel, &why) < 0 ? why :
			    "outside the payload folder data/");
	}
	buf_release(&raw);
	buf_release(&txt);
	return findings;
}

/* The manifests present in the bag's top folder, into m[0..*nm): each
 * payload manifest's algorithm is added to *mask.  The findings (an
 * algorithm not supported). */
static int
find_manifests(struct bag *b, struct manifest m[2 * NALGS], int *nm, int *npayload,
    unsigned *mask, cJSON *checks)
{
	DIR *d = opendir(b->root);
	struct dirent *de;
	int findings = 0;

	while (d && (de = readdir(d)) != NULL) {
		const char *n = de->d_name;
		int tag = strncmp(n, "tagmanifest-", 12) == 0;
		size_t k = strlen(n);
		if (!tag && strncmp(n, "manifest-", 9) != 0)
			continue;
		if (k < 4 || strcmp(n + k - 4, ".txt") != 0)
			continue;
		char alg[32];
		const char *a = n + (tag ? 12 : 9);
		size_t ak = (size_t)(n + k - 4 - a);
		if (ak == 0 || ak >= sizeof alg)
			continue;
		memcpy(alg, a, ak);
		alg[ak] = '\0';
		int ai = alg_index(alg);
		if (ai < 0) {
			findings += !bag_check_add(checks, "manifest", n, 0,
			    "digest algorithm \"%s\" is not supported", alg);
			continue;
		}
		if (*nm < 2 * NALGS) {
			snprintf(m[*nm].name, sizeof m[*nm].name, "%s", n);
			m[*nm].alg = ai;
			m[*nm].tag = tag;
			if (!tag)
				*mask |= 1u << ai, (*npayload)++;
			(*nm)++;
		}
	}
	if (d)
		closedir(d);
	return findings;
}

/* Every payload file digested once, with every algorithm in mask. */
static int
digest_payload(struct bag *b, unsigned mask, struct err *e)
{
	for (size_t i = 0; i < b->nent; i++) {
		char *full;
		int r;
		if (b->ent[i].big)
			continue;
		if (asprintf(&full, "%s/%s", b->root, b->ent[i].name) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
		r = hash_path(full, mask, b->ent[i].dig, e);
		free(full);
		if (r < 0)
			return -1;
		b->ent[i].have = mask;
	}
	return b->nbig > 0 ? hash_big(b, mask, e) : 0;
}

/* Payload manifests first (they mark what they list), then tag ones;
 * then every payload file must be listed in every payload manifest.
 * The findings, or -1. */
static int
check_manifests(struct bag *b, const struct manifest *m, int nm, const char *enc, cJSON *checks,
    struct err *e)
{
	int findings = 0, mi = 0, r;

	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < nm; i++) {
			if (m[i].tag != pass)
				continue;
			r = check_manifest(b, &m[i], pass ? 0 : mi, enc, checks, e);
			if (r < 0)
				return -1;
			findings += r;
			if (!pass)
				mi++;
		}
	for (size_t i = 0; i < b->nent; i++) {
		int k = 0;
		for (int j = 0; j < nm; j++) {
			if (m[j].tag)
				continue;
			if (!(b->ent[i].listed & (1u << k)))
				findings += !bag_check_add(checks, "payload", b->ent[i].name, 0,
				    "in the payload but not listed in %s", m[j].name);
			k++;
		}
	}
	return findings;
}

int
bag_check(struct bag *b, cJSON *checks, struct err *e)
{
	char enc[64];
	struct manifest m[2 * NALGS];
	int nm = 0, npayload = 0, findings = 0, r;
	unsigned mask = 1u << ALG_SHA256;

	for (size_t i = 0; i < b->noutside; i++)
		findings += !bag_check_add(checks, "path", b->outside[i] ? b->outside[i] : "?", 0,
		    "the archive holds this entry outside the bag's folder");
	r = check_bagit_txt(b, checks, enc, sizeof enc, e);
	if (r < 0)
		return -1;
	if (r > 0) {
		char probe[] = "bagit.txt";
		struct buf raw = BUF_INIT;
		if (read_tag(b, probe, &raw, e) == 1) {
			buf_release(&raw);
			return 1; /* not a bag: nothing else means anything */
		}
		buf_release(&raw);
		findings++;
	}
	{
		struct buf probe = BUF_INIT, out = BUF_INIT;
		if (decode_tag(enc, &probe, &out) == 1) {
			bag_check_add(checks, "bagit", "bagit.txt", 0,
			    "Tag-File-Character-Encoding \"%s\" is not supported", enc);
			snprintf(enc, sizeof enc, "UTF-8");
			findings++;
		}
		buf_release(&out);
	}
	findings += find_manifests(b, m, &nm, &npayload, &mask, checks);
	if (npayload == 0)
		findings += !bag_check_add(checks, "manifest", "manifest-*.txt", 0,
		    "the bag has no payload manifest");
	if (digest_payload(b, mask, e) < 0 || (r = check_manifests(b, m, nm, enc, checks, e)) < 0)
		return -1;
	findings += r;
	r = check_oxum(b, enc, checks, e);
	if (r < 0)
		return -1;
	findings += r;
	r = check_fetch(b, enc, checks, e);
	if (r < 0)
		return -1;
	findings += r;
	return findings > 0 ? 1 : 0;
}

/* each_big's work for bag_extract: the entry's bytes into the scratch
 * folder, after which it is no longer big. */
static int
extract_one_big(struct bag *b, struct archive *a, struct bentry *be, const char *rel, char *buf,
    size_t nbuf, void *ctx, struct err *e)
{
	char path[BAG_MAX_NAME * 2];
	la_ssize_t got;
	int fd;

	(void)ctx;
	snprintf(path, sizeof path, "%s/%s", b->tmp, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	if (fd < 0)
		return err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
	while ((got = archive_read_data(a, buf, nbuf)) > 0)
		if (write_fd(fd, buf, (size_t)got) < 0) {
			close(fd);
			return err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
		}
	close(fd);
	if (got < 0)
		return corrupt(b, a, e);
	be->big = 0;
	return 0;
}

int
bag_extract(struct bag *b, const char *prefix, struct err *e)
{
	size_t k = strlen(prefix), want = 0;

	for (size_t i = 0; i < b->nent; i++)
		want += b->ent[i].big && strncmp(b->ent[i].name, prefix, k) == 0;
	if (want == 0)
		return 0;
	return each_big(b, prefix, 0, extract_one_big, NULL, e);
}

int
bag_payload_sha256(const struct bag *b, const char *name, uint8_t d[HASH_LEN], int *extracted)
{
	const struct bentry *be = find_entry(b, name);

	if (be == NULL || !(be->have & (1u << ALG_SHA256)))
		return -1;
	memcpy(d, be->dig[ALG_SHA256], HASH_LEN);
	if (extracted)
		*extracted = !be->big;
	return 0;
}
