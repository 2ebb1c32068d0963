/* whatif.c: what-if edit files (see whatif.h). */
#include "whatif.h"

#include "base/alloc.h"
#include "edit.h"
#include "emit.h"
#include "base/fileio.h"
#include "json/doc.h"
#include "kind.h"
#include "source.h"
#include "base/strbuf.h"

#include <string.h>

#define WHATIF_MAX_BYTES ((size_t)16 << 20) /* a what-if file is a list of edits, never large */

int whatif_render(const struct source *src, const struct edit *edits, size_t n, struct strbuf *out)
{
	struct emitter em;
	struct strbuf name = STRBUF_INIT, value = STRBUF_INIT;
	emit_init(&em, out, EMIT_JSON, 0);
	emit_map_begin(&em);
	emit_key_int(&em, "ctxscope_edits", WHATIF_VERSION);
	emit_key_str(&em, "file", src->path);
	emit_key_str(&em, "kind", src->kind->name);
	emit_key(&em, "edits");
	emit_list_begin(&em);
	for (size_t i = 0; i < n; i++) {
		sb_reset(&name);
		sb_reset(&value);
		edit_to_setting(src, &edits[i], &name, &value);
		emit_map_begin(&em);
		emit_key_str(&em, "setting", sb_str(&name));
		emit_key_str(&em, "value", sb_str(&value));
		emit_map_end(&em);
	}
	emit_list_end(&em);
	emit_map_end(&em);
	bool failed = name.failed || value.failed;
	sb_fini(&name);
	sb_fini(&value);
	int rc = emit_finish(&em);
	return failed ? CS_ENOMEM : rc;
}

int whatif_apply(struct source *src, const char *path, struct cs_error *err)
{
	char *data;
	size_t len;
	int rc = file_read(path, WHATIF_MAX_BYTES, &data, &len, NULL, err);
	if (rc != CS_OK)
		return rc;
	struct json_doc doc;
	rc = json_doc_parse(&doc, data, len, err);
	const cJSON *edits = NULL;
	const char *kind = NULL;
	long version = 0;
	if (rc == CS_OK)
		rc = json_get_long(&doc, doc.root, JPATH_ROOT, "ctxscope_edits", JSON_REQUIRED, &version, err);
	if (rc == CS_OK && version != WHATIF_VERSION)
		rc = json_fail(&doc, err, CS_ETYPE, JPATH_ROOT, "ctxscope_edits",
			       "this is a version %ld what-if file; ctxscope reads version %d", version, WHATIF_VERSION);
	if (rc == CS_OK)
		rc = json_get_string(&doc, doc.root, JPATH_ROOT, "kind", JSON_REQUIRED, &kind, err);
	if (rc == CS_OK && strcmp(kind, src->kind->name) != 0)
		rc = json_fail(&doc, err, CS_ESTRUCT, JPATH_ROOT, "kind",
			       "these edits are for a \"%s\" input; this one is \"%s\"", kind, src->kind->name);
	if (rc == CS_OK)
		rc = json_get_array(&doc, doc.root, JPATH_ROOT, "edits", JSON_REQUIRED, &edits, err);
	long i = 0;
	const cJSON *item;
	struct jpath list = JPATH_KEY(JPATH_ROOT, "edits");
	JSON_EACH(item, edits)
	{
		if (rc != CS_OK)
			break;
		struct jpath at = JPATH_INDEX(&list, i++);
		const char *setting = NULL, *value = NULL;
		if (!json_is_object(item)) {
			rc = json_fail(&doc, err, CS_ETYPE, &at, NULL, "expected {\"setting\": ..., \"value\": ...}, got %s",
				       json_type_name(item));
			break;
		}
		rc = json_get_string(&doc, item, &at, "setting", JSON_REQUIRED, &setting, err);
		if (rc == CS_OK)
			rc = json_get_string(&doc, item, &at, "value", JSON_REQUIRED, &value, err);
		struct edit e;
		struct cs_error why;
		cs_error_clear(&why);
		if (rc == CS_OK && (edit_from_setting(src, setting, value, &e, &why) != CS_OK ||
				    edit_apply(src, &e, &why) != CS_OK))
			rc = json_fail(&doc, err, why.code ? why.code : CS_EUSAGE, &at, NULL, "%s", why.message);
	}
	json_doc_free(&doc);
	cs_free(data);
	if (rc != CS_OK)
		cs_error_file(err, path);
	return rc;
}
