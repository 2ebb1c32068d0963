/* tune.h: every process-wide test and tuning switch, in one place and
 * behind one entry (sqlite's sqlite3_test_control is the model). The
 * modules read cs_tuned; only cs_tune writes it, and only the unit suites,
 * the fuzz harnesses and the benchmark call cs_tune: the program never
 * does, so a switch turned is always a test's or a measurement's. Each
 * switch's default is the way the program runs. */
#ifndef CTXSCOPE_TUNE_H
#define CTXSCOPE_TUNE_H

#include <stdbool.h>
#include <stddef.h>

#define CS_TUNE_CASCADE_MIN 65536 /* a memory patch of fewer re-decided items is always written in place */

enum cs_tune_op {
	/* int on: a kind's usual elements read straight from their bytes, no
	 * tree (default 1); 0: every one through cJSON or libyaml's tree, the
	 * way the quick reader is checked against (both ways, same model) */
	CS_TUNE_MANIFEST_QUICK, /* kinds/manifest/quick.c: a manifest's entries */
	CS_TUNE_LEDGER_QUICK,   /* kinds/ledger/quick.c: a ledger export's message rows */
	CS_TUNE_MEMORY_QUICK,   /* kinds/memory/quick.c: a snapshot's items */
	CS_TUNE_CC_FAST,        /* kinds/claude_code/fast.c: a session's lines */
	/* size_t n: the blocks a Claude Code session's replayed requests hold
	 * in all (kinds/claude_code/requests.c; 0: CC_MAX_UNITS) */
	CS_TUNE_CC_MAX_UNITS,
	/* size_t n: re-decided memory items past which a patch is written whole
	 * (kinds/memory/assemble.c; default CS_TUNE_CASCADE_MIN) */
	CS_TUNE_MEMORY_CASCADE_MIN,
	/* int on: the list in assembly order worked out row by row on demand
	 * (vm/rows.c; default 1); 0: a row per piece, built as the sorted lists are */
	CS_TUNE_VM_VIRTUAL_ROWS,
	/* int on: plain ASCII runs sanitized and fitted a byte a column
	 * (base/utf8.c; default 1); 0: the general way alone */
	CS_TUNE_UTF8_FAST,
	/* (no argument) every switch back to its default */
	CS_TUNE_RESET,
};

/* The switches as they stand (defaults: tune.c). */
struct cs_tuning {
	bool manifest_quick, ledger_quick, memory_quick, cc_fast;
	size_t cc_max_units;       /* 0: the kind's CC_MAX_UNITS */
	size_t memory_cascade_min; /* default CS_TUNE_CASCADE_MIN */
	bool vm_virtual_rows;
	bool utf8_fast;
};

/* Read-only for everyone but cs_tune. Never NULL. */
extern const struct cs_tuning *const cs_tuned;

/* Sets switch `op` from the argument its comment names (int or size_t).
 * Returns 0, or -1 for an op it does not know (nothing changes). Not
 * thread-safe: call it before the work it tunes. */
int cs_tune(int op, ...);

#endif
