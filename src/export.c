/* export.c: the report or the screen to a file (see export.h). */
#include "export.h"

#include "base/alloc.h"
#include "assembly.h"
#include "base/atomic_write.h"
#include "source.h"
#include "base/strbuf.h"

#include <string.h>
#include <strings.h>

bool export_format_from_name(const char *name, enum export_format *out)
{
	static const struct {
		const char *name;
		enum export_format format;
	} names[] = {
		{ "", EXPORT_AUTO },         { "auto", EXPORT_AUTO }, { "text", EXPORT_TEXT },
		{ "yaml", EXPORT_YAML },     { "json", EXPORT_JSON }, { "screen", EXPORT_SCREEN },
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (!strcmp(names[i].name, name)) {
			*out = names[i].format;
			return true;
		}
	return false;
}

/* The extension of path's file name ("" when none). */
static const char *extension(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash + 1 : path, '.');
	return dot ? dot : "";
}

enum export_format export_format_for_path(const char *path)
{
	const char *dot = extension(path);
	if (!strcasecmp(dot, ".json"))
		return EXPORT_JSON;
	if (!strcasecmp(dot, ".yml") || !strcasecmp(dot, ".yaml"))
		return EXPORT_YAML;
	if (!strcasecmp(dot, ".screen"))
		return EXPORT_SCREEN;
	if (!dot[0] || !strcasecmp(dot, ".txt") || !strcasecmp(dot, ".text"))
		return EXPORT_TEXT;
	return EXPORT_AUTO; /* an extension we do not write: refused, never text under another name */
}

/* The text to path through atomic_write, never over input (the loaded
 * file, under any name: atomic_write compares the files). */
static int write_out(const char *path, const char *input, const struct strbuf *sb,
		     const struct atomic_write_options *w, struct atomic_write_result *wres, struct cs_error *err)
{
	if (sb->failed)
		return cs_error_nomem(err);
	struct atomic_write_options o = { .replace = false };
	if (w)
		o = *w;
	o.input = input;
	return atomic_write(path, sb_str(sb), sb->len, &o, wres, err);
}

int export_report(const struct assembly *a, const struct report_options *opt, enum export_format format,
		  const char *path, const struct atomic_write_options *w, struct atomic_write_result *wres,
		  struct cs_error *err)
{
	if (format == EXPORT_AUTO)
		format = export_format_for_path(path);
	if (format == EXPORT_AUTO)
		return cs_error_set(err, CS_EUSAGE, "%.200s: ctxscope writes no \"%.40s\" file: name it .txt, .yaml, .json "
				    "or .screen, or say the format after the name (text, yaml, json, screen)", path,
				    extension(path));
	if (format == EXPORT_SCREEN)
		return cs_error_set(err, CS_EUSAGE, "the screen is exported with export_screen");
	struct report_options o = { .format = REPORT_TEXT };
	if (opt)
		o = *opt;
	o.format = format == EXPORT_JSON ? REPORT_JSON : format == EXPORT_YAML ? REPORT_YAML : REPORT_TEXT;
	struct strbuf out = STRBUF_INIT;
	int rc = report_write(a, &o, &out);
	if (rc == CS_OK)
		rc = write_out(path, a->src ? a->src->path : NULL, &out, w, wres, err);
	else
		cs_error_set(err, rc, "out of memory");
	sb_fini(&out);
	return rc;
}

int export_screen(const char *screen, size_t len, const char *input, const char *path,
		  const struct atomic_write_options *w, struct atomic_write_result *wres, struct cs_error *err)
{
	struct strbuf out = STRBUF_INIT;
	sb_append(&out, screen, len);
	if (len == 0 || screen[len - 1] != '\n')
		sb_putc(&out, '\n');
	int rc = write_out(path, input, &out, w, wres, err);
	sb_fini(&out);
	return rc;
}
