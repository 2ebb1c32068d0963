/* error.h: errors as values. A status code, a sentence, and where: file, line,
 * column and the path inside the document (e.g. files[3].priority).
 * No function in src/ prints or exits; they fill a struct cs_error and return
 * its code. The struct holds fixed buffers so that reporting out-of-memory
 * never needs memory. */
#ifndef CTXSCOPE_ERROR_H
#define CTXSCOPE_ERROR_H

#include <stdarg.h>
#include <stddef.h>

/* X(code, short name) */
#define CS_STATUS_CODES(X)                                  \
	X(CS_OK, "ok")                                      \
	X(CS_ENOMEM, "out of memory")                       \
	X(CS_EIO, "cannot read")                            \
	X(CS_ESYNTAX, "syntax error")                       \
	X(CS_ETYPE, "wrong type")                           \
	X(CS_ESTRUCT, "inconsistent input")                 \
	X(CS_ELIMIT, "over a limit")                        \
	X(CS_EUSAGE, "usage")                               \
	X(CS_EKIND, "unknown kind of input")                \
	X(CS_ESTATE, "changed on disk")

enum cs_status {
#define CS_X_ENUM(code, name) code,
	CS_STATUS_CODES(CS_X_ENUM)
#undef CS_X_ENUM
	CS_STATUS_COUNT
};

#define CS_ERROR_FILE_MAX 512   /* a path longer than this is cut in messages */
#define CS_ERROR_PATH_MAX 256   /* document path, e.g. nodes[12].metadata.excluded */
#define CS_ERROR_MSG_MAX 512

struct cs_error {
	enum cs_status code;
	long line;                      /* 1-based; 0 when unknown */
	long column;                    /* 1-based, in characters; 0 when unknown */
	char file[CS_ERROR_FILE_MAX];   /* the input file, "" when none */
	char path[CS_ERROR_PATH_MAX];   /* path in the document, "" when none */
	char message[CS_ERROR_MSG_MAX]; /* one sentence, no trailing period needed */
};

/* Reset to CS_OK with empty fields. NULL is fine (does nothing). */
void cs_error_clear(struct cs_error *err);

/* Set code and message (printf-style); keeps file, line, column and path.
 * Returns code, so callers can write `return cs_error_set(err, ...)`.
 * err may be NULL (the code is still returned). */
int cs_error_set(struct cs_error *err, enum cs_status code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

int cs_error_vset(struct cs_error *err, enum cs_status code, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* Out of memory: sets CS_ENOMEM with the one sentence every caller uses.
 * Returns CS_ENOMEM; err may be NULL. Needs no memory. */
int cs_error_nomem(struct cs_error *err);

/* Setters for the location parts; each NULL-safe, strings copied (cut to fit). */
void cs_error_file(struct cs_error *err, const char *file);
void cs_error_path(struct cs_error *err, const char *path);
void cs_error_pos(struct cs_error *err, long line, long column);

/* The short name of a status code ("syntax error"). Never NULL. */
const char *cs_status_name(enum cs_status code);

/* "file:line:column: path: message" with absent parts left out, into buf
 * (always NUL-terminated when n > 0). Returns the length it wanted. */
size_t cs_error_format(const struct cs_error *err, char *buf, size_t n);

#endif
