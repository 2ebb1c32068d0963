/* export.c: the report or the screen to a file (see export.h). */
#include "export.h"

#include "base/alloc.h"
#include "assembly.h"
#include "base/atomic_write.h"
#include "source.h"
#include "base/strbuf.h"

#include <string.h>
#include <strings.h>
#include <sys/stat.h>

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

/* CS_EUSAGE when path names the same file as input (both existing). */
static int not_the_input(const char *input, const char *path, struct cs_error *err)
{
	struct stat a, b;
	if (input && stat(input, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
		cs_error_file(err, path);
		return cs_error_set(err, CS_EUSAGE, "that is the input file: export to another name");
	}
	return CS_OK;
}

static int write_out(const char *path, const struct strbuf *sb, const struct atomic_write_options *w,
		     struct atomic_write_result *wres, struct cs_error *err)
{
	if (sb->failed)
		return cs_error_nomem(err);
	return atomic_write(path, sb_str(sb), sb->len, w, wres, err);
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
	int rc = not_the_input(a->src ? a->src->path : NULL, path, err);
	if (rc != CS_OK)
		return rc;
	struct report_options o = { .format = REPORT_TEXT };
	if (opt)
		o = *opt;
	o.format = format == EXPORT_JSON ? REPORT_JSON : format == EXPORT_YAML ? REPORT_YAML : REPORT_TEXT;
	struct strbuf out = STRBUF_INIT;
	rc = report_write(a, &o, &out);
	if (rc == CS_OK)
		rc = write_out(path, &out, w, wres, err);
	else
		cs_error_set(err, rc, "out of memory");
	sb_fini(&out);
	return rc;
}

int export_screen(const char *screen, size_t len, const char *input, const char *path,
		  const struct atomic_write_options *w, struct atomic_write_result *wres, struct cs_error *err)
{
	int rc = not_the_input(input, path, err);
	if (rc != CS_OK)
		return rc;
	struct strbuf out = STRBUF_INIT;
	sb_append(&out, screen, len);
	if (len == 0 || screen[len - 1] != '\n')
		sb_putc(&out, '\n');
	rc = write_out(path, &out, w, wres, err);
	sb_fini(&out);
	return rc;
}
