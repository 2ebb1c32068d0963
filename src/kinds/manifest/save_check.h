/* save_check.h: the manifest saver's checks on the parsed trees.
 * manifest_check_shared, before splicing: an edited value (a priority or a
 * truncate_strategy written over) that carries an anchor (&) which an alias
 * (*) elsewhere in the document uses (or a collection holding it that an
 * alias uses) is refused, naming the alias: the edit would change that
 * place too. An alias that is itself an edited value is fine (it becomes
 * the literal value). manifest_check_outside, after: the edited document
 * equals the loaded one everywhere but the edited values, the inserted
 * truncate_strategy keys and the removed entries: every key, scalar (bytes
 * and style) and collection, entry by entry and outside `files`. */
#ifndef CTXSCOPE_MANIFEST_SAVE_CHECK_H
#define CTXSCOPE_MANIFEST_SAVE_CHECK_H

#include "base/error.h"
#include "json/yaml_tree.h"

#include <stdbool.h>
#include <stddef.h>

/* One entry's changes, by its index in `files` as the text lists them. */
struct manifest_edit {
	size_t entry;      /* files[entry] */
	bool remove;       /* drop the whole entry (other fields ignored) */
	bool set_priority; /* write `priority` */
	double priority;
	int strategy;      /* STRAT_NEVER..STRAT_END to write; STRAT_NONE: leave as is */
};


/* by_entry[i]: files[i]'s edit or NULL; n entries. CS_OK, CS_ESTRUCT (err
 * names the alias: its path, line and column), CS_ENOMEM. */
int manifest_check_shared(const struct ynode *root, const struct ynode *files,
			  const struct manifest_edit *const by_entry[], size_t n, struct cs_error *err);

/* CS_OK or CS_ESTRUCT naming the first difference. old_root's `files` is
 * a list of n entries; new_root's holds the entries not removed. */
int manifest_check_outside(const struct ynode *old_root, const struct ynode *new_root,
			   const struct manifest_edit *const by_entry[], size_t n, struct cs_error *err);

/* The comments of the loaded text (a # at a line's start or after a blank,
 * outside every scalar, to the line's end) but those inside the removed
 * byte ranges (removed[2k], removed[2k+1]: sorted, nremoved pairs) are the
 * comments of the edited text, the same bytes in the same order. CS_OK,
 * CS_ESTRUCT naming the loaded line, CS_ENOMEM. */
int manifest_check_comments(const char *old_text, size_t old_len, const struct ynode *old_root,
			    const char *new_text, size_t new_len, const struct ynode *new_root,
			    const size_t *removed, size_t nremoved, struct cs_error *err);

#endif
