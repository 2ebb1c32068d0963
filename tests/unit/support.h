/* support.h: helpers shared by the cmocka suites: temporary folders with
 * files in them, and loading/assembling with assertions. Suites run from the
 * repository root, so samples are at samples/. */
#ifndef CTXSCOPE_TEST_SUPPORT_H
#define CTXSCOPE_TEST_SUPPORT_H

#include "assembly.h"
#include "error.h"
#include "source.h"

struct strbuf;

/* A fresh folder under /tmp (static buffer per call site is the caller's:
 * the returned string is malloc'd; free it after support_rmtree). */
char *support_tempdir(void);
/* Writes text to dir/name, creating folders on the way. */
void support_write(const char *dir, const char *name, const char *text);
/* Writes n bytes (may hold NULs). */
void support_write_bytes(const char *dir, const char *name, const char *data, size_t n);
/* rm -rf dir. */
void support_rmtree(const char *dir);
/* dir/name into a static buffer (valid until the next call). */
const char *support_path(const char *dir, const char *name);

/* Loads path (kind NULL: detect); fails the test on error. */
struct source *support_load(const char *path, const char *kind);
/* Loads path expecting an error; returns its code and fills err. */
int support_load_error(const char *path, const char *kind, struct cs_error *err);
/* Assembles src into a; fails the test on error. */
void support_assemble(const struct source *src, struct assembly *a);
/* The piece index with this id; fails the test when absent. */
long support_piece(struct source *src, const char *id);
/* Applies a setting as the command line would; fails the test on error. */
void support_set(struct source *src, const char *name, const char *value);
/* A kind setting's current value as text into out (setting_get):
 * CS_EUSAGE when src's kind has no such setting. */
int support_get(const struct source *src, const char *name, struct strbuf *out);
/* Sets a kind setting from text (setting_set); CS_EUSAGE for an unknown one. */
int support_set_option(struct source *src, const char *name, const char *value, struct cs_error *err);
/* The whole rendered prompt (static buffer, valid until the next call). */
const char *support_prompt(const struct assembly *a);

#endif
