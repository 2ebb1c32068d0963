/* vm_exact.c: the inspector's exact token count beside the estimate
 * (formats.md section 8): the prompt counted by a public tokenizer after
 * every re-assembly, when the input names an OpenAI model or --tokenizer
 * asks for one. The estimate stays what the system uses; this is shown
 * beside it, never instead. */
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
	struct exact_counts x;
	struct cs_error err;
	cs_error_clear(&err);
	int rc = exact_count(&x, vm->exact.tok, &vm->session.cur, &err);
	vm->exact.total = rc == CS_OK ? x.total : -1;
	vm->exact.over = rc == CS_OK && x.over;
	vm->exact.generation = vm->session.generation;
	exact_fini(&x);
	return rc != CS_ENOMEM;
}
