/* vm/status.c: the status line and its log (:messages), at the bottom of
 * the view-model's files: every other one says what it did through it, and
 * it calls none of them. */
#include "vm/viewmodel_priv.h"

#include "base/strbuf.h"

#include <stdarg.h>
#include <string.h>

void vm_status(struct vm *vm, bool error, const char *fmt, ...)
{
	sb_reset(&vm->status);
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&vm->status, fmt, ap);
	va_end(ap);
	vm->status_error = error;
}

void vm_log_status(struct vm *vm)
{
	if (!vm->status.len || vm->status.failed)
		return;
	size_t n = vm->status.len; /* the same as the last line logged: once */
	if (vm->log.len >= n + 1) {
		size_t at = vm->log.len - n - 1;
		if ((at == 0 || vm->log.data[at - 1] == '\n') && memcmp(vm->log.data + at, vm->status.data, n) == 0)
			return;
	}
	if (vm->nlog == VM_LOG_MAX && vm->log.len) { /* the oldest goes */
		const char *nl = strchr(sb_str(&vm->log), '\n');
		size_t cut = nl ? (size_t)(nl - vm->log.data) + 1 : vm->log.len;
		memmove(vm->log.data, vm->log.data + cut, vm->log.len - cut + 1);
		vm->log.len -= cut;
		vm->nlog--;
	}
	for (const char *p = sb_str(&vm->status); *p; p++) /* one line each */
		sb_putc(&vm->log, *p == '\n' ? ' ' : *p);
	sb_putc(&vm->log, '\n');
	vm->nlog++;
}
