/* save.h (manifest): writing a tuned working-set manifest back to its file,
 * changing only the edited values: each priority or truncate_strategy the
 * user changed is replaced in place (located by libyaml's marks, which count
 * characters, converted to byte offsets), an absent truncate_strategy is
 * inserted (a new line at the entry's indentation, or ", key: value" in a
 * flow mapping), and an entry the user excluded is removed from `files`.
 * Every other byte stays: comments, blank lines, key order, anchors, flow
 * style, CRLF line endings, a BOM, non-ASCII text.
 * Decisions: a removed block entry takes its own lines and the comment lines
 * directly above it (no blank line between, and never a line of the entry
 * above: a line starting with # may be inside its block scalar, whose end
 * the parser's marks give); comments separated from it by a blank line stay;
 * when the gap it leaves sits between two blank lines, one of them goes too.
 * A flow entry goes with one neighbouring comma.
 * Priorities are written rounded to at most 4 decimals with trailing zeros
 * trimmed (0.85, 1.0). A quoted strategy keeps its quotes; an anchor on an
 * edited value stays; an edited alias (`*p`) becomes the literal value.
 * An edited value carrying an anchor that an alias elsewhere uses (in
 * `files` or outside it) is refused, naming the alias (save_check.h). The
 * result is re-parsed and compared with the intended manifest before
 * anything is written: every entry's path, priority and strategy, and every
 * other key, scalar and comment of the document outside the edited values
 * and removed entries; a difference is refused (e.g. a removed entry holding
 * an anchor another uses). Unsupported: editing or removing an entry that is
 * itself an alias (`- *entry`), merge keys (`<<`). */
#ifndef CTXSCOPE_MANIFEST_SAVE_H
#define CTXSCOPE_MANIFEST_SAVE_H

#include "base/atomic_write.h"
#include "base/error.h"
#include "save_check.h"

#include <stdbool.h>
#include <stddef.h>

struct source;
struct strbuf;

#define MANIFEST_SAVE_DECIMALS 4 /* a priority is written with at most this many decimals */

/* The pure splice, for the save and for fuzzing: applies edits (at most one
 * per entry, any order) to the manifest text[0..len), re-parses the result
 * and checks it. On success *out is the new text (cs_malloc'd, NUL-
 * terminated, caller frees) and *out_len its length. On failure *out is
 * NULL and err says why: CS_ESYNTAX/CS_ESTRUCT when text is not a manifest
 * this can edit, CS_EUSAGE for an edit that makes no sense (entry out of
 * range, a repeated entry, a bad value), CS_ESTRUCT when the result would
 * not read back as intended, CS_ENOMEM. */
int manifest_splice(const char *text, size_t len, const struct manifest_edit *edits, size_t nedits, char **out,
		    size_t *out_len, struct cs_error *err);

/* priority as written: "0.85", "1.0", "0.1235". buf holds at least 32 bytes. */
const char *manifest_format_priority(char buf[32], double priority);

/* The edits a manifest source carries: pieces whose priority or strategy
 * differs from the input's, and pieces the user excluded. *out is
 * cs_malloc'd (caller frees; NULL when *n is 0). CS_EUSAGE when src is not a
 * manifest; CS_ENOMEM. */
int manifest_collect_edits(const struct source *src, struct manifest_edit **out, size_t *n, struct cs_error *err);

struct manifest_save_result {
	size_t values;   /* priorities and strategies written */
	size_t removed;  /* entries removed */
	bool written;    /* false: nothing to save (the file already holds it) */
	struct atomic_write_result write; /* the .bak, a refusal, a split link, ... */
};

/* The text a save would write: the loaded manifest plus src's edits
 * (manifest_splice). *out is cs_malloc'd (caller frees). res may be NULL. */
int manifest_save_text(const struct source *src, char **out, size_t *out_len, struct manifest_save_result *res,
		       struct cs_error *err);

/* Saves src's edits (manifest_collect_edits) into its file, or into
 * `output` when not NULL (save-as; relative paths in it are not rewritten).
 * Everything goes through atomic_write. In place, the file is replaced
 * (keeping a .bak, through a symbolic link: the user named it) unless it
 * no longer holds the bytes that were parsed (size and hash, checked before
 * splicing and again under the write's lock just before the rename):
 * CS_ESTATE, suggesting save-as; one deleted since is written again; a
 * read-only one needs opt->force. Save-as: opt's replace, named and force
 * as the caller asked (NULL: a new file only). After a save to the same
 * file the source's stamp is the new file's, so saving again works; the
 * source keeps the loaded text, and each save writes that text plus every
 * current edit. res may be NULL; res->write says where the .bak is, why a
 * write was refused (CS_EUSAGE), a split hard link. */
int manifest_save(struct source *src, const char *output, const struct atomic_write_options *opt,
		  struct manifest_save_result *res, struct cs_error *err);

/* Appends "; the previous file is X.bak" and the other things a save did
 * (a split hard link, an owner not kept, stale temporaries removed). */
void manifest_save_notes(const struct manifest_save_result *res, struct strbuf *said);

/* The headless `ctxscope save` command: manifest_save, with the
 * CTXSCOPE_SAVE_PAUSE_AT test hook (atomic_write.h) read from the
 * environment, and one sentence appended to said on success. force
 * (--force) lets --output replace an existing file and a read-only file be
 * replaced. output "-" is a dry run: the text that would be written is
 * appended to said and no file is touched. */
int manifest_save_command(struct source *src, const char *output, bool force, struct strbuf *said,
			  struct cs_error *err);

#endif
