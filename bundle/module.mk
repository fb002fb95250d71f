# bundle/: the publication gate, the secret scan, bundle archives checked
BUNDLE_OBJS = bundle/annotate.o bundle/attest.o bundle/crate.o bundle/secret.o bundle/secret_re.o bundle/secret_rules.o bundle/secret_decode.o \
	bundle/secret_builtin.o bundle/bundle.o
BUNDLE_UNIT = tests/unit/annotate_check tests/unit/bundle_secret tests/unit/bundle_verify tests/unit/bundle_secret_re

# The built-in credential rules go into the program as a C array of the
# bytes of bundle/secret-rules.toml, so an installed cohort needs no data
# file.  od and sed only, as every system has them.
$(BUILD)/bundle/secret_builtin.c: bundle/secret-rules.toml bundle/module.mk
	@mkdir -p $(@D)
	@{ echo '/* made from bundle/secret-rules.toml by bundle/module.mk; do not edit */'; \
	  echo '#include <stddef.h>'; \
	  echo 'const char secret_rules_builtin[] = {'; \
	  od -An -v -tx1 bundle/secret-rules.toml | \
	    sed -e 's/[ 	]*$$//' -e 's/^[ 	]*//' -e 's/[ 	][ 	]*/ /g' -e 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '0 };'; \
	  echo 'const size_t secret_rules_builtin_len = sizeof secret_rules_builtin - 1;'; \
	} >$@.tmp && mv $@.tmp $@

$(BUILD)/bundle/secret_builtin.o: $(BUILD)/bundle/secret_builtin.c
	$(CC) $(CFLAGS_ALL) -c -o $@ $<
