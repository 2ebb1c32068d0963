/* load.c: path -> source (see load.h). */
#include "load.h"

#include "alloc.h"
#include "fileio.h"
#include "kind.h"
#include "source.h"

int source_load(const char *path, const char *kind_name, struct source **out, struct cs_error *err)
{
	return source_load_progress(path, kind_name, NULL, out, err);
}

int source_load_progress(const char *path, const char *kind_name, struct progress *pr, struct source **out,
			 struct cs_error *err)
{
	*out = NULL;
	cs_alloc_install_cjson_hooks();
	const struct kind_ops *kind = NULL;
	if (kind_name && !(kind = kind_by_name(kind_name)))
		return cs_error_set(err, CS_EUSAGE, "unknown --kind \"%s\": expected manifest, loom, ledger or memory",
				    kind_name);
	char *data;
	size_t len;
	int rc = file_read(path, 0, &data, &len, NULL, err);
	if (rc != CS_OK)
		return rc;
	if (!kind && (rc = kind_detect(path, data, len, &kind, err)) != CS_OK) {
		cs_free(data);
		cs_error_file(err, path);
		return rc;
	}
	struct source *src = source_new(kind, path);
	if (!src) {
		cs_free(data);
		cs_error_file(err, path);
		return cs_error_nomem(err);
	}
	src->input_bytes = len;
	src->progress = pr;
	rc = kind->load(src, data, len, err);
	src->progress = NULL; /* borrowed for the load only */
	cs_free(data);
	if (rc != CS_OK) {
		if (err && !err->file[0])
			cs_error_file(err, path);
		source_free(src);
		return rc;
	}
	*out = src;
	return CS_OK;
}
