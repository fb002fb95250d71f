/* crate.h: research-object metadata for a bundle's bag: RO-Crate 1.2's
 * data/ro-crate-metadata.json, and CITATION.cff (Citation File Format
 * 1.2.0) when the bundle spec names authors.
 *
 * The crate's root is the bag's data/ folder.  Its graph: the metadata
 * descriptor (conformsTo RO-Crate 1.2, about the root); the root Dataset
 * (name, description, datePublished from as_of, license from the spec,
 * hasPart every item); one File per item (its role, identity and size;
 * a freeze's store as a Dataset); cohort as the SoftwareApplication (its
 * version, and its source commit when the build was given one); and the
 * CreateAction by which cohort made the bundle from the items.
 */
#ifndef COHORT_CRATE_H
#define COHORT_CRATE_H

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../common/err.h"

#define CRATE_CONTEXT "https://w3id.org/ro/crate/1.2/context"
#define CRATE_PROFILE "https://w3id.org/ro/crate/1.2"

struct crate_tool {
	const char *version;  /* cohort's version */
	const char *commit;   /* its source commit, or NULL */
};

/* The spec's optional research-object fields, checked: description (a
 * string), license (an SPDX identifier or a URL), authors (an array of
 * {"name", optional "orcid"}).  0, or -1 with e naming the field. */
int crate_check_spec(const cJSON *spec, const char *spec_path, struct err *e);

/* The crate of a bundle document (cohort.bundle/1) and its spec. */
cJSON *crate_make(const cJSON *spec, const cJSON *doc, const struct crate_tool *tool);

/* CITATION.cff for a spec with authors, appended to out; 0 when the spec
 * has none (out untouched), 1 when written, -1 out of memory. */
int crate_citation(const cJSON *spec, const cJSON *doc, const char *date, struct buf *out);

#endif
