/* kind.c: the table of kinds and detection (see kind.h). */
#include "kind.h"

#include "json/doc.h"
#include "json/scan.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <string.h>

extern const struct kind_ops manifest_kind;
extern const struct kind_ops loom_kind;
extern const struct kind_ops ledger_kind;
extern const struct kind_ops memory_kind;
extern const struct kind_ops anthropic_kind;
extern const struct kind_ops openai_kind;
extern const struct kind_ops capture_kind, litellm_kind, openai_batch_kind, anthropic_batch_kind, har_kind;
extern const struct kind_ops claude_code_kind;

const struct kind_ops *const kind_table[] = {
	&manifest_kind,
	&loom_kind,
	&ledger_kind,
	&memory_kind,
	&claude_code_kind,
	&har_kind,
	&anthropic_batch_kind,
	&openai_batch_kind,
	&capture_kind,
	&litellm_kind,
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

	/* Nothing matched: if the text is not even valid JSON, that is the
	 * better answer (a truncated export lacks the keys it was meant to
	 * have). Parsing only on this path keeps detection cheap. */
	struct json_doc doc;
	int parsed = json_doc_parse(&doc, data, len, err);
	json_doc_free(&doc);
	if (parsed != CS_OK)
		return parsed;

	struct strbuf expected = STRBUF_INIT;
	for (size_t i = 0; kind_table[i]; i++) {
		const char *const *k = kind_table[i]->json_keys;
		if (!k || !*k)
			continue;
		sb_printf(&expected, "%s", expected.len ? "; " : "");
		for (size_t j = 0; k[j]; j++)
			sb_printf(&expected, "%s\"%s\"", j ? " and " : "", k[j]);
		sb_printf(&expected, " for a %s", kind_table[i]->title);
	}
	struct strbuf names = STRBUF_INIT;
	for (size_t i = 0; kind_table[i]; i++) {
		sb_printf(&names, "%s%s", i ? "|" : "", kind_table[i]->name);
		if (kind_table[i]->detect_hint)
			sb_printf(&expected, "; %s for %s %s", kind_table[i]->detect_hint,
				  strchr("AEIOU", kind_table[i]->title[0]) ? "an" : "a", kind_table[i]->title);
	}
	/* One line that fits the message whole: the list of shapes is cut at a
	 * "; " (never mid-word) so the --kind hint always ends it. */
	const char *head = "cannot tell what this is: expected a .yml/.yaml manifest or a JSON object with ";
	size_t room = CS_ERROR_MSG_MAX - 1 - strlen(head) - strlen(" (or say --kind )") - names.len;
	const char *list = expected.len ? sb_str(&expected) : "known keys";
	size_t keep = strlen(list);
	if (keep > room) {
		keep = room > 5 ? room - 5 : 0; /* "; ..." */
		while (keep > 0 && strncmp(list + keep, "; ", 2))
			keep--;
	}
	cs_error_set(err, CS_EKIND, "%s%.*s%s (or say --kind %s)", head, (int)keep, list,
		     keep < strlen(list) ? "; ..." : "", names.len ? sb_str(&names) : "");
	bool failed = expected.failed || names.failed;
	sb_fini(&names);
	if (failed) {
		sb_fini(&expected);
		return cs_error_nomem(err);
	}
	sb_fini(&expected);
	return CS_EKIND;
}
