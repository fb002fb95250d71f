# secret/: the credential scan (rules in gitleaks' format, decoders, matcher)
SECRET_OBJS = secret/scan.o secret/re.o secret/rules.o secret/decode.o secret/builtin.o
SECRET_UNIT = tests/unit/secret_scan tests/unit/secret_re

# The built-in credential rules go into the program as a C array of the
# bytes of secret/rules.toml, so an installed cohort needs no data
# file.  od and sed only, as every system has them.
$(BUILD)/secret/builtin.c: secret/rules.toml secret/module.mk
	@mkdir -p $(@D)
	@{ echo '/* made from secret/rules.toml by secret/module.mk; do not edit */'; \
	  echo '#include <stddef.h>'; \
	  echo 'const char secret_rules_builtin[] = {'; \
	  od -An -v -tx1 secret/rules.toml | \
	    sed -e 's/[ 	]*$$//' -e 's/^[ 	]*//' -e 's/[ 	][ 	]*/ /g' -e 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '0 };'; \
	  echo 'const size_t secret_rules_builtin_len = sizeof secret_rules_builtin - 1;'; \
	} >$@.tmp && mv $@.tmp $@

$(BUILD)/secret/builtin.o: $(BUILD)/secret/builtin.c
	$(CC) $(CFLAGS_ALL) -c -o $@ $<
