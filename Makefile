# cohort: a plain, strict Makefile.  Objects go under $(BUILD) so the
# release and sanitizer builds live side by side.

.SUFFIXES:
# the modules included below bring rules of their own (a generated
# source); plain "make" is still "make all"
.DEFAULT_GOAL := all

PREFIX   ?= /usr/local
BUILD    ?= build/release
CC       = cc
PKGS      = libcrypto libarchive libcjson sqlite3 libgit2 gsl
OPT      ?= -O2
WERROR   ?=
SAN      ?=
# demo and test build with one job per processor
NPROC    := $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
# the source commit, recorded in every bag (cmd/module.mk); "unknown"
# outside a git clone of cohort
COHORT_COMMIT ?= $(shell sh mk/commit.sh)
CFLAGS_ALL = -std=c11 -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64 $(OPT) -g \
	-Wall -Wextra -Wno-unused-parameter $(WERROR) $(SAN) \
	$(shell pkg-config --cflags $(PKGS) 2>/dev/null) $(CFLAGS)
LDLIBS_ALL = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -lm $(LDLIBS)

# The layers, from the bottom (docs/design.md): each folder uses only
# those before it in this list that mk/layers.txt allows.
LAYERS    = common json store bagit chess engine sign secret protocol freeze verify reconcile fit paired fingerprint gate pgnio derive simulate plot report bundle review
include $(LAYERS:%=%/module.mk)
include cmd/module.mk

LIB_OBJS  = $(foreach l,$(LAYERS),$($(shell echo $(l) | tr a-z A-Z)_OBJS))
UNIT      = $(foreach l,$(LAYERS),$($(shell echo $(l) | tr a-z A-Z)_UNIT))
B_LIB     = $(LIB_OBJS:%=$(BUILD)/%)
B_CMD     = $(CMD_OBJS:%=$(BUILD)/%)
B_UNIT    = $(UNIT:%=$(BUILD)/%)

# all and build only check the dependencies: what is missing is printed
# as one apt-get line, and the build stops.  deps installs them (as root),
# and so do demo and test, before a sub-make reads pkg-config, so a fresh
# machine runs them in one step.
all: build

build: deps-check $(BUILD)/cohort $(BUILD)/tests/cohort-golden $(B_UNIT)

deps-check:
	@sh mk/deps.sh --check build

deps:
	@sh mk/deps.sh build

$(BUILD)/cohort: $(B_CMD) $(CMD_GEN) $(B_LIB)
	$(CC) $(SAN) -o $@ $(B_CMD) $(CMD_GEN) $(B_LIB) $(LDFLAGS) $(LDLIBS_ALL)

$(BUILD)/tests/cohort-golden: $(B_CMD) $(BUILD)/tests/commit-golden.o $(B_LIB)
	$(CC) $(SAN) -o $@ $(B_CMD) $(BUILD)/tests/commit-golden.o $(B_LIB) $(LDFLAGS) $(LDLIBS_ALL)

$(BUILD)/tests/unit/%: tests/unit/%.c $(B_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(B_LIB) $(LDFLAGS) $(LDLIBS_ALL)

# a library the tests preload (tests/unit/stop_at_map.c): no sanitizer,
# no cohort code
$(BUILD)/tests/unit/%.so: tests/unit/%.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Wall -Wextra $(WERROR) -shared -fPIC -o $@ $< -ldl

# (after deps-check: with -j, a missing package is named once, not
# followed by every compiler error it causes)
$(BUILD)/%.o: %.c | deps-check
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

-include $(B_LIB:.o=.d) $(B_CMD:.o=.d)

# The suite runs twice: the strict release build, then ASan and UBSan.
test:
	@sh mk/deps.sh test
	@sh mk/node.sh
	@$(MAKE) -s --no-print-directory -j$(NPROC) BUILD=build/release WERROR=-Werror build
	@$(MAKE) -s --no-print-directory -j$(NPROC) BUILD=build/asan WERROR=-Werror OPT=-O1 \
		SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" build
	@sh tests/run.sh build/release
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		COHORT_SANITIZED=1 sh tests/run.sh build/asan

# The suite again with four busy loops beside it (mk/under-load.sh): no
# test may measure wall time, so a busy machine changes no outcome.
test-under-load:
	@sh mk/under-load.sh "$(MAKE) -s --no-print-directory"

demo:
	@sh mk/deps.sh build
	@$(MAKE) -s --no-print-directory -j$(NPROC) build
	@sh examples/demo.sh $(BUILD)/cohort

bench:
	@sh mk/deps.sh bench
	@$(MAKE) -s --no-print-directory build
	@sh bench/run.sh $(BUILD)/cohort

fuzz:
	@sh mk/deps.sh fuzz
	@sh tests/fuzz/run.sh

install: all
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	cp $(BUILD)/cohort $(DESTDIR)$(PREFIX)/bin/cohort
	cp docs/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/

# The C lines changed since FORMAT_BASE (a commit or branch) follow
# .clang-format; the tree as it is is not reformatted (see .clang-format).
FORMAT_BASE ?= main
format-check:
	@command -v clang-format-diff >/dev/null 2>&1 || \
		{ echo "cohort: format-check needs clang-format (apt-get install -y clang-format)" >&2; exit 2; }
	@d=$$(git diff -U0 --no-color $(FORMAT_BASE) -- '*.c' '*.h' | clang-format-diff -p1) || exit 2; \
	if [ -n "$$d" ]; then printf '%s\n' "$$d"; \
		echo "cohort: lines changed since $(FORMAT_BASE) do not follow .clang-format" >&2; exit 1; fi

clean:
	rm -rf build

.PHONY: all build deps-check deps test test-under-load demo bench fuzz install format-check clean
