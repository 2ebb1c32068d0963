/* whatif.h: a what-if file holds the edits a user made to an input, kept
 * beside it instead of written into it (ctxscope never rewrites a loom tree
 * or a ledger export). `ctxscope FILE --edits EDITS.json` re-applies them.
 *   {"ctxscope_edits": 1, "file": "tree.json", "kind": "loom",
 *    "edits": [{"setting": "exclude", "value": "n42"},
 *              {"setting": "strategy", "value": "rollingWindow"}]}
 * Each edit is a setting as the command line spells it (edit.h). */
#ifndef CTXSCOPE_WHATIF_H
#define CTXSCOPE_WHATIF_H

#include "base/error.h"

#include <stddef.h>

struct edit;
struct source;
struct strbuf;

#define WHATIF_VERSION 1

/* Renders edits[0..n) made to src as a what-if JSON document into out.
 * CS_OK or CS_ENOMEM. */
int whatif_render(const struct source *src, const struct edit *edits, size_t n, struct strbuf *out);

/* Reads the what-if file at path and applies its edits to src, in order.
 * A file made for another kind is refused; one made for another file name
 * is applied (the file may have moved). Errors name the what-if file, the
 * position and the edit. */
int whatif_apply(struct source *src, const char *path, struct cs_error *err);

#endif
