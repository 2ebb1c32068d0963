/* kind.c: the table of kinds and detection (see kind.h). */
#include "kind.h"

#include "json/doc.h"
#include "json/scan.h"
#include "kinds/request/shape_list.h"

#include <cjson/cJSON.h>
#include "base/strbuf.h"

#include <stdio.h>
#include <string.h>

extern const struct kind_ops manifest_kind;
extern const struct kind_ops loom_kind;
extern const struct kind_ops ledger_kind;
extern const struct kind_ops memory_kind;
extern const struct kind_ops anthropic_kind;
extern const struct kind_ops openai_kind;
extern const struct kind_ops claude_code_kind;

const struct kind_ops *const kind_table[] = {
	&manifest_kind,
	&loom_kind,
	&ledger_kind,
	&memory_kind,
	&claude_code_kind,
#define SHAPE_KIND(id) &id##_kind,
	REQUEST_SHAPES(SHAPE_KIND) /* the request kind's log shapes (kinds/request/shape_list.h) */
	&anthropic_kind,
	&openai_kind,
	NULL,
};

const struct kind_ops *kind_by_name(const char *name)
{
	for (size_t i = 0; kind_table[i]; i++)
		if (strcmp(kind_table[i]->name, name) == 0)
			return kind_table[i];
	return NULL;
}

int kind_sort_key(const struct kind_ops *kind, const char *name)
{
	for (int i = 0; kind->sort_keys && kind->sort_keys[i]; i++)
		if (strcmp(kind->sort_keys[i], name) == 0)
			return i;
	return -1;
}

void kind_sort_keys_text(const struct kind_ops *kind, const char *last_sep, struct strbuf *out)
{
	for (size_t i = 0; kind->sort_keys && kind->sort_keys[i]; i++)
		sb_printf(out, "%s%s", i == 0 ? "" : kind->sort_keys[i + 1] ? ", " : last_sep, kind->sort_keys[i]);
}

static int has_extension(const char *path, const char *ext)
{
	size_t n = strlen(path), e = strlen(ext);
	return n > e && strcmp(path + n - e, ext) == 0;
}

const char *kind_image_type(const char *data, size_t len)
{
	static const struct {
		const char *magic;
		size_t n;
		const char *name;
	} images[] = {
		{ "\x89PNG\r\n\x1a\n", 8, "PNG" }, { "\xff\xd8\xff", 3, "JPEG" }, { "GIF87a", 6, "GIF" },
		{ "GIF89a", 6, "GIF" },
	};
	for (size_t i = 0; i < sizeof images / sizeof images[0]; i++)
		if (len >= images[i].n && memcmp(data, images[i].magic, images[i].n) == 0)
			return images[i].name;
	if (len >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0)
		return "WebP";
	return NULL;
}

/* A JSONL file whose last line is cut off (the lines before it each a
 * value, the last one not): said so, with its line. CS_OK otherwise. */
static int cut_jsonl(const char *data, size_t len, struct cs_error *err)
{
	size_t end = len;
	while (end > 0 && (data[end - 1] == '\n' || data[end - 1] == '\r' || data[end - 1] == ' '))
		end--;
	const char *nl = NULL;
	for (size_t i = end; i-- > 0;)
		if (data[i] == '\n') {
			nl = data + i;
			break;
		}
	if (!nl)
		return CS_OK; /* one line: the JSON parser says where it stops */
	size_t from = (size_t)(nl + 1 - data), lines = 1;
	for (const char *p = data; (p = memchr(p, '\n', (size_t)(nl - p))) != NULL; p++)
		lines++;
	cJSON *last = json_tree_parse(data + from, end - from);
	cJSON *first = NULL;
	bool cut = !last;
	if (cut) { /* the first line must be a value of its own for this to be JSONL */
		const char *fnl = memchr(data, '\n', len);
		first = json_tree_parse(data, (size_t)(fnl - data));
		cut = first != NULL;
	}
	json_tree_free(last);
	json_tree_free(first);
	if (!cut)
		return CS_OK;
	cs_error_set(err, CS_ESYNTAX, "line %zu, the last, is cut off (it ends inside a JSON value: a JSONL file "
		     "still being written, or cut short); the lines before it are whole", lines + 1);
	cs_error_pos(err, (long)lines + 1, (long)(end - from) + 1);
	return CS_ESYNTAX;
}

/* A what-if file opened as an input: answered with the command that uses it. */
static int whatif_file(const struct json_doc *doc, const char *path, struct cs_error *err)
{
	if (!json_is_object(doc->root) || !json_member(doc->root, "ctxscope_edits"))
		return CS_OK;
	const cJSON *file = json_member(doc->root, "file");
	const char *input = json_is_string(file) ? json_string_value(file) : "INPUT";
	return cs_error_set(err, CS_EKIND, "a what-if file (edits made in the inspector), not an input: apply it with "
			    "ctxscope %.300s --edits %.300s", input, path);
}

static int unknown(struct cs_error *err);

int kind_detect(const char *path, const char *data, size_t len, const struct kind_ops **out,
		struct cs_error *err)
{
	*out = NULL;
	for (size_t i = 0; kind_table[i]; i++)
		for (const char *const *e = kind_table[i]->extensions; e && *e; e++)
			if (has_extension(path, *e)) {
				*out = kind_table[i];
				return CS_OK;
			}

	struct json_keys keys;
	int rc = json_scan_top_keys(data, len, &keys, err);
	if (rc != CS_OK)
		return rc;
	for (size_t i = 0; kind_table[i]; i++) {
		const char *const *k = kind_table[i]->json_keys;
		if (!k || !*k)
			continue;
		while (*k && json_keys_has(&keys, *k))
			k++;
		if (!*k) {
			*out = kind_table[i];
			json_keys_fini(&keys);
			return CS_OK;
		}
	}
	json_keys_fini(&keys);
	/* Then the kinds that look deeper (provider requests: "messages" is
	 * also a table of a ledger export, so the exact keys go first). */
	for (size_t i = 0; kind_table[i]; i++) {
		bool yes = false;
		if (kind_table[i]->detect && kind_table[i]->detect(path, data, len, &yes) != CS_OK)
			return cs_error_nomem(err);
		if (yes) {
			*out = kind_table[i];
			return CS_OK;
		}
	}

	/* Nothing matched: a file cut off in its last line, text that is not
	 * even valid JSON, a what-if file: each said for what it is. Parsing
	 * only on this path keeps detection cheap. */
	int rc2 = cut_jsonl(data, len, err);
	if (rc2 != CS_OK)
		return rc2;
	struct json_doc doc;
	int parsed = json_doc_parse(&doc, data, len, err);
	if (parsed == CS_OK)
		parsed = whatif_file(&doc, path, err);
	json_doc_free(&doc);
	if (parsed != CS_OK)
		return parsed;
	return unknown(err);
}

/* "cannot tell what this is", on one line: the --kind names first (they
 * survive a message cut at CS_ERROR_MSG_MAX), then what tells each kind. */
static int unknown(struct cs_error *err)
{
	struct strbuf expected = STRBUF_INIT, names = STRBUF_INIT;
	for (size_t i = 0; kind_table[i]; i++) {
		const char *const *k = kind_table[i]->json_keys;
		sb_printf(&names, "%s%s", i ? "|" : "", kind_table[i]->name);
		if (k && *k) {
			sb_printf(&expected, "; %s ", kind_table[i]->name);
			for (size_t j = 0; k[j]; j++)
				sb_printf(&expected, "%s\"%s\"", j ? "+" : "", k[j]);
		}
		if (kind_table[i]->detect_hint)
			sb_printf(&expected, "; %s %s", kind_table[i]->name, kind_table[i]->detect_hint);
	}
	/* One line that fits the message whole: the --kind names first, then the
	 * list of shapes, cut at a "; " (never mid-word) when it is too long. */
	struct strbuf head = STRBUF_INIT;
	sb_printf(&head, "cannot tell what this is (say --kind %s): manifest a .yml file", names.len ? sb_str(&names) : "");
	const char *list = expected.len ? sb_str(&expected) : "";
	size_t used = head.len + strlen("; ...") + 1, keep = strlen(list);
	size_t room = used < CS_ERROR_MSG_MAX ? CS_ERROR_MSG_MAX - used : 0;
	if (keep > room) {
		keep = room;
		while (keep > 0 && strncmp(list + keep, "; ", 2))
			keep--;
	}
	cs_error_set(err, CS_EKIND, "%s%.*s%s", sb_str(&head), (int)keep, list, keep < strlen(list) ? "; ..." : "");
	bool failed = expected.failed || names.failed || head.failed;
	sb_fini(&head);
	sb_fini(&names);
	sb_fini(&expected);
	if (failed)
		return cs_error_nomem(err);
	return CS_EKIND;
}
