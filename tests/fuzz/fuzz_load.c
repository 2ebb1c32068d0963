/* fuzz_load.c: one libFuzzer harness for every loader, built once per kind
 * with -DFUZZ_KIND="manifest" (the Makefile's FUZZ_KINDS list). Each input
 * is handed to that kind's loader as a file's bytes (NUL-terminated, as
 * file_read gives them, its buffer handed over as source_load does); what
 * loads is assembled, reported as text and as YAML or JSON (the input
 * picks) and dumped, and the text report and the sanitized dump must hold
 * no control byte a terminal would act on. Then the kind's own switches and
 * choices (a memory snapshot's assembly, compression, allocation caps...)
 * are set as the input's bytes pick them, and it is assembled and reported
 * again. Errors must be values with a message; anything else (a crash, a
 * leak, a sanitizer report) is a bug. A Claude Code session, a memory
 * snapshot, a manifest and a ledger are also loaded with their reader's
 * quick way off (through the tree): the status, the error's words and
 * place, or the JSON report and the dump must be the same.
 * Per input only the load, the assembly and the report path run: the
 * tokenizers a report counts with are opened once for the run (below). */
#include "assembly.h"
#include "base/tune.h"
#include "dump.h"
#include "base/error.h"
#include "kind.h"
#include "kinds/claude_code/claude_code.h"
#include "kinds/ledger/quick.h"
#include "kinds/manifest/quick.h"
#include "kinds/memory/quick.h"
#include "report.h"
#include "setting.h"
#include "source.h"
#include "base/strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "terminal_safe.h"

#ifndef FUZZ_KIND
#error "build with -DFUZZ_KIND='\"manifest\"'"
#endif

/* Where the input pretends to live: a manifest's listed files resolve
 * against its folder, so inputs that name the hidden-text sample's files
 * reach the assembler with real text (run from the repository root). */
#ifndef FUZZ_INPUT_PATH
#define FUZZ_INPUT_PATH "samples/" FUZZ_KIND "/hidden-text/fuzz-input"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


/* Tokenizers opened once for the whole run: a report counts with the
 * tokenizer its model names, and opening one (mapping a rank file of
 * megabytes and checking its sum) cost far more than the load it follows.
 * The link wraps tokenizer_open and tokenizer_close (-Wl,--wrap, Makefile):
 * a name opened once is handed out again and never closed, so every input
 * still counts with it (tokenizers are tested on their own: fuzz_sanitize,
 * the units and tests/hostile/ranks). */
#define POOL_SIZE 16
static struct {
	char name[256];
	struct tokenizer *t;
} pool[POOL_SIZE];

int __real_tokenizer_open(const char *name_or_path, struct tokenizer **out, struct cs_error *err);
void __real_tokenizer_close(struct tokenizer *t);
int __wrap_tokenizer_open(const char *name_or_path, struct tokenizer **out, struct cs_error *err);
void __wrap_tokenizer_close(struct tokenizer *t);

int __wrap_tokenizer_open(const char *name_or_path, struct tokenizer **out, struct cs_error *err)
{
	size_t i = 0;
	for (; i < POOL_SIZE && pool[i].t; i++)
		if (!strcmp(pool[i].name, name_or_path)) {
			*out = pool[i].t;
			return CS_OK;
		}
	int rc = __real_tokenizer_open(name_or_path, out, err);
	if (rc == CS_OK && i < POOL_SIZE && strlen(name_or_path) < sizeof pool[i].name) {
		strcpy(pool[i].name, name_or_path);
		pool[i].t = *out;
	}
	return rc;
}

void __wrap_tokenizer_close(struct tokenizer *t)
{
	for (size_t i = 0; i < POOL_SIZE && pool[i].t; i++)
		if (pool[i].t == t)
			return;
	__real_tokenizer_close(t);
}

/* Assembles src; reports it as text (and checks what a terminal shows)
 * and as YAML or JSON as `pick` says; dumps it raw (checked) and
 * sanitized. With `render`, the JSON report and the raw dump (the quick
 * and the tree way compared) go there instead; `only_render` skips the
 * rest (the tree way's source, whose other outputs the quick way's show). */
static void assemble_and_report(struct source *src, unsigned pick, struct strbuf *render, bool only_render)
{
	struct cs_error err;
	cs_error_clear(&err);
	struct assembly a;
	if (assemble(src, &a, &err) != CS_OK) {
		if (err.code != CS_ENOMEM && err.message[0] == '\0')
			abort();
		if (render)
			sb_puts(render, err.message);
		return;
	}
	struct strbuf out = STRBUF_INIT;
	struct report_options opt = { .format = REPORT_TEXT };
	if (!only_render && report_write(&a, &opt, &out) == CS_OK)
		check_terminal_safe(&out);
	sb_reset(&out);
	opt.format = render || (pick & 1) ? REPORT_JSON : REPORT_YAML;
	report_write(&a, &opt, render ? render : &out);
	sb_reset(&out);
	if (dump_write(&a, false, false, &out) == CS_OK)
		check_terminal_safe(&out);
	if (render)
		sb_puts(render, sb_str(&out));
	sb_reset(&out);
	if (!only_render)
		dump_write(&a, true, false, &out);
	sb_fini(&out);
	asm_fini(&a);
}

/* Each switch and choice of the kind set as the input's bytes pick it
 * (a refusal is an answer; what the kind derives follows, as after an edit). */
static void pick_settings(struct source *src, const uint8_t *data, size_t size)
{
	const struct setting *list = src->kind->settings;
	for (size_t i = 0; list && list[i].name && size; i++) {
		const struct setting *st = &list[i];
		unsigned pick = data[(i * 7919) % size];
		size_t nchoices = 0;
		while (st->type == SETTING_ENUM && st->choices && st->choices[nchoices])
			nchoices++;
		const char *text = st->type == SETTING_BOOL ? (pick & 1 ? "true" : "false")
				   : nchoices		    ? st->choices[pick % nchoices]
							    : NULL;
		if (!text)
			continue;
		struct cs_error err;
		cs_error_clear(&err);
		if (setting_set(src, st, text, &err) == CS_OK && src->kind->edited)
			src->kind->edited(src, &err);
	}
}

/* The kinds whose reader has a quick way off the tree (tune.h). */
static bool has_quick_way(void)
{
	return !strcmp(FUZZ_KIND, "claude-code") || !strcmp(FUZZ_KIND, "memory") || !strcmp(FUZZ_KIND, "manifest") ||
	       !strcmp(FUZZ_KIND, "ledger");
}

/* buf loaded the tree way (every quick reader off), as a source does not
 * own it. */
static int load_tree_way(const struct kind_ops *kind, const char *buf, size_t size, struct source **out,
			 struct cs_error *err)
{
	cs_tune(CS_TUNE_CC_FAST, 0);
	cs_tune(CS_TUNE_MEMORY_QUICK, 0);
	cs_tune(CS_TUNE_MANIFEST_QUICK, 0);
	cs_tune(CS_TUNE_LEDGER_QUICK, 0);
	cs_error_clear(err);
	*out = source_new(kind, FUZZ_INPUT_PATH);
	int rc = *out ? kind->load(*out, buf, size, err) : CS_ENOMEM;
	cs_tune(CS_TUNE_RESET);
	return rc;
}

/* The tree way agrees with the quick way's load (rc, err; out of memory
 * aside: an allocation may fail on one way only) and, when it loaded, with
 * its JSON report and dump (quick_render). */
static void same_as_tree_way(const struct kind_ops *kind, const char *buf, size_t size, int rc,
			     const struct cs_error *err, const struct strbuf *quick_render)
{
	struct source *tree;
	struct cs_error terr;
	int trc = load_tree_way(kind, buf, size, &tree, &terr);
	if (rc != CS_ENOMEM && trc != CS_ENOMEM) {
		if (rc != trc)
			abort();
		if (rc != CS_OK && (strcmp(err->message, terr.message) || err->line != terr.line ||
				    err->column != terr.column))
			abort();
		if (rc == CS_OK) {
			struct strbuf out = STRBUF_INIT;
			assemble_and_report(tree, 0, &out, true);
			if (!out.failed && !quick_render->failed && strcmp(sb_str(&out), sb_str(quick_render)))
				abort();
			sb_fini(&out);
		}
	}
	source_free(tree);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct kind_ops *kind = kind_by_name(FUZZ_KIND);
	if (!kind)
		abort();
	static char *copy;
	static size_t copy_cap;
	if (has_quick_way() && size + 1 > copy_cap) {
		free(copy);
		copy_cap = size + 1 > 65536 ? size + 1 : 65536;
		copy = malloc(copy_cap);
		if (!copy)
			abort();
	}
	char *buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	struct source *src = source_new(kind, FUZZ_INPUT_PATH);
	struct cs_error err;
	cs_error_clear(&err);
	if (src) /* as source_load hands a file's bytes over: piece text may stay in them */
		src->input_owned = true;
	int rc = src ? kind->load(src, buf, size, &err) : CS_ENOMEM;
	if (src)
		src->input_owned = false;
	bool kept = rc == CS_OK && source_keep_input(src, buf, size);
	if (rc != CS_OK && rc != CS_ENOMEM && err.message[0] == '\0')
		abort(); /* every refusal says why */
	unsigned pick = size ? data[size / 2] : 0;
	struct strbuf render = STRBUF_INIT;
	if (rc == CS_OK)
		assemble_and_report(src, pick, has_quick_way() ? &render : NULL, false);
	/* The tree way gets the bytes afresh: a load that owns its buffer may
	 * rewrite it in place (a string unescaped where it stood). */
	if (has_quick_way()) {
		memcpy(copy, data, size);
		copy[size] = '\0';
		same_as_tree_way(kind, copy, size, rc, &err, &render);
	}
	sb_fini(&render);
	if (!kept)
		free(buf);
	if (rc == CS_OK) {
		pick_settings(src, data, size);
		assemble_and_report(src, pick >> 1, NULL, false);
	}
	source_free(src);
	return 0;
}
