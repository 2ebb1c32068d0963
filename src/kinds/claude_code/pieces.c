/* pieces.c: a Claude Code session's pieces and their names (claude_code.h):
 * every block of the conversation, named by its turn and what it is, and the
 * piece that stands for what the file does not hold. Split from requests.c,
 * which builds the requests these pieces feed. */
#include "claude_code.h"

#include "base/strbuf.h"
#include "base/strmap.h"
#include "source.h"

#include <stdio.h>
#include <string.h>

/* Every block of the conversation (sidechains aside) is a piece, so the
 * piece list stays the same whichever request is opened: the request's
 * assembly takes those in its prompt and drops the rest (compacted, later,
 * or on another branch). Ids name the place in the file,
 * "line5.content[0]" (shown in the detail pane, taken by --exclude);
 * labels say what a piece is: "turn 12 · you: ...", "turn 13 · Bash: git
 * status", "result of Read src/parser.c", "attachment: skill listing". */

/* n bytes of s at most, whole characters, as one line: line breaks and
 * tabs as blanks, "..." when cut. */
static void snip(struct strbuf *out, const char *s, size_t len, size_t n)
{
	if (!s)
		return;
	size_t k = len < n ? len : n;
	while (k < len && k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
		k--;
	size_t from = out->len;
	sb_append(out, s, k);
	for (size_t i = from; i < out->len && !out->failed; i++)
		if (out->data[i] == '\n' || out->data[i] == '\r' || out->data[i] == '\t')
			out->data[i] = ' ';
	if (k < len)
		sb_puts(out, "...");
}

/* What a piece is, in words. */
static void label_of(struct strbuf *out, const struct cc_model *m, const struct cc_line *l, const struct cc_block *blk,
		     long turn, const struct cc_block *use)
{
	const char *type = blk->type;
	if (type == cc_known_type("attachment")) {
		sb_puts(out, "attachment: ");
		for (const char *c = l->attach ? l->attach : "?"; *c && out->len < 80; c++)
			sb_putc(out, *c == '_' ? ' ' : *c);
		return;
	}
	if (type == cc_known_type("tool_result")) {
		if (use && use->tool_name) {
			sb_printf(out, "result of %.40s", use->tool_name);
			if (use->summary) {
				sb_puts(out, " ");
				snip(out, use->summary, strlen(use->summary), 60);
			}
		} else {
			sb_puts(out, "result of a tool call: ");
			snip(out, blk->text, blk->text_len, 40);
		}
		return;
	}
	sb_printf(out, "turn %ld · ", turn);
	if (type == cc_known_type("tool_use")) {
		sb_printf(out, "%.40s: ", blk->tool_name ? blk->tool_name : "tool");
		if (blk->summary)
			snip(out, blk->summary, strlen(blk->summary), 60);
		else
			snip(out, blk->text, blk->text_len, 40);
		return;
	}
	const char *who = l->compact_summary ? "compact summary" : type == cc_known_type("thinking") ? "thinking"
							   : l->type == CL_ASSISTANT ? "Claude" : "you";
	bool plain = type == cc_known_type("text") || type == cc_known_type("thinking") || type == cc_known_type("image");
	sb_printf(out, "%s", who);
	if (!plain)
		sb_printf(out, " (%.40s)", type);
	sb_puts(out, ": ");
	snip(out, blk->text, blk->text_len, 40);
	(void)m;
}

static int name_piece(struct source *src, struct piece *p, const struct cc_model *m, const struct cc_line *l,
		      const struct cc_block *blk, size_t j, long turn, const struct cc_block *use)
{
	char id[64];
	snprintf(id, sizeof id, "line%ld.content[%zu]", l->line, j);
	struct strbuf sb = STRBUF_INIT;
	label_of(&sb, m, l, blk, turn, use);
	p->id = arena_strdup(&src->arena, id);
	p->label = sb.failed ? NULL : arena_strndup(&src->arena, sb.len ? sb_str(&sb) : "", sb.len);
	sb_fini(&sb);
	return p->id && p->label ? CS_OK : CS_ENOMEM;
}

/* The part not in the transcript (system prompt, tools, reminders): a
 * piece of its own, first, so header, bars, list and timeline add up; its
 * tokens are the current request's (cc_hidden_piece_tokens). */
#define HIDDEN_TEXT "[not in the transcript: Claude Code's system prompt, tool definitions and reminders]"

static int hidden_piece(struct source *src)
{
	long i = source_add_piece(src);
	if (i < 0 || source_adopt_piece_counted(src, i, HIDDEN_TEXT, strlen(HIDDEN_TEXT), strlen(HIDDEN_TEXT), 1,
						 false) != CS_OK)
		return CS_ENOMEM;
	struct piece *p = &src->pieces[i];
	p->role = "system";
	p->kind_index = CC_HIDDEN_PIECE;
	p->id = CC_HIDDEN_PATH;
	p->label = "not in the transcript: system prompt, tools, reminders (recorded less the estimate)";
	return CS_OK;
}

/* The message a line starts or continues (the wire's, counted over the
 * file): a new one when the role changes or another assistant message
 * begins; an attachment goes with the user turn. */
static long next_turn(const struct cc_line *l, const struct cc_line **prev, long turn)
{
	int role = l->type == CL_ASSISTANT;
	const struct cc_line *q = *prev;
	bool same = q && (q->type == CL_ASSISTANT) == role &&
		    (!role || (l->msg_id && q->msg_id && !strcmp(l->msg_id, q->msg_id)));
	*prev = l;
	return same ? turn : turn + 1;
}

int cc_make_pieces(struct source *src, struct cc_model *m)
{
	struct strmap uses = STRMAP_INIT;
	int rc = hidden_piece(src);
	for (size_t bi = 0; bi < m->nblocks && rc == CS_OK; bi++) {
		const struct cc_block *blk = &m->blocks[bi];
		size_t old;
		if (blk->tool_id && blk->type == cc_known_type("tool_use") && !cc_sidechain(m, &m->lines[blk->line]) &&
		    strmap_put(&uses, blk->tool_id, strlen(blk->tool_id), bi, &old) != 0)
			rc = CS_ENOMEM;
	}
	const struct cc_line *prev = NULL;
	long turn = 0;
	size_t at_line = (size_t)-1;
	for (size_t bi = 0; bi < m->nblocks && rc == CS_OK; bi++) {
		struct cc_block *blk = &m->blocks[bi];
		const struct cc_line *l = &m->lines[blk->line];
		blk->piece = -1;
		if (cc_sidechain(m, l) || (l->type != CL_USER && l->type != CL_ASSISTANT && l->type != CL_ATTACH))
			continue;
		if (blk->line != at_line) {
			at_line = blk->line;
			turn = next_turn(l, &prev, turn);
		}
		long i = source_add_piece(src);
		if (i < 0 || source_adopt_piece_counted(src, i, blk->text, blk->text_len, blk->code_points, blk->lines,
							 blk->hidden) != CS_OK) {
			rc = CS_ENOMEM;
			break;
		}
		blk->piece = i;
		struct piece *p = &src->pieces[i];
		p->role = l->type == CL_ASSISTANT ? "assistant" : "user";
		p->kind_index = bi;
		if (blk->images)
			p->tokens = blk->tokens; /* an image by its rule, not its text */
		size_t u = blk->tool_id && blk->type == cc_known_type("tool_result")
				   ? strmap_get(&uses, blk->tool_id, strlen(blk->tool_id)) : STRMAP_NONE;
		rc = name_piece(src, p, m, l, blk, bi - l->first_block, turn, u != STRMAP_NONE ? &m->blocks[u] : NULL);
	}
	strmap_fini(&uses);
	return rc;
}
