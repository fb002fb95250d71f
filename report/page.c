/* page.c: the page's head, style and value formatting. */
#include "page.h"

#include <stdio.h>
#include <string.h>

#include "../json/json.h"

/* Printing: the figures keep their 340-unit width (a journal column),
 * tables wrap; colours only repeat what words say. */
static const char style[] =
    "body{font-family:sans-serif;font-size:14px;line-height:1.4;color:#000;background:#fff;"
    "max-width:60em;margin:1em auto;padding:0 1em}"
    "h1{font-size:1.5em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #999}"
    "h3{font-size:1.05em}"
    "table{border-collapse:collapse;margin:.5em 0}"
    "th,td{border:1px solid #bbb;padding:.2em .45em;text-align:left;vertical-align:top}"
    "th{background:#eee}td.num{text-align:right;font-variant-numeric:tabular-nums}"
    "code{font-family:monospace;font-size:.92em;word-break:break-all}"
    ".held{color:#006d4f;font-weight:bold}.finding{color:#b23b00;font-weight:bold}"
    "figure{display:inline-block;margin:.5em 1em .5em 0;vertical-align:top}"
    "figcaption{font-size:.9em;max-width:340px}"
    "svg{max-width:100%;height:auto}";

void
page_begin(struct svg *s, const char *title)
{
	svg_put(s, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	    "<title>%e</title>\n<style>%s</style>\n</head>\n<body>\n<h1>%e</h1>\n", title, style,
	    title);
}

void
page_end(struct svg *s)
{
	svg_put(s, "</body>\n</html>\n");
}

void
page_value(struct svg *s, const cJSON *v)
{
	char num[32];
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;

	if (v == NULL || cJSON_IsNull(v)) {
		svg_put(s, "\xe2\x80\x94");
	} else if (cJSON_IsString(v)) {
		svg_escape(s, v->valuestring);
	} else if (cJSON_IsNumber(v)) {
		canon_number(v->valuedouble, num);
		svg_put(s, "%s", num);
	} else if (canon_write(v, &b, &e) == 0) {
		svg_put(s, "<code>%e</code>", b.p ? b.p : "");
	}
	buf_release(&b);
}

void
page_id(struct svg *s, const char *id)
{
	if (id == NULL)
		svg_put(s, "\xe2\x80\x94");
	else
		svg_put(s, "<code>%e</code>", id);
}

const char *
page_str(const cJSON *o, const char *key)
{
	const cJSON *v = json_get(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

const char *
page_or(const cJSON *o, const char *key, const char *dflt)
{
	const char *v = page_str(o, key);

	return v ? v : dflt;
}
