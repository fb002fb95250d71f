/* prereg_check.c: the preregistration reader (protocol/prereg.c) on the
 * example, the line map it names lines by (json/json.c), feature names with
 * and without an index, and the deviations array.  With --registry it
 * prints the feature registry, one name a line, for the shell test to
 * compare with the schema's list. */
#include <stdio.h>
#include <string.h>

#include "../../json/json.h"
#include "../../protocol/prereg.h"

static int bad;

#define EXPECT(c) do { if (!(c)) { fprintf(stderr, "prereg_check:%d: %s\n", __LINE__, #c); bad++; } } while (0)

static void
example(const char *path)
{
	struct prereg p = PREREG_INIT, q = PREREG_INIT;
	struct err e = ERR_INIT;

	if (prereg_read(path, &p, &e) < 0) {
		fprintf(stderr, "prereg_check: %s\n", e.msg);
		bad++;
		return;
	}
	EXPECT(strcmp(p.name, "paired-fixture") == 0);
	EXPECT(p.nwidths == 3 && p.widths[0] == 0 && p.widths[1] == 2 && p.widths[2] == 5);
	EXPECT(p.nsplits == 2 && prereg_split_size(&p, "explore") == 2 &&
	    prereg_split_size(&p, "heldout") == 2 && prereg_split_size(&p, "confirm") == -1);
	EXPECT(p.order_seeds == 3 && p.nbudgets == 2 && strcmp(p.budgets[1], "low") == 0);
	EXPECT(prereg_excludes(&p, "provider_error") && !prereg_excludes(&p, "live"));
	EXPECT(prereg_has_feature(&p, "delta_r") && !prereg_has_feature(&p, "auc"));
	EXPECT(p.lambda == 0.1 && strcmp(p.population, "panel") == 0);
	EXPECT(p.replicates == 200 && strcmp(p.unit, "opening") == 0 && p.seed == 1);
	EXPECT(p.blunder_cp == 300 && cJSON_GetArraySize(p.predictions) == 2);
	/* 2026-07-25T00:00:00Z */
	EXPECT(p.registered.sec == 1784937600 && p.registered_ms == 1784937600000LL);
	/* the tree way gives the same identity */
	EXPECT(prereg_parse(p.doc, "copy", &q, &e) == 0 && strcmp(p.id, q.id) == 0);
	printf("%s\n", p.id);
	prereg_release(&q);
	prereg_release(&p);
	prereg_release(&p); /* released twice is harmless */
}

static void
lines(void)
{
	const char text[] = "{\n \"a\": [1,\n  2],\n\n \"b\": {\"c\": \"x\"}}";
	struct json_lines l = JSON_LINES_INIT;
	struct err e = ERR_INIT;
	cJSON *v = json_parse_lines(text, sizeof text - 1, "t", 1, &l, &e);
	const cJSON *a = json_get(v, "a"), *b = json_get(v, "b");

	EXPECT(v != NULL && l.n == 6);
	EXPECT(json_line(&l, v) == 1 && json_line(&l, a) == 2 && json_line(&l, a->child) == 2 &&
	    json_line(&l, a->child->next) == 3 && json_line(&l, b) == 5 &&
	    json_line(&l, json_get(b, "c")) == 5 && json_line(NULL, v) == 0);
	cJSON_Delete(v);
	json_lines_release(&l);
	json_lines_release(&l);
}

static void
names(void)
{
	const struct prereg_feature *f = NULL;
	static const char *const yes[] = { "delta_r", "delta_r[5]", "r_k[0]", "blunder_hazard[endgame]",
		"failure_labels[tactic]", "slope[2-3]", "tokens_per_decision[high]", "pareto" };
	static const char *const no[] = { "delta_rr", "delta_r[05]", "delta_r[65]", "delta_r[x]",
		"delta_r[]", "delta_r[5", "blunder_hazard[late]", "failure_labels[luck]", "slope[a b]",
		"[5]", "" };

	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
		if (!prereg_feature_name_ok(yes[i], NULL)) {
			fprintf(stderr, "prereg_check: \"%s\" refused\n", yes[i]);
			bad++;
		}
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		if (prereg_feature_name_ok(no[i], NULL)) {
			fprintf(stderr, "prereg_check: \"%s\" taken\n", no[i]);
			bad++;
		}
	EXPECT(prereg_feature_name_ok("blunder_hazard[opening]", &f) && f->layer == PL_STABILITY);
	EXPECT(prereg_feature("k_star") != NULL && prereg_feature("k_star")->layer == PL_STRENGTH);
}

static void
deviations(void)
{
	struct prereg_dev d[2] = { { "widths", "[0,2,5]", "[0,2]" }, { "order_seeds", "3", NULL } };
	struct err e = ERR_INIT;
	struct buf b = BUF_INIT;
	cJSON *doc = cJSON_CreateObject();

	EXPECT(prereg_deviations_add(doc, d, 2, &e) == 0 && canon_write(doc, &b, &e) == 0);
	EXPECT(b.len > 0 && strncmp(b.p, "{\"deviations\":[{\"registered\":\"[0,2,5]\",\"setting\":"
	    "\"widths\",\"used\":\"[0,2]\"},{\"registered\":\"3\",\"setting\":\"order_seeds\","
	    "\"used\":\"\"}]}", b.len) == 0);
	buf_release(&b);
	cJSON_Delete(doc);
}

int
main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--registry") == 0) {
		size_t n;
		const struct prereg_feature *f = prereg_features(&n);
		for (size_t i = 0; i < n; i++)
			printf("%s\n", f[i].name);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: prereg_check PREREG | --registry\n");
		return 2;
	}
	example(argv[1]);
	lines();
	names();
	deviations();
	return bad ? 1 : 0;
}
