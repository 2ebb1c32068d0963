/* vm_exact.c: the inspector's exact token count beside the estimate
 * (formats.md section 8): the prompt counted by a public tokenizer after
 * every re-assembly, when the input names an OpenAI model or --tokenizer
 * asks for one. The estimate stays what the system uses; this is shown
 * beside it, never instead. Counts are remembered by text (exact_live.c):
 * an edit recounts only the blocks it cut and the seams around them. */
#include "viewmodel_priv.h"

#include "exact.h"
#include "tokenizer.h"

int vm_set_tokenizer(struct vm *vm, const char *name, struct cs_error *err)
{
	const char *auto_name = name ? NULL : exact_auto_tokenizer(&vm->session.cur);
	if (!name && !auto_name)
		return CS_OK;
	struct tokenizer *t = NULL;
	struct cs_error ignored;
	cs_error_clear(&ignored);
	int rc = tokenizer_open(name ? name : auto_name, &t, name ? err : &ignored);
	if (rc != CS_OK)
		return name || rc == CS_ENOMEM ? rc : CS_OK; /* chosen by the model and not installed: no count */
	exact_live_fini(&vm->exact.live); /* remembered by another tokenizer */
	tokenizer_close(vm->exact.tok);
	vm->exact.tok = t;
	vm->exact.total = -1;
	vm->exact.generation = vm->session.generation - 1; /* counted at the next refresh */
	return vm_count_exact(vm) ? CS_OK : cs_error_nomem(err);
}

bool vm_count_exact(struct vm *vm)
{
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
