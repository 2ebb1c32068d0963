/* tune.c: the process-wide test and tuning switches (see tune.h). */
#include "base/tune.h"

#include <stdarg.h>

#define DEFAULTS                                                                                   \
	{                                                                                          \
		.manifest_quick = true, .ledger_quick = true, .memory_quick = true, .cc_fast = true, \
		.memory_cascade_min = CS_TUNE_CASCADE_MIN, .vm_virtual_rows = true, .utf8_fast = true, \
	}

static const struct cs_tuning defaults = DEFAULTS;
static struct cs_tuning tuning = DEFAULTS;

const struct cs_tuning *const cs_tuned = &tuning;

int cs_tune(int op, ...)
{
	va_list ap;
	va_start(ap, op);
	int rc = 0;
	switch (op) {
	case CS_TUNE_MANIFEST_QUICK: tuning.manifest_quick = va_arg(ap, int) != 0; break;
	case CS_TUNE_LEDGER_QUICK: tuning.ledger_quick = va_arg(ap, int) != 0; break;
	case CS_TUNE_MEMORY_QUICK: tuning.memory_quick = va_arg(ap, int) != 0; break;
	case CS_TUNE_CC_FAST: tuning.cc_fast = va_arg(ap, int) != 0; break;
	case CS_TUNE_CC_MAX_UNITS: tuning.cc_max_units = va_arg(ap, size_t); break;
	case CS_TUNE_MEMORY_CASCADE_MIN: tuning.memory_cascade_min = va_arg(ap, size_t); break;
	case CS_TUNE_VM_VIRTUAL_ROWS: tuning.vm_virtual_rows = va_arg(ap, int) != 0; break;
	case CS_TUNE_UTF8_FAST: tuning.utf8_fast = va_arg(ap, int) != 0; break;
	case CS_TUNE_RESET: tuning = defaults; break;
	default: rc = -1; break;
	}
	va_end(ap);
	return rc;
}
