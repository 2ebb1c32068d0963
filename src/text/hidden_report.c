/* hidden_report.c: the report's hidden_text section (see hidden_report.h),
 * kept apart from the scanner (hidden.c), which knows nothing of sources. */
#include "text/hidden_report.h"

#include "emit.h"
#include "text/hidden.h"
#include "kind.h"
#include "source.h"
#include "base/strbuf.h"
#include "base/utf8.h"

#include <string.h>

bool hidden_any(const struct source *src)
{
	for (size_t i = 0; i < src->npieces; i++)
		if (src->pieces[i].flags & PIECE_HIDDEN || hidden_scan(src->pieces[i].id, strlen(src->pieces[i].id), NULL))
			return true;
	return false;
}

/* One revealed line, cut to HIDDEN_REPORT_LINE_COLUMNS. */
static void emit_line(struct emitter *em, const char *line, size_t n, bool ascii, struct strbuf *tmp)
{
	if (n && line[n - 1] == '\r')
		n--;
	sb_reset(tmp);
	hidden_reveal(tmp, line, n, ascii);
	size_t cols;
	size_t fit = utf8_prefix_for_columns(sb_str(tmp), tmp->len, HIDDEN_REPORT_LINE_COLUMNS, &cols);
	if (fit < tmp->len) {
		fit = utf8_prefix_for_columns(sb_str(tmp), tmp->len, HIDDEN_REPORT_LINE_COLUMNS - 1, &cols);
		tmp->len = fit;
		sb_puts(tmp, ascii ? "~" : "\xe2\x80\xa6");
	}
	if (tmp->failed) /* sb_reset would forget it: make the report fail */
		em->out->failed = true;
	emit_strn(em, sb_str(tmp), tmp->len);
}

static void report_piece(const struct source *src, const struct piece *p, struct emitter *em, struct strbuf *tmp)
{
	bool ascii = em->text_flags & UTF8_ASCII; /* the text report's stand-ins in YAML and JSON too */
	struct hidden_summary sum;
	hidden_scan(p->text, p->text_bytes, &sum);
	emit_map_begin(em);
	emit_key_str(em, src->kind->id_key, p->id);
	if (hidden_scan(p->id, strlen(p->id), NULL)) {
		emit_key(em, "id_revealed");
		emit_line(em, p->id, strlen(p->id), ascii, tmp);
	}
	emit_key_int(em, "characters", (long long)sum.total);
	for (int c = 0; c < HIDDEN_COUNT; c++)
		if (sum.count[c])
			emit_key_int(em, hidden_class_name(c), (long long)sum.count[c]);
	if (sum.count[HIDDEN_TAG]) {
		sb_reset(tmp);
		if (!hidden_decode_tags(tmp, p->text, p->text_bytes))
			em->out->failed = true;
		emit_key(em, "tag_text");
		emit_strn(em, sb_str(tmp), tmp->len);
	}
	if (sum.count[HIDDEN_VARIATION]) {
		sb_reset(tmp);
		if (!hidden_decode_selectors(tmp, p->text, p->text_bytes))
			em->out->failed = true;
		if (tmp->len) {
			emit_key(em, "selector_text");
			emit_strn(em, sb_str(tmp), tmp->len);
		}
	}
	emit_key(em, "lines");
	emit_list_begin(em);
	size_t listed = 0, line_no = 0;
	const char *s = p->text, *end = p->text + p->text_bytes;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		line_no++;
		if (hidden_scan(s, n, NULL)) {
			if (listed < HIDDEN_REPORT_MAX_LINES) {
				emit_map_begin(em);
				emit_key_int(em, "line", (long long)line_no);
				emit_key(em, "revealed");
				emit_line(em, s, n, ascii, tmp);
				emit_map_end(em);
			}
			listed++;
		}
		s += n + (nl != NULL);
	}
	emit_list_end(em);
	if (listed > HIDDEN_REPORT_MAX_LINES)
		emit_key_int(em, "more_lines", (long long)(listed - HIDDEN_REPORT_MAX_LINES));
	emit_map_end(em);
}

void hidden_report(const struct source *src, struct emitter *em)
{
	struct strbuf tmp = STRBUF_INIT;
	emit_list_begin(em);
	for (size_t i = 0; i < src->npieces; i++)
		if (src->pieces[i].flags & PIECE_HIDDEN || hidden_scan(src->pieces[i].id, strlen(src->pieces[i].id), NULL))
			report_piece(src, &src->pieces[i], em, &tmp);
	emit_list_end(em);
	if (tmp.failed)
		em->out->failed = true;
	sb_fini(&tmp);
}
