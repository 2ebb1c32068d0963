/* export.h: the inspector's `x` and `:export FILE`: the current report
 * (report.h, with whatever extra sections the caller has, e.g. the cache
 * analysis) as text, YAML or JSON, or the screen as text, written to a file
 * with atomic_write, so a crash leaves the old file or the new one whole.
 *
 * Decisions: the format is the one asked for, else the file's extension
 * (.json is JSON, .yml / .yaml is YAML, anything else is text); an existing
 * file, a symbolic link or a read-only file is replaced only as the caller's
 * atomic_write_options say (after asking the user), keeping a .bak;
 * exporting over the input file itself is refused (it would destroy what is
 * being inspected). Errors are values. */
#ifndef CTXSCOPE_EXPORT_H
#define CTXSCOPE_EXPORT_H

#include "base/atomic_write.h"
#include "base/error.h"
#include "report.h"

#include <stdbool.h>
#include <stddef.h>

struct assembly;

enum export_format {
	EXPORT_AUTO,   /* by the file's extension */
	EXPORT_TEXT,
	EXPORT_YAML,
	EXPORT_JSON,
	EXPORT_SCREEN, /* the screen's text, as given */
};

/* "text", "yaml", "json", "screen" (and "" or "auto": EXPORT_AUTO); false
 * for anything else. */
bool export_format_from_name(const char *name, enum export_format *out);
/* The format for path's extension: .json, .yml/.yaml, .screen, .txt/.text or
 * none (text); EXPORT_AUTO for any other (export_report refuses it). */
enum export_format export_format_for_path(const char *path);

/* Writes the report of a (borrowed) to path. opt (may be NULL: text, no
 * extra sections) gives the ascii flag and the extra sections; its format
 * is replaced by `format` (EXPORT_AUTO: by extension; EXPORT_SCREEN is
 * CS_EUSAGE here). w and wres go to atomic_write (NULL: a new file only).
 * CS_OK; CS_EUSAGE when path is the input file or atomic_write refused
 * (wres->refused says why); CS_EIO (atomic_write's sentence, naming the
 * file); CS_ENOMEM. */
int export_report(const struct assembly *a, const struct report_options *opt, enum export_format format,
		  const char *path, const struct atomic_write_options *w, struct atomic_write_result *wres,
		  struct cs_error *err);

/* Writes screen[0..len) (the UI's plain-text render, display-safe already)
 * to path, adding a final newline when it has none. `input` (may be NULL) is
 * the loaded file's path, which is refused as a target. Errors as above. */
int export_screen(const char *screen, size_t len, const char *input, const char *path,
		  const struct atomic_write_options *w, struct atomic_write_result *wres, struct cs_error *err);

#endif
