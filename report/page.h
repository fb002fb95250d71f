/* page.h: the HTML page's pieces (report/'s own): the head with its
 * inline style, headings, tables and the end.  Text goes through svg.h's
 * writer and its XML escapes, which HTML reads the same way. */
#ifndef COHORT_REPORT_PAGE_H
#define COHORT_REPORT_PAGE_H

#include <cjson/cJSON.h>

#include "../plot/svg.h"

void page_begin(struct svg *s, const char *title);
void page_end(struct svg *s);
/* A JSON value as text: strings as they are, numbers by canon_number,
 * null as an em dash, anything else as its canonical JSON. */
void page_value(struct svg *s, const cJSON *v);
/* A string field of o, or NULL (or dflt) when absent or not a string. */
const char *page_str(const cJSON *o, const char *key);
const char *page_or(const cJSON *o, const char *key, const char *dflt);
/* An identity, whole, as code (or a dash for none). */
void page_id(struct svg *s, const char *id);

#endif
