/* error.c: errors as values (see error.h). */
#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void cs_error_clear(struct cs_error *err)
{
	if (err)
		memset(err, 0, sizeof *err);
}

int cs_error_vset(struct cs_error *err, enum cs_status code, const char *fmt, va_list ap)
{
	if (!err)
		return (int)code;
	err->code = code;
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	return (int)code;
}

int cs_error_set(struct cs_error *err, enum cs_status code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = cs_error_vset(err, code, fmt, ap);
	va_end(ap);
	return rc;
}

int cs_error_nomem(struct cs_error *err)
{
	return cs_error_set(err, CS_ENOMEM, "out of memory");
}

static void copy_cut(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "");
}

void cs_error_file(struct cs_error *err, const char *file)
{
	if (err)
		copy_cut(err->file, sizeof err->file, file);
}

void cs_error_path(struct cs_error *err, const char *path)
{
	if (err)
		copy_cut(err->path, sizeof err->path, path);
}

void cs_error_pos(struct cs_error *err, long line, long column)
{
	if (err) {
		err->line = line;
		err->column = column;
	}
}

const char *cs_status_name(enum cs_status code)
{
	static const char *const names[] = {
#define CS_X_NAME(c, name) name,
		CS_STATUS_CODES(CS_X_NAME)
#undef CS_X_NAME
	};
	if ((unsigned)code >= CS_STATUS_COUNT)
		return "unknown error";
	return names[code];
}

size_t cs_error_format(const struct cs_error *err, char *buf, size_t n)
{
	char pos[64] = "";
	if (err->line > 0 && err->column > 0)
		snprintf(pos, sizeof pos, "%ld:%ld:", err->line, err->column);
	else if (err->line > 0)
		snprintf(pos, sizeof pos, "%ld:", err->line);
	int len = snprintf(buf, n, "%s%s%s%s%s%s%s",
			   err->file, err->file[0] ? ":" : "", pos,
			   (err->file[0] || pos[0]) ? " " : "",
			   err->path, err->path[0] ? ": " : "",
			   err->message[0] ? err->message : cs_status_name(err->code));
	return len < 0 ? 0 : (size_t)len;
}
