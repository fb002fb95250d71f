/* cas_index: a pack's index, as cas_commit writes it and as
 * cas_pack_index_matches checks it, against a plain check written here:
 * the pack's lines sorted by digest with qsort, then compared with the
 * index entry by entry.
 *
 * usage: cas_index DIR
 * Makes a store in DIR/one (DIR must not exist) of more records than
 * cas_commit sorts with qsort, whose lengths run from two bytes to three
 * pages, so that lines share pages and cross them; the untouched index
 * must match.  Then the index file is changed
 * in chosen ways (an offset one off or another line's, a length, a digest
 * byte, two entries swapped, an entry repeated, an offset past the pack)
 * and at random, and the lines' lengths and digests as a pass would give
 * them; each time both checks must give the same answer, and the chosen
 * changes must all be refused.  Then a store in DIR/dups of records put
 * twice and three times: its index must list each once, at its first
 * place in the pack. */
#include <dirent.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../store/cas.h"

#define N 5000
#define NDUP 6000
#define ENTRY 44

struct line {
	uint8_t d[HASH_LEN];
	uint64_t off;
	uint32_t len;
};

static uint64_t
be(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static int
by_digest(const void *a, const void *b)
{
	return memcmp(((const struct line *)a)->d, ((const struct line *)b)->d, HASH_LEN);
}

/* The plain check: every line, in digest order, is the entry at its place. */
static int
plain(const unsigned char *idx, size_t count, size_t pack_len, const uint8_t *dg,
    const uint32_t *lens, size_t n)
{
	struct line *l = malloc((n + 1) * sizeof *l);
	uint64_t off = 0;
	int same = count == n;

	for (size_t k = 0; k < n; k++) {
		memcpy(l[k].d, dg + k * HASH_LEN, HASH_LEN);
		l[k].off = off;
		l[k].len = lens[k];
		off += lens[k] + 1;
	}
	qsort(l, n, sizeof *l, by_digest);
	for (size_t k = 0; same && k < n; k++) {
		const unsigned char *e = idx + 16 + k * ENTRY;
		same = memcmp(e, l[k].d, HASH_LEN) == 0 && be(e + 32, 8) == l[k].off &&
		    be(e + 40, 4) == l[k].len && (k == 0 || memcmp(e - ENTRY, e, HASH_LEN) < 0);
	}
	free(l);
	return same && off == pack_len;
}

/* Record k's text in rec (its length returned): lengths from 2 bytes to
 * about 3 pages, mostly short. */
static size_t
record(char *rec, size_t cap, size_t k)
{
	size_t len = k % 97 == 0 ? 4000 + (k * 37) % 8300 : 2 + (k * 7919) % 700;
	int m = snprintf(rec, cap, "{\"k\":%zu,\"x\":\"", k);

	if (len < (size_t)m + 2)
		len = (size_t)m + 2;
	memset(rec + m, 'a' + (int)(k % 26), len - (size_t)m - 2);
	memcpy(rec + len - 2, "\"}", 2);
	return len;
}

/* The index of a store of records put more than once: each digest once,
 * in order, at the place of its first putting. */
static int
dups(const char *dir)
{
	static uint8_t d[HASH_LEN];
	static uint64_t first_off[NDUP / 3];
	static uint32_t first_len[NDUP / 3];
	struct err e = ERR_INIT;
	struct cas *c = NULL;
	char rec[12400];
	uint64_t off = 0;
	size_t nd = NDUP / 3, seen = 0;
	int bad = 0;

	if (cas_open(dir, 1, &c, &e) < 0)
		return fprintf(stderr, "cas_index: %s\n", e.msg), 1;
	for (size_t i = 0; i < NDUP; i++) {
		/* record k first at i = k, again later: 0 1 2 ... then k's again */
		size_t k = i < nd ? i : (i * 7) % nd;
		size_t len = record(rec, sizeof rec, k);
		if (i < nd) {
			first_off[k] = off;
			first_len[k] = (uint32_t)len;
		}
		hash_bytes(rec, len, d);
		if (cas_put(c, d, rec, len, &e) < 0)
			return fprintf(stderr, "cas_index: %s\n", e.msg), 1;
		off += len + 1;
	}
	if (cas_commit(c, &e) < 0)
		return fprintf(stderr, "cas_index: %s\n", e.msg), 1;
	/* every record found where it was first put, the index holding no more */
	for (size_t k = 0; k < nd; k++) {
		const char *p;
		size_t n;
		size_t len = record(rec, sizeof rec, k);
		hash_bytes(rec, len, d);
		if (cas_get(c, d, &p, &n, &e) != 0 || n != len || memcmp(p, rec, len) != 0) {
			fprintf(stderr, "cas_index: record %zu put more than once: not found as put\n", k);
			bad = 1;
		} else {
			const char *pk;
			size_t pn;
			cas_pack_bytes(c, 0, &pk, &pn);
			if ((uint64_t)(p - pk) != first_off[k] || n != first_len[k]) {
				fprintf(stderr, "cas_index: record %zu: found at %zu, first put at %llu\n", k,
				    (size_t)(p - pk), (unsigned long long)first_off[k]);
				bad = 1;
			}
			seen++;
		}
	}
	if (cas_count(c) != nd || seen != nd) {
		fprintf(stderr, "cas_index: %llu index entries for %zu records\n",
		    (unsigned long long)cas_count(c), nd);
		bad = 1;
	}
	cas_free(c);
	return bad;
}

static int
write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL)
		return -1;
	int ok = fwrite(p, 1, n, f) == n;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* Both checks on the store as it is now: -1 when they differ. */
static int
both(const char *dir, const unsigned char *idx, size_t idx_len, const uint8_t *dg,
    const uint32_t *lens, size_t n)
{
	struct err e = ERR_INIT;
	struct cas *c = NULL;
	const char *pk;
	size_t pn;

	if (cas_open(dir, 0, &c, &e) < 0 || cas_npacks(c) != 1) {
		cas_free(c);
		return 0; /* refused on opening: no index to check */
	}
	cas_pack_bytes(c, 0, &pk, &pn);
	int fast = cas_pack_index_matches(c, 0, dg, HASH_LEN, lens, n);
	int slow = plain(idx, (idx_len - 16) / ENTRY, pn, dg, lens, n);
	if (getenv("CI_DEBUG")) fprintf(stderr, "fast %d slow %d\n", fast, slow);
	cas_free(c);
	return fast == slow ? fast : -1;
}

int
main(int argc, char **argv)
{
	static uint8_t dg[N * HASH_LEN], dg2[N * HASH_LEN];
	static uint32_t lens[N], lens2[N];
	struct err e = ERR_INIT;
	struct cas *c = NULL;
	char idx_path[8192] = "", rec[12400];
	unsigned char *idx = NULL, *t = NULL;
	size_t idx_len = 0;
	unsigned seed = 12345;
	int fails = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: cas_index DIR\n");
		return 2;
	}
	char one[4096], two[4096];
	snprintf(one, sizeof one, "%.4000s/one", argv[1]);
	snprintf(two, sizeof two, "%.4000s/dups", argv[1]);
	if (mkdir(argv[1], 0755) != 0) {
		perror(argv[1]);
		return 2;
	}
	fails += dups(two);
	if (cas_open(one, 1, &c, &e) < 0) {
		fprintf(stderr, "cas_index: %s\n", e.msg);
		return 2;
	}
	for (size_t k = 0; k < N; k++) {
		size_t len = record(rec, sizeof rec, k);
		hash_bytes(rec, len, dg + k * HASH_LEN);
		lens[k] = (uint32_t)len;
		if (cas_put(c, dg + k * HASH_LEN, rec, len, &e) < 0) {
			fprintf(stderr, "cas_index: %s\n", e.msg);
			return 2;
		}
	}
	if (cas_commit(c, &e) < 0) {
		fprintf(stderr, "cas_index: %s\n", e.msg);
		return 2;
	}
	cas_free(c);

	/* the index file, read whole, to be changed and written back */
	char pdir[4200];
	snprintf(pdir, sizeof pdir, "%s/pack", one);
	DIR *d = opendir(pdir);
	for (struct dirent *de; d != NULL && (de = readdir(d)) != NULL;) {
		size_t l = strlen(de->d_name);
		if (l > 4 && strcmp(de->d_name + l - 4, ".idx") == 0)
			snprintf(idx_path, sizeof idx_path, "%s/%s", pdir, de->d_name);
	}
	if (d != NULL)
		closedir(d);
	FILE *f = fopen(idx_path, "rb");
	if (f == NULL) {
		fprintf(stderr, "cas_index: no index in %s\n", pdir);
		return 2;
	}
	idx = malloc(16 + (N + 1) * ENTRY);
	t = malloc(16 + (N + 1) * ENTRY);
	idx_len = fread(idx, 1, 16 + (N + 1) * ENTRY, f);
	fclose(f);
	if (idx_len != 16 + (size_t)N * ENTRY) {
		fprintf(stderr, "cas_index: the index has %zu bytes\n", idx_len);
		return 2;
	}

	int r = both(one, idx, idx_len, dg, lens, N);
	if (r != 1) {
		fprintf(stderr, "cas_index: the untouched index %s\n", r < 0 ? "splits the checks" : "does not match");
		fails++;
	}

	/* chosen changes, each of which must be refused by both */
	static const char *const what[] = { "an offset one past a line's start",
		"another line's offset", "a length one more", "a digest's last byte",
		"two entries swapped", "an entry repeated", "an offset past the pack",
		"a digest the pass found otherwise", "a length the pass found otherwise",
		"the last entry's offset at the pack's end" };
	for (size_t w = 0; w < sizeof what / sizeof what[0]; w++) {
		size_t k = 1 + (w * 911) % (N - 2);
		unsigned char *ent = t + 16 + k * ENTRY;
		memcpy(t, idx, idx_len);
		memcpy(dg2, dg, sizeof dg);
		memcpy(lens2, lens, sizeof lens);
		switch (w) {
		case 0: ent[39]++; break;
		case 1: memcpy(ent + 32, ent + ENTRY + 32, 8); break;
		case 2: ent[43]++; break;
		case 3: ent[31] ^= 1; break;
		case 4: {
			unsigned char tmp[ENTRY];
			memcpy(tmp, ent, ENTRY);
			memcpy(ent, ent + ENTRY, ENTRY);
			memcpy(ent + ENTRY, tmp, ENTRY);
			break;
		}
		case 5: memcpy(ent + ENTRY, ent, ENTRY); break;
		case 6: memset(ent + 32, 0x7f, 4); break;
		case 7: dg2[k * HASH_LEN + 5] ^= 0x10; break;
		case 8: lens2[k]--; lens2[k + 1]++; break;
		case 9: {
			unsigned char *last = t + 16 + (size_t)(N - 1) * ENTRY;
			uint64_t end = 0;
			for (size_t j = 0; j < N; j++)
				end += lens[j] + 1;
			for (int b = 0; b < 8; b++)
				last[32 + b] = (unsigned char)(end >> (56 - 8 * b));
			break;
		}
		}
		if (write_file(idx_path, t, idx_len) < 0)
			return 2;
		r = both(one, t, idx_len, dg2, lens2, N);
		if (r != 0) {
			fprintf(stderr, "cas_index: %s: %s\n", what[w], r < 0 ? "the checks differ" : "not refused");
			fails++;
		}
	}

	/* random changes to the entries: both checks agree */
	for (int trial = 0; trial < 300; trial++) {
		memcpy(t, idx, idx_len);
		int flips = 1 + trial % 3;
		for (int j = 0; j < flips; j++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = 16 + (seed >> 8) % ((size_t)N * ENTRY);
			seed = seed * 1103515245u + 12345u;
			t[at] ^= (unsigned char)(1u << ((seed >> 16) % 8));
		}
		if (write_file(idx_path, t, idx_len) < 0)
			return 2;
		r = both(one, t, idx_len, dg, lens, N);
		if (r < 0) {
			fprintf(stderr, "cas_index: random change %d: the checks differ\n", trial);
			fails++;
		}
	}
	write_file(idx_path, idx, idx_len);
	free(idx);
	free(t);
	return fails ? 1 : 0;
}
