/* vm/exact.c: the inspector's exact token count beside the estimate
 * (ctxscope-formats(5) section 8): the prompt counted by a public tokenizer after
 * every re-assembly, when the input names an OpenAI model or --tokenizer
 * asks for one. The estimate stays what the system uses; this is shown
 * beside it, never instead. Counts are remembered by text (exact_live.c):
 * an edit recounts only the blocks it cut and the seams around them. */
#include "vm/viewmodel_priv.h"

#include "tokens/exact.h"
#include "tokens/tokenizer.h"

#include <stdio.h>
#include <string.h>

/* Opens what the setting says ("" the model's, "off" none); the setting is
 * acted on either way, so that a failure is said once. */
static int open_for_setting(struct vm *vm, const char *setting, struct cs_error *err)
{
	snprintf(vm->exact.setting, sizeof vm->exact.setting, "%s", setting);
	const char *name = setting[0] ? setting : NULL;
	const char *auto_name = name ? NULL : exact_auto_tokenizer(&vm->session.cur);
	struct tokenizer *t = NULL;
	int rc = CS_OK;
	if (name && !strcmp(name, "off")) {
		rc = CS_OK;
	} else if (name || auto_name) {
		struct cs_error ignored;
		cs_error_clear(&ignored);
		rc = tokenizer_open(name ? name : auto_name, &t, name ? err : &ignored);
		if (rc != CS_OK && !name && rc != CS_ENOMEM) { /* chosen by the model and not installed: said, no count */
			vm_status(vm, false, "%s counts (%s): its file is missing (make deps); the figures are the estimate",
				  tokenizer_kind(auto_name), auto_name);
			rc = CS_OK;
		}
	}
	if (rc != CS_OK)
		return rc;
	exact_live_fini(&vm->exact.base_live); /* remembered by another tokenizer; it borrows live's memo */
	exact_live_fini(&vm->exact.live);
	tokenizer_close(vm->exact.tok);
	vm->exact.tok = t;
	vm->exact.total = -1;
	vm->exact.over = false;
	vm->exact.generation = vm->session.generation - 1; /* counted at the next refresh */
	return CS_OK;
}

int vm_set_tokenizer(struct vm *vm, const char *name, struct cs_error *err)
{
	struct source *src = vm->session.src;
	int rc = open_for_setting(vm, name ? name : "", err);
	if (rc != CS_OK)
		return rc;
	snprintf(src->settings.tokenizer, sizeof src->settings.tokenizer, "%s", vm->exact.setting);
	snprintf(vm->exact.initial, sizeof vm->exact.initial, "%s", vm->exact.setting);
	/* everything again: a profile may price in exact counts */
	const struct vm_row *sel = vm_selected(vm);
	return vm_refresh_all(vm, sel ? sel->piece : -1, sel ? sel->block : -1) ? CS_OK : cs_error_nomem(err);
}

bool vm_count_exact(struct vm *vm)
{
	const char *setting = vm->session.src->settings.tokenizer;
	if (strcmp(setting, vm->exact.setting) != 0) { /* :set tokenizer, or its undo */
		struct cs_error err;
		cs_error_clear(&err);
		int rc = open_for_setting(vm, setting, &err);
		if (rc == CS_ENOMEM)
			return false;
		if (rc != CS_OK)
			vm_status(vm, true, "%s", err.message);
	}
	if (!vm->exact.tok || vm->exact.generation == vm->session.generation)
		return true;
	struct cs_error err;
	cs_error_clear(&err);
	int rc = exact_live_count(&vm->exact.live, vm->exact.tok, &vm->session.cur, &err);
	vm->exact.total = rc == CS_OK ? vm->exact.live.total : -1;
	vm->exact.over = rc == CS_OK && vm->exact.live.over;
	vm->exact.generation = vm->session.generation;
	return rc != CS_ENOMEM;
}

bool vm_exact_measure(struct vm *vm, struct cache_measure *m)
{
	if (!vm->exact.tok || vm->exact.total < 0 || vm->exact.live.nblocks != vm->session.cur.nblocks)
		return false;
	struct cs_error err;
	cs_error_clear(&err);
	exact_live_share(&vm->exact.base_live, &vm->exact.live);
	if (exact_live_count(&vm->exact.base_live, vm->exact.tok, &vm->session.base, &err) != CS_OK)
		return false;
	*m = (struct cache_measure){ vm->exact.live.block_tokens, vm->exact.base_live.block_tokens, vm->exact.total,
				     vm->exact.base_live.total };
	return true;
}

long vm_piece_exact(struct vm *vm, long piece)
{
	if (!vm->exact.tok || vm->exact.total < 0 || piece < 0 || (size_t)piece >= vm->exact.live.npieces)
		return -1;
	if (vm->exact.live.piece_tokens[piece] >= 0)
		return vm->exact.live.piece_tokens[piece];
	const struct piece *p = &vm->session.src->pieces[piece];
	struct cs_error err;
	cs_error_clear(&err);
	return exact_live_text(&vm->exact.live, vm->exact.tok, p->text, p->text_bytes, &err);
}

long vm_row_exact(struct vm *vm, const struct vm_row *row)
{
	if (!vm->exact.tok || vm->exact.total < 0)
		return -1;
	switch (row->type) {
	case VM_ROW_BLOCK:
		return row->block >= 0 && (size_t)row->block < vm->exact.live.nblocks ? vm->exact.live.block_tokens[row->block]
										: -1;
	case VM_ROW_DROPPED: return vm_piece_exact(vm, row->piece);
	case VM_ROW_MARKER: return -1;
	}
	return -1;
}

long vm_layer_exact(const struct vm *vm, size_t layer)
{
	size_t g = vm->grouping < vm->session.cur.ngroupings ? vm->grouping : 0;
	if (!vm->exact.tok || vm->exact.total < 0 || g >= ASM_MAX_GROUPINGS || layer >= vm->exact.live.nlayers[g])
		return -1;
	return vm->exact.live.layer_tokens[g][layer];
}
