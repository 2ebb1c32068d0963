/* quick.h: a message row of a ledger export read straight from its bytes,
 * no tree (quick.c), for the usual shape only; load.c reads anything else
 * through json_doc. */
#ifndef CTXSCOPE_LEDGER_QUICK_H
#define CTXSCOPE_LEDGER_QUICK_H

#include <stdbool.h>
#include <stddef.h>

/* What the quick way read of a message row; strings are raw spans of the input. */
struct ledger_quick_message {
	const char *id, *turn, *content; /* bodies past the opening quote; id and turn have no escapes */
	size_t id_len, turn_len, content_len;
	size_t escaped;   /* the escapes the content holds (none of them \u), one byte each unescaped */
	bool has_content; /* false: no content member (the text is empty) */
	int role;         /* index into ledger_quick_roles */
	long sequence;    /* 0 when absent */
};

/* The message roles by number: user, assistant, system, tool. */
extern const char *const ledger_quick_roles[4];

/* The row whose '{' is at data[start] (white space before it allowed),
 * when it has the usual shape: true with *m and *end (past its '}'); else
 * false, and load.c reads it the tree's way. */
bool ledger_quick_message(const char *data, size_t len, size_t start, struct ledger_quick_message *m, size_t *end);
#endif
