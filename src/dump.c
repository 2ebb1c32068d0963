/* dump.c: the prompt as the model receives it (see dump.h). */
#include "dump.h"

#include "assembly.h"
#include "kind.h"
#include "source.h"
#include "emit.h"
#include "base/error.h"
#include "base/strbuf.h"
#include "base/utf8.h"

#include <string.h>

static bool message_text(const struct assembly *a, size_t m, struct strbuf *out)
{
	const struct message *msg = &a->messages[m];
	for (size_t b = msg->first_block; b < msg->first_block + msg->nblocks; b++)
		if (!asm_block_text(a, b, out))
			return false;
	return true;
}

int dump_write(const struct assembly *a, bool raw, bool ascii, struct strbuf *out)
{
	if (a->src->kind->dump) /* the kind writes its own (a request body) */
		return a->src->kind->dump(a, raw, ascii, out);
	struct strbuf text = STRBUF_INIT;
	if (a->shape == ASM_DOCUMENT) {
		if (raw) {
			asm_prompt_text(a, out);
		} else {
			asm_prompt_text(a, &text);
			utf8_sanitize(out, sb_str(&text), text.len,
				      UTF8_KEEP_NEWLINES | UTF8_KEEP_TABS | (ascii ? UTF8_ASCII : 0));
		}
		bool text_failed = text.failed; /* sb_fini clears it */
		sb_fini(&text);
		return out->failed || text_failed ? CS_ENOMEM : CS_OK;
	}
	size_t first = 0;
	sb_puts(out, "{\n  \"system\": ");
	if (a->nmessages && strcmp(a->messages[0].role, "system") == 0) {
		message_text(a, 0, &text);
		json_quote(out, sb_str(&text), text.len);
		first = 1;
		if (text.failed) { /* the next sb_reset would forget it */
			sb_fini(&text);
			return CS_ENOMEM;
		}
	} else {
		sb_puts(out, "null");
	}
	sb_puts(out, ",\n  \"messages\": [");
	for (size_t m = first; m < a->nmessages; m++) {
		sb_reset(&text);
		message_text(a, m, &text);
		sb_puts(out, m > first ? ",\n    {\"role\": " : "\n    {\"role\": ");
		json_quote(out, a->messages[m].role, strlen(a->messages[m].role));
		sb_puts(out, ", \"content\": ");
		json_quote(out, sb_str(&text), text.len);
		sb_putc(out, '}');
		if (text.failed)
			break;
	}
	sb_puts(out, a->nmessages > first ? "\n  ]\n}\n" : "]\n}\n");
	bool failed = text.failed;
	sb_fini(&text);
	return out->failed || failed ? CS_ENOMEM : CS_OK;
}

bool dump_not_sent(const struct assembly *a, struct strbuf *why)
{
	if (!(a->flags & (ASM_ERROR | ASM_COMPACTS)))
		return false;
	sb_puts(why, a->state ? a->state : "the system refuses this prompt");
	return true;
}
