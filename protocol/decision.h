/* decision.h: one model decision on a paired position, as a decision log
 * holds it, read once for freeze and paired alike.
 *
 * decision_read checks the record's fields and types (contract: the
 * SPEC's decision log) and fills a struct decision whose strings point into
 * the record's tree; decision_read_flat does the same without a tree.  What needs the candidate manifest (the position, the
 * shown set, the legality of the moves) is decision_check's.
 *
 * Conditions: "none"; "top<k>" (the first k candidates, in the order the
 * order seed gives); "top<k>-omit-best" (candidates 2..k+1); "propose" (the
 * model lists its own shortlist, then plays); "engine-selects" (the model
 * lists its shortlist, the manifest's engine picks among it).
 *
 * Ownership: a struct decision borrows from the tree (or the text buffer)
 * it was read from.
 */
#ifndef COHORT_DECISION_H
#define COHORT_DECISION_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../common/err.h"
#include "../common/ts.h"
#include "../json/rec.h"
#include "candidates.h"

#define DECISION_MAX_MOVES 64 /* moves shown or proposed */

enum decision_kind { DK_NONE, DK_TOP, DK_OMIT_BEST, DK_PROPOSE, DK_ENGINE_SELECTS };
enum decision_status { DS_OK, DS_ILLEGAL, DS_TOOL_ERROR, DS_PROVIDER_ERROR };
enum decision_failure { DF_NONE = -1, DF_STATE, DF_TACTIC, DF_VALUE, DF_PLAN, DF_MEMORY,
	DF_INTERFACE, DF_N };

struct decision_cond {
	enum decision_kind kind;
	int k; /* width for top<k> and top<k>-omit-best, else 0 */
};

struct decision {
	const char *decision_id, *family, *replication, *condition, *budget, *position_id;
	const char *requested, *returned;
	struct decision_cond cond;
	int history;           /* context "history" (else "fresh") */
	long long order_seed;
	size_t nshown;
	size_t nproposed;
	int has_proposed;
	const char *chosen;    /* UCI text, or NULL */
	const char *ts_text;   /* "ts" as written */
	enum decision_status status;
	enum decision_failure failure;
	long long retries;
	long long tok[4];      /* input, output, reasoning, cached */
	double latency_ms;
	struct ts ts;
	/* last, read only up to their counts: the readers clear what comes
	 * before (a kilobyte cleared for each of a million decisions was a
	 * tenth of reading them) */
	const char *shown[DECISION_MAX_MOVES];    /* UCI text */
	const char *proposed[DECISION_MAX_MOVES]; /* when has_proposed */
};
/* The bytes of a decision a reader clears. */
#define DECISION_CLEAR offsetof(struct decision, shown)

extern const char *const decision_status_names[4];
extern const char *const decision_failure_names[DF_N];

/* Parse a condition's name; -1 when it is none of the forms above. */
int decision_cond_parse(const char *s, struct decision_cond *c);

/* Read rec's fields into d; errors name the field (`"shown": expected ...`). */
int decision_read(const cJSON *rec, struct decision *d, struct err *e);

/* The flat reader's scratch, one a thread: the reader itself (rs), the
 * field lists made once, and the text a decision's strings are copied
 * into.  decision_flat_init: 0, or -1 out of memory (release it anyway). */
struct decision_flat {
	struct rec_scan *rs;
	struct rec_keys top, model, tokens;
	struct buf text;
	/* where the fields of records of shape `shape` read by `by` are
	 * (rec_shape): the top-level ones, the model's and the tokens', for
	 * the last few shapes (a log often takes turns between conditions
	 * with a "proposed" and without) */
	struct decision_at {
		const struct rec_scan *by;
		uint64_t shape;
		int at[24];
	} at[4];
	unsigned next; /* the place the next shape takes */
};
int decision_flat_init(struct decision_flat *f);
void decision_flat_release(struct decision_flat *f);
/* decision_read for a record the flat reader has read (json/rec.h, token
 * 0 the object), without a tree: 0 when every field is there with its
 * type and range, d's strings then copied into f's text (d borrows them
 * until f's next use); 1 when the record is not read this way (a field
 * missing, of another type, out of range, or a string with escapes), and
 * the caller reads it with decision_read, which says why; -1 out of
 * memory.  So its yes always gives decision_read's d. */
int decision_read_flat(struct decision_flat *f, const struct rec_scan *s, struct decision *d);

/* What a decision's moves mean in its position p of the manifest. */
struct decision_moves {
	size_t nshown, nproposed;
	int have_chosen;
	struct chess_move chosen;
	/* last, read only up to their counts */
	struct chess_move shown[DECISION_MAX_MOVES];
	struct chess_move proposed[DECISION_MAX_MOVES];
};

/* Check d against its position: the shown set is its condition's set (as
 * a set: the order is the order seed's), every move is legal, a chosen
 * move of an "ok" decision lies inside the shown shortlist (engine-selects:
 * inside the proposed one).  0 with m filled; 1 with why set (a static
 * text) when the decision is invalid; -1 out of memory. */
int decision_check(const struct decision *d, const struct cand_position *p,
    struct decision_moves *m, const char **why);

#endif
