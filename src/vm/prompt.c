/* vm/prompt.c: the view-model's prompt view lines: the prompt as the model
 * receives it, with role headers and cache breakpoint lines. */
#include "vm/viewmodel_priv.h"

#include "base/alloc.h"
#include "base/strbuf.h"
#include "theme.h"

#include <string.h>

static bool prompt_line(struct vm *vm, size_t off, int role, size_t src_off1, long block)
{
	if (vm->prompt.nlines == vm->prompt.cap_lines) {
		size_t cap = vm->prompt.cap_lines ? vm->prompt.cap_lines * 2 : 256;
		struct vm_line *l = cs_reallocarray(vm->prompt.lines, cap, sizeof *l);
		if (!l)
			return false;
		vm->prompt.lines = l;
		vm->prompt.cap_lines = cap;
	}
	vm->prompt.lines[vm->prompt.nlines++] = (struct vm_line){
		.off = off, .len = vm->prompt.text.len - off, .role = role, .src_off1 = src_off1, .block = block
	};
	return true;
}

bool vm_prompt_lines(struct vm *vm)
{
	if (vm->prompt.built && vm->prompt.generation == vm->session.generation && !vm->prompt.text.failed)
		return true;
	const struct assembly *a = &vm->session.cur;
	struct strbuf *t = &vm->prompt.text;
	sb_reset(t);
	vm->prompt.nlines = 0;
	struct strbuf body = STRBUF_INIT;
	size_t g = vm->grouping < a->ngroupings ? vm->grouping : 0;
	bool ok = true;
	for (size_t b = 0; b < a->nblocks && ok; b++) {
		const struct block *bl = &a->blocks[b];
		bool before_messages = a->nmessages && b == 0 && a->messages[0].first_block > 0;
		if (before_messages || (a->nmessages && a->messages[bl->message].first_block == b)) {
			size_t off = t->len;
			/* blocks before the first message are the system prompt, sent apart */
			const char *role = before_messages ? "system" : a->messages[bl->message].role;
			sb_printf(t, "== %s ==", role ? role : "(no role)");
			ok = prompt_line(vm, off, ROLE_HEADING, 0, -1);
		}
		sb_reset(&body);
		asm_block_text(a, b, &body);
		int role = (bl->flags & BLOCK_MARKER) ? ROLE_CUT
			   : (g < a->ngroupings && bl->layer[g] >= 0) ? ROLE_BAR0 + bl->layer[g] % THEME_BAR_ROLES
								       : ROLE_MADE;
		const char *s = sb_str(&body);
		size_t n = body.len, i = 0;
		do {
			const char *nl = memchr(s + i, '\n', n - i);
			size_t len = nl ? (size_t)(nl - (s + i)) : n - i;
			size_t off = t->len;
			sb_append(t, s + i, len);
			ok = ok && prompt_line(vm, off, role, 1 + i, (long)b);
			i += len + (nl ? 1 : 0);
		} while (i < n && ok);
		if (ok && (vm_marker_after(vm, b))) {
			size_t off = t->len;
			char n1[32];
			bool brk = !vm->cache.identical && b + 1 == vm->cache.same_blocks;
			const struct cache_breakpoint *bp = vm_breakpoint(vm, (long)b);
			if (brk) {
				sb_puts(t, "-- ");
				vm_break_words(vm, ", ", t);
				sb_puts(t, " --");
			} else
				sb_printf(t, "-- cache breakpoint: %s tokens, %s --",
					  fmt_thousands(n1, bl->offset_tokens + bl->tokens),
					  bp ? vm_breakpoint_state(vm, bp) : "none");
			ok = prompt_line(vm, off, brk ? ROLE_BREAK : ROLE_MARKER, 0, (long)b);
		}
	}
	sb_fini(&body);
	vm->prompt.built = ok && !t->failed;
	vm->prompt.generation = vm->session.generation;
	return vm->prompt.built;
}

size_t vm_prompt_line_of_block(const struct vm *vm, long block)
{
	for (size_t i = 0; i < vm->prompt.nlines; i++)
		if (vm->prompt.lines[i].block == block && vm->prompt.lines[i].src_off1)
			return i;
	return 0;
}
