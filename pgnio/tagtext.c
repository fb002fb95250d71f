/* tagtext.c: the rules for tag text that import and export share:
 * unknown values, numbers, time stamps and termination words. */
#include "internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/ts.h"
#include "../json/json.h"

int
pgnio_absent(const char *v, enum pgnio_type type)
{
	return v[0] == '\0' || strcmp(v, "?") == 0 || (type != T_STRING && strcmp(v, "-") == 0);
}

int
pgnio_number(const char *v, double *x)
{
	const char *s = v;

	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (isdigit((unsigned char)*s))
		while (isdigit((unsigned char)*s))
			s++;
	else
		return -1;
	if (*s == '.') {
		if (!isdigit((unsigned char)*++s))
			return -1;
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!isdigit((unsigned char)*s))
			return -1;
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (*s != '\0')
		return -1;
	*x = strtod(v, NULL);
	if (!isfinite(*x))
		return -1;
	if (*x == 0)
		*x = 0; /* -0 reads as 0, as the JSON reader has it */
	return 0;
}

int
pgnio_time_text(const char *v, char *out, size_t n, struct err *e)
{
	struct ts t;
	const char *sp = strchr(v, ' '), *z;
	size_t head;

	if (ts_parse(v, &t) == 0) {
		if (strlen(v) >= n)
			return err_set(e, ERR_INPUT, "\"%.40s...\": too long", v);
		snprintf(out, n, "%s", v);
		return 0;
	}
	if (sp == NULL || sp == v || (head = (size_t)(sp - v)) + 8 > n)
		return err_set(e, ERR_INPUT,
		    "\"%.60s\": expected an RFC 3339 time or "
		    "YYYY-MM-DDTHH:MM:SS UTC",
		    v);
	z = sp + 1;
	memcpy(out, v, head);
	if (strcmp(z, "UTC") == 0 || strcmp(z, "GMT") == 0 || strcmp(z, "Z") == 0)
		snprintf(out + head, n - head, "Z");
	else if ((z[0] == '+' || z[0] == '-') && isdigit((unsigned char)z[1]) &&
	    isdigit((unsigned char)z[2]) && isdigit((unsigned char)z[3]) &&
	    isdigit((unsigned char)z[4]) && z[5] == '\0')
		snprintf(out + head, n - head, "%c%c%c:%c%c", z[0], z[1], z[2], z[3], z[4]);
	else if ((z[0] == '+' || z[0] == '-') && strlen(z) == 6 && z[3] == ':')
		snprintf(out + head, n - head, "%s", z);
	else
		return err_set(e, ERR_INPUT,
		    "\"%.60s\": time zone \"%.16s\" is not UTC or an "
		    "offset (+hhmm): name it in the map",
		    v, z);
	if (ts_parse(out, &t) < 0)
		return err_set(e, ERR_INPUT,
		    "\"%.60s\": expected an RFC 3339 time or "
		    "YYYY-MM-DDTHH:MM:SS UTC",
		    v);
	return 0;
}

/* Ledger words that PGN's Termination calls by another name. */
static const struct {
	const char *ledger, *pgn;
} words[] = {
	{ "checkmate", "normal" },
	{ "stalemate", "normal" },
	{ "insufficient_material", "normal" },
	{ "threefold_repetition", "normal" },
	{ "fivefold_repetition", "normal" },
	{ "fifty_move_rule", "normal" },
	{ "seventy_five_move_rule", "normal" },
	{ "resignation", "normal" },
	{ "agreement", "normal" },
	{ "normal", "normal" },
	{ "time_forfeit", "time forfeit" },
	{ "adjudication", "adjudication" },
	{ "ply_limit", "adjudication" },
	{ "illegal_move", "illegal move" },
	{ "abandoned", "abandoned" },
	{ "stalled_connection", "stalled connection" },
	{ "rules_infraction", "rules infraction" },
	{ "unterminated", "unterminated" },
};

const char *
pgnio_termination_pgn(const char *ledger)
{
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcmp(words[i].ledger, ledger) == 0)
			return words[i].pgn;
	/* the harness's own stops ("administrative_draw_200_plies") */
	if (strncmp(ledger, "administrative_", 15) == 0)
		return "adjudication";
	return NULL;
}

int
pgnio_tag_name_plain(const char *name)
{
	size_t n = 0;

	while ((name[n] >= 'A' && name[n] <= 'Z') || (name[n] >= 'a' && name[n] <= 'z'))
		n++;
	return n > 0 && name[n] == '\0';
}

/* Text every PGN reader takes whole in a tag: no quote or backslash (which
 * would need escapes some readers do not undo), no control character, at
 * most the standard's 255 bytes. */
static int
plain(const char *s)
{
	size_t n = 0;

	for (; s[n] != '\0'; n++)
		if (s[n] == '"' || s[n] == '\\' || (unsigned char)s[n] < 0x20 || s[n] == 0x7f)
			return 0;
	return n <= 255;
}

int
pgnio_tag_text(const cJSON *v, enum pgnio_type t, char *out, size_t n)
{
	const char *s = cJSON_IsString(v) ? v->valuestring : NULL;
	double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
	struct ts ts;
	char num[32];

	switch (t) {
	case T_STRING:
	case T_TIME:
		if (s == NULL || !plain(s) || pgnio_absent(s, t) ||
		    (t == T_TIME && ts_parse(s, &ts) < 0))
			return 0;
		break;
	case T_COLOR:
		if (s == NULL || (strcmp(s, "white") != 0 && strcmp(s, "black") != 0))
			return 0;
		break;
	case T_NUMBER:
	case T_BLOCK:
	case T_COUNT:
	case T_SECONDS:
	case T_PERMOVE:
		if (!isfinite(x) || (t == T_SECONDS && x < 0) || (t == T_PERMOVE && !(x > 0)) ||
		    ((t == T_BLOCK || t == T_COUNT) &&
		        (x < (t == T_BLOCK) || x != floor(x) || x > 9007199254740991.0)))
			return 0;
		canon_number(x, num);
		s = num;
		break;
	case T_OBJECT:
	case T_ARRAY:
		return 0;
	}
	if (strlen(s) >= n)
		return 0;
	snprintf(out, n, "%s", s);
	return 1;
}
