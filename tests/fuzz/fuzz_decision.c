/* fuzz_decision: the flat decision reader (protocol/decision.c) against
 * the tree reader: whenever it reads a record, decision_read of the
 * record's tree must read it too and give the same decision, for the
 * record's text and for its canonical bytes (tests/unit/decision_agree.h). */
#include <stdint.h>
#include <stdlib.h>

#include "../unit/decision_agree.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct decision_flat fl;

	if (decision_flat_init(&fl) == 0 && agree_record(fl.rs, &fl, (const char *)data, size) < 0)
		abort();
	decision_flat_release(&fl);
	return 0;
}
