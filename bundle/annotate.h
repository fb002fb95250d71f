/* annotate.h: a refusal (cohort.refusal/1) in the forms CI systems read:
 * GitHub Actions workflow commands, SARIF 2.1.0, and GitLab's code quality
 * report.  A finding's path is relative to the bundle spec's folder; prefix
 * (that folder as the command was given it, "" for the current one) makes
 * it relative to where the job runs, as all three want. */
#ifndef COHORT_ANNOTATE_H
#define COHORT_ANNOTATE_H

#include <cjson/cJSON.h>

#include "../common/buf.h"

/* One "::error file=P,line=N,title=cohort CHECK::DETAIL (ACTION)" line per
 * finding, with GitHub's escapes. */
int annotate_github(const cJSON *refusal, const char *prefix, struct buf *out);
/* SARIF 2.1.0: one run of the tool cohort (version), a rule per check,
 * a result per finding (level error), its file and line. */
cJSON *annotate_sarif(const cJSON *refusal, const char *prefix, const char *version);
/* GitLab code quality: an array of {description, check_name, fingerprint,
 * severity, location {path, lines {begin}}}. */
cJSON *annotate_gitlab(const cJSON *refusal, const char *prefix);

#endif
