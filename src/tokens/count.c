/* count.c: the count command (see count.h). */
#include "tokens/count.h"

#include "base/alloc.h"
#include "emit.h"
#include "base/fileio.h"
#include "base/strbuf.h"
#include "tokens/tokenizer.h"
#include "tokens/estimate.h"
#include "base/utf8.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

struct count_args {
	const char *tokenizer;
	bool json;
	char **files;
	int nfiles;
};

static int parse_args(int argc, char **argv, struct count_args *a, struct cs_error *err)
{
	*a = (struct count_args){ .tokenizer = "o200k_base", .files = argv + argc };
	int nfiles = 0;
	bool options = true;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *v = NULL;
		if (!options || arg[0] != '-' || !strcmp(arg, "-")) {
			argv[nfiles++] = argv[i]; /* gather the files at the front */
			continue;
		}
		if (!strcmp(arg, "--")) {
			options = false;
			continue;
		}
		bool tok = !strncmp(arg, "--tokenizer", 11), fmt = !strncmp(arg, "--format", 8);
		const char *rest = tok ? arg + 11 : fmt ? arg + 8 : NULL;
		if (!rest || (*rest && *rest != '='))
			return cs_error_set(err, CS_EUSAGE, "count: unknown option %s (count takes --tokenizer and --format)", arg);
		if (*rest == '=')
			v = rest + 1;
		else if (i + 1 < argc)
			v = argv[++i];
		else
			return cs_error_set(err, CS_EUSAGE, "%s needs a value", arg);
		if (tok)
			a->tokenizer = v;
		else if (!strcmp(v, "json") || !strcmp(v, "text"))
			a->json = v[0] == 'j';
		else
			return cs_error_set(err, CS_EUSAGE, "count --format takes text or json, not \"%s\"", v);
	}
	if (!nfiles)
		return cs_error_set(err, CS_EUSAGE, "count: no file given (ctxscope count [--tokenizer NAME|PATH] FILE..., - for standard input)");
	a->files = argv;
	a->nfiles = nfiles;
	return CS_OK;
}

struct counted {
	long tokens, estimate;
};

/* A count right-aligned in `width` columns, with `≈` before it (`~` when
 * ascii) when approximate. */
static void count_cell(struct strbuf *out, long v, int width, bool approx, bool ascii)
{
	char t[32];
	fmt_thousands(t, v);
	int cols = (int)strlen(t) + (approx ? 1 : 0);
	for (int i = cols; i < width; i++)
		sb_putc(out, ' ');
	if (approx)
		sb_puts(out, ascii ? "~" : "\u2248");
	sb_puts(out, t);
}

static void write_text(struct strbuf *out, const struct tokenizer *tok, const struct count_args *a,
		       const struct counted *c, bool ascii)
{
	char e[32];
	long tt = 0, te = 0;
	bool approx = tokenizer_approximate(tok);
	sb_printf(out, "%12s %12s %7s  %s\n", approx ? "approximate" : "exact", "estimated", "ratio", "file");
	for (int i = 0; i < a->nfiles; i++) {
		count_cell(out, c[i].tokens, 12, approx, ascii);
		sb_printf(out, " %12s %7.2f  ", fmt_thousands(e, c[i].estimate),
			  c[i].estimate ? (double)c[i].tokens / (double)c[i].estimate : 0.0);
		utf8_sanitize(out, a->files[i], strlen(a->files[i]), 0);
		sb_putc(out, '\n');
		tt += c[i].tokens, te += c[i].estimate;
	}
	if (a->nfiles > 1) {
		count_cell(out, tt, 12, approx, ascii);
		sb_printf(out, " %12s %7.2f  total\n", fmt_thousands(e, te), te ? (double)tt / (double)te : 0.0);
	}
	if (approx)
		sb_printf(out, "approximate (%s): the claude encoding of ai-tokenizer, not Anthropic's own tokenizer; "
			  "estimated: ceil(code points / 4), the inspected systems' rule\n", tokenizer_name(tok));
	else
		sb_printf(out, "exact: %s; estimated: ceil(code points / 4), the inspected systems' rule\n",
			  tokenizer_name(tok));
}

static int write_json(struct strbuf *out, const struct tokenizer *tok, const struct count_args *a,
		      const struct counted *c)
{
	struct emitter em;
	emit_init(&em, out, EMIT_JSON, 0);
	emit_list_begin(&em);
	for (int i = 0; i < a->nfiles; i++) {
		emit_map_begin(&em);
		emit_key_str(&em, "path", a->files[i]);
		emit_key_int(&em, "tokens", c[i].tokens);
		emit_key_str(&em, "tokenizer", tokenizer_name(tok));
		emit_key_str(&em, "kind", tokenizer_approximate(tok) ? "approximate" : "exact");
		emit_key_int(&em, "estimate", c[i].estimate);
		emit_map_end(&em);
	}
	emit_list_end(&em);
	return emit_finish(&em);
}

/* Standard input, whole, into *out (cs_malloc'd, NUL-terminated). */
static int read_stdin(char **out, size_t *len, struct cs_error *err)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = cs_malloc(cap + 1);
	if (!buf)
		return cs_error_nomem(err);
	for (;;) {
		if (n == cap) {
			if (cap >= FILEIO_MAX_INPUT) {
				cs_free(buf);
				return cs_error_set(err, CS_ELIMIT, "standard input: more than %zu bytes", (size_t)FILEIO_MAX_INPUT);
			}
			char *grown = cs_realloc(buf, 2 * cap + 1);
			if (!grown) {
				cs_free(buf);
				return cs_error_nomem(err);
			}
			buf = grown, cap *= 2;
		}
		ssize_t got = read(STDIN_FILENO, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			cs_free(buf);
			return cs_error_set(err, CS_EIO, "standard input: %s", strerror(errno));
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return CS_OK;
}

static int count_file(struct tokenizer *t, const char *path, struct counted *c, struct cs_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = !strcmp(path, "-") ? read_stdin(&buf, &len, err) : file_read(path, 0, &buf, &len, NULL, err);
	if (rc == CS_OK)
		rc = tokenizer_count(t, buf, len, &c->tokens, err);
	if (rc == CS_OK)
		c->estimate = tokens_of_text(buf, len, TOKENS_DEFAULT_CHARS_PER_TOKEN);
	cs_free(buf);
	return rc;
}

int count_command(int argc, char **argv, bool ascii, struct strbuf *out, struct cs_error *err)
{
	struct count_args a;
	int rc = parse_args(argc, argv, &a, err);
	if (rc != CS_OK)
		return rc;
	struct tokenizer *t = NULL;
	rc = tokenizer_open(a.tokenizer, &t, err);
	if (rc != CS_OK)
		return rc;
	struct counted *c = cs_calloc((size_t)a.nfiles, sizeof *c);
	int stdin_uses = 0;
	for (int i = 0; i < a.nfiles; i++)
		stdin_uses += !strcmp(a.files[i], "-");
	if (!c)
		rc = cs_error_nomem(err);
	else if (stdin_uses > 1)
		rc = cs_error_set(err, CS_EUSAGE, "count: standard input (-) given %d times; it can be read once", stdin_uses);
	for (int i = 0; rc == CS_OK && i < a.nfiles; i++)
		rc = count_file(t, a.files[i], &c[i], err);
	if (rc == CS_OK && a.json)
		rc = write_json(out, t, &a, c);
	else if (rc == CS_OK)
		write_text(out, t, &a, c, ascii);
	if (rc == CS_OK && out->failed)
		rc = cs_error_nomem(err);
	cs_free(c);
	tokenizer_close(t);
	return rc;
}
