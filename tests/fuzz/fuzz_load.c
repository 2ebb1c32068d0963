/* fuzz_load.c: one libFuzzer harness for every loader, built once per kind
 * with -DFUZZ_KIND="manifest" (the Makefile's FUZZ_KINDS list). Each input
 * is handed to that kind's loader as a file's bytes (NUL-terminated, as
 * file_read gives them, its buffer handed over as source_load does); what loads is assembled, reported in the three
 * formats and dumped, and the text report and the sanitized dump must hold
 * no control byte a terminal would act on. Then the kind's own switches and
 * choices (a memory snapshot's assembly, compression, allocation caps...)
 * are set as the input's bytes pick them, and it is assembled and reported
 * again. Errors must be values with a message; anything else (a crash, a
 * leak, a sanitizer report) is a bug. A Claude Code session, a memory
 * snapshot, a manifest and a ledger are also loaded with their reader's
 * quick way off (through the tree): the status, the error's words and
 * place, or the report and dump must be the same. */
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

/* Text meant for a terminal: only \n and \t below 0x20, no DEL, no C1. */
static void check_terminal_safe(const struct strbuf *sb)
{
	const unsigned char *s = (const unsigned char *)sb_str(sb);
	for (size_t i = 0; i < sb->len; i++) {
		if ((s[i] < 0x20 && s[i] != '\n' && s[i] != '\t') || s[i] == 0x7F)
			abort();
		if (s[i] == 0xC2 && i + 1 < sb->len && s[i + 1] >= 0x80 && s[i + 1] < 0xA0)
			abort();
	}
}

/* Assembles src, reports it in the three formats and dumps it, checking
 * what a terminal shows. */
static void assemble_and_report(struct source *src)
{
	struct cs_error err;
	cs_error_clear(&err);
	struct assembly a;
	if (assemble(src, &a, &err) != CS_OK) {
		if (err.code != CS_ENOMEM && err.message[0] == '\0')
			abort();
		return;
	}
	static const enum report_format formats[] = { REPORT_TEXT, REPORT_YAML, REPORT_JSON };
	for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
		struct strbuf out = STRBUF_INIT;
		struct report_options opt = { .format = formats[f] };
		if (report_write(&a, &opt, &out) == CS_OK && formats[f] == REPORT_TEXT)
			check_terminal_safe(&out);
		sb_fini(&out);
	}
	struct strbuf out = STRBUF_INIT;
	if (dump_write(&a, false, false, &out) == CS_OK)
		check_terminal_safe(&out);
	sb_reset(&out);
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

/* The JSON report and the dump of what src assembles, into out. */
static void render(const struct source *src, struct strbuf *out)
{
	struct cs_error err;
	cs_error_clear(&err);
	struct assembly a;
	if (assemble(src, &a, &err) != CS_OK) {
		sb_puts(out, err.message);
		return;
	}
	struct report_options opt = { .format = REPORT_JSON };
	report_write(&a, &opt, out);
	dump_write(&a, false, false, out);
	asm_fini(&a);
}

/* Loads buf with the claude-code, memory, manifest and ledger readers' quick ways on or off. */
static int load_way(const struct kind_ops *kind, const char *buf, size_t size, bool fast, struct source **out,
		    struct cs_error *err)
{
	cs_tune(CS_TUNE_CC_FAST, (int)fast);
	cs_tune(CS_TUNE_MEMORY_QUICK, (int)fast);
	cs_tune(CS_TUNE_MANIFEST_QUICK, (int)fast);
	cs_tune(CS_TUNE_LEDGER_QUICK, (int)fast);
	cs_error_clear(err);
	*out = source_new(kind, FUZZ_INPUT_PATH);
	int rc = *out ? kind->load(*out, buf, size, err) : CS_ENOMEM;
	cs_tune(CS_TUNE_RESET);
	return rc;
}

/* Both ways agree (out of memory aside: an allocation may fail on one way only). */
static void same_both_ways(const struct kind_ops *kind, const char *buf, size_t size)
{
	struct source *s[2];
	struct cs_error err[2];
	int rc[2];
	for (int way = 0; way < 2; way++)
		rc[way] = load_way(kind, buf, size, way == 0, &s[way], &err[way]);
	if (rc[0] != CS_ENOMEM && rc[1] != CS_ENOMEM) {
		if (rc[0] != rc[1])
			abort();
		if (rc[0] != CS_OK && (strcmp(err[0].message, err[1].message) || err[0].line != err[1].line ||
				       err[0].column != err[1].column))
			abort();
		if (rc[0] == CS_OK) {
			struct strbuf out[2] = { STRBUF_INIT, STRBUF_INIT };
			render(s[0], &out[0]);
			render(s[1], &out[1]);
			if (!out[0].failed && !out[1].failed && strcmp(sb_str(&out[0]), sb_str(&out[1])))
				abort();
			sb_fini(&out[0]);
			sb_fini(&out[1]);
		}
	}
	source_free(s[0]);
	source_free(s[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct kind_ops *kind = kind_by_name(FUZZ_KIND);
	if (!kind)
		abort();
	char *buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	if (!strcmp(FUZZ_KIND, "claude-code") || !strcmp(FUZZ_KIND, "memory") || !strcmp(FUZZ_KIND, "manifest") ||
	    !strcmp(FUZZ_KIND, "ledger"))
		same_both_ways(kind, buf, size);
	struct source *src = source_new(kind, FUZZ_INPUT_PATH);
	struct cs_error err;
	cs_error_clear(&err);
	if (src) /* as source_load hands a file's bytes over: piece text may stay in them */
		src->input_owned = true;
	int rc = src ? kind->load(src, buf, size, &err) : CS_ENOMEM;
	if (src)
		src->input_owned = false;
	if (rc != CS_OK || !source_keep_input(src, buf, size))
		free(buf);
	if (rc != CS_OK) {
		if (rc != CS_ENOMEM && err.message[0] == '\0')
			abort(); /* every refusal says why */
		source_free(src);
		return 0;
	}
	assemble_and_report(src);
	pick_settings(src, data, size);
	assemble_and_report(src);
	source_free(src);
	return 0;
}
