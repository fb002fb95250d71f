/* internal.h: what the map reader, the importer and the exporter of
 * pgnio/ share: the fields a map sets, the tags the exporter writes and
 * the built-in map reads (named once, here), and the rules both
 * directions apply to tag text.
 *
 * Ownership: a map's sources borrow their strings and values from the map's
 * own trees; the arrays are the map's.
 */
#ifndef COHORT_PGNIO_INTERNAL_H
#define COHORT_PGNIO_INTERNAL_H

#include <regex.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "../common/err.h"
#include "pgnio.h"

#define PGNIO_MAP_KIND "cohort.pgn-map/1"

/* The tags the exporter writes beyond the standard ones, which the
 * built-in map reads back.  Their names are letters only and each holds a
 * plain value (pgnio_tag_text), as every PGN reader takes them; what no
 * tag can hold goes in the game's note, one line of NOTE_WORD and
 * canonical JSON. */
#define TAG_MODEL "CohortModel" /* model.returned, when White or Black names the condition */
#define TAG_ENGINE "CohortAnchorEngine" /* anchor.engine, likewise */
#define TAG_COLOR "CohortColor" /* the model's colour: white or black */
#define TAG_GAME_ID "CohortGameId"
#define TAG_FAMILY "CohortFamily"
#define TAG_CONDITION "CohortCondition"
#define TAG_BLOCK "CohortBlock"
#define TAG_REQUESTED "CohortModelRequested" /* when it differs from the returned name */
#define TAG_OPENING "CohortOpening"
#define TAG_TERMINATION "CohortTermination" /* the ledger's word, exactly */
#define TAG_LIMITER "CohortAnchorLimiter"
#define TAG_NODES "CohortAnchorNodes"
#define TAG_SHA "CohortAnchorSha"
#define TAG_TOKENS_INPUT "CohortTokensInput"
#define TAG_TOKENS_OUTPUT "CohortTokensOutput"
#define TAG_TOKENS_REASONING "CohortTokensReasoning"
#define TAG_TOKENS_CACHED "CohortTokensCached"
#define TAG_WALL "CohortWallS"
#define TAG_WORKER "CohortWorkerHours"
/* Earlier exports wrote JSON in these tags; the built-in map still reads
 * them. */
#define TAG_SHA_OLD "CohortAnchorSha256"
#define TAG_TOKENS "CohortTokens"     /* canonical JSON of the object */
#define TAG_REQUESTS "CohortRequests" /* canonical JSON of the array */
#define TAG_EXTRA "CohortExtra"       /* canonical JSON of the other fields */
/* The note's line: this word, a space, a JSON object of the fields no
 * tag holds (requests, values a tag cannot hold, the record's other
 * fields), read back as "extra". */
#define NOTE_WORD "cohort"

/* What a field's value is, and how a tag's text becomes one. */
enum pgnio_type {
	T_COLOR,   /* white or black (White and Black read too) */
	T_STRING,  /* the text as it is */
	T_NUMBER,  /* a JSON number */
	T_BLOCK,   /* a whole number from 1 */
	T_COUNT,   /* a whole number from 0 */
	T_TIME,    /* RFC 3339, or cutechess's and fastchess's "...T12:00:00.000 UTC" */
	T_PERMOVE, /* seconds: "0.1/move" as both tools write a time per move, or a number */
	T_SECONDS, /* a number, or GameDuration's "01:02:03" */
	T_OBJECT,  /* a JSON object (tokens, extra) */
	T_ARRAY    /* a JSON array of strings (requests) */
};

/* The fields a map sets, in the order a record is built. */
enum pgnio_field {
	F_MODEL, /* which player is the model: the record's "color" */
	F_GAME_ID,
	F_FAMILY,
	F_CONDITION,
	F_BLOCK,
	F_REQUESTED,
	F_RETURNED,
	F_ENGINE,
	F_ELO,
	F_LIMITER,
	F_TIME_S,
	F_NODES,
	F_SHA,
	F_OPENING,
	F_STARTED,
	F_ENDED,
	F_TERMINATION,
	F_TOKENS,
	F_TOKENS_INPUT,
	F_TOKENS_OUTPUT,
	F_TOKENS_REASONING,
	F_TOKENS_CACHED,
	F_WALL,
	F_WORKER,
	F_REQUESTS,
	F_EXTRA,
	F_N
};

struct pgnio_field_info {
	const char *key; /* the map's key, a record path ("anchor.elo") */
	enum pgnio_type type;
};

extern const struct pgnio_field_info pgnio_fields[F_N];

enum pgnio_src_kind {
	SRC_TAG,    /* a tag's value; {model} and {anchor} in the name are White or Black */
	SRC_VALUE,  /* a constant */
	SRC_FORMAT, /* text with {file}, {game} and {tag:NAME} */
	SRC_NAME,   /* model only: the player whose name matches a glob */
	SRC_EVERY,  /* block only: every N games of a (family, condition), in input order */
	SRC_NOTE    /* an object field only: the JSON after a word on a line of the note */
};

struct pgnio_src {
	enum pgnio_src_kind kind;
	const char *text;   /* tag name, format, glob, or the note's word */
	const cJSON *value; /* SRC_VALUE */
	long every;         /* SRC_EVERY */
	regex_t *re;        /* SRC_TAG with a pattern: the part of the value it matches */
	int group;          /* which group of re (0: the whole match) */
};

struct pgnio_map {
	cJSON *base;                /* the built-in map's tree */
	cJSON *user;                /* the map file's tree, or NULL */
	struct pgnio_src *src[F_N]; /* each field's sources, tried in turn */
	size_t nsrc[F_N];
};

/* A tag's text that means "unknown" in PGN: empty, "?", and for every
 * type but a string also "-" (no rating, no time control). */
int pgnio_absent(const char *v, enum pgnio_type type);

/* The PGN Termination word for a ledger termination, or NULL when PGN
 * has none for it (the exact word goes in TAG_TERMINATION anyway). */
const char *pgnio_termination_pgn(const char *ledger);

/* A time stamp tag as RFC 3339: the text itself when it is one, else
 * "YYYY-MM-DDTHH:MM:SS[.frac] ZONE" with ZONE UTC, GMT, Z, +hhmm or +hh:mm
 * rewritten as "...Z" or "...+hh:mm".  -1 (e says why) for any other zone,
 * which would need a guess (PST, CEST). */
int pgnio_time_text(const char *v, char *out, size_t n, struct err *e);

/* Whether name is a tag name every PGN reader takes: letters only. */
int pgnio_tag_name_plain(const char *name);

/* The text of a tag that holds v as a field of type t and reads back as
 * v: 1 and out (at most n bytes with its NUL), or 0 when no tag can: v is
 * of another type, is text PGN readers do not all take (a '"' or '\\', a
 * control character, more than 255 bytes), or reads as "unknown" ("?").
 * A time per move is its number of seconds (the caller adds "/move"). */
int pgnio_tag_text(const cJSON *v, enum pgnio_type t, char *out, size_t n);

/* A strict JSON number's text (no white space) into *x; -1 if it is not
 * one or is not finite. */
int pgnio_number(const char *v, double *x);

#endif
