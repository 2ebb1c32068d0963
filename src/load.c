/* load.c: path -> source (see load.h). */
#include "load.h"

#include "base/alloc.h"
#include "base/arena.h"
#include "base/fileio.h"
#include "kind.h"
#include "source.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int source_load(const char *path, const char *kind_name, struct source **out, struct cs_error *err)
{
	return source_load_progress(path, kind_name, NULL, out, err);
}

int source_load_progress(const char *path, const char *kind_name, struct progress *pr, struct source **out,
			 struct cs_error *err)
{
	struct load_args args = { .path = path, .kind = kind_name, .progress = pr };
	return source_load_args(&args, out, err);
}

/* The kind that reads this file itself by path (a database), or NULL. */
static const struct kind_ops *sniff_kind(const char *path)
{
	char head[64];
	/* Non-blocking, and regular files only: a FIFO or a device is left to
	 * file_read, which refuses it with a sentence. */
	int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	struct stat st;
	ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, head, sizeof head) : -1;
	close(fd);
	for (size_t k = 0; n > 0 && kind_table[k]; k++)
		if (kind_table[k]->sniff && kind_table[k]->sniff(head, (size_t)n))
			return kind_table[k];
	return NULL;
}

static int load_by_path(const struct kind_ops *kind, const struct load_args *args, struct source **out,
			struct cs_error *err)
{
	struct source *src = source_new(kind, args->path);
	if (!src) {
		cs_error_file(err, args->path);
		return cs_error_nomem(err);
	}
	int rc = kind->load_path(src, args->path, args->companion, err);
	if (rc != CS_OK) {
		if (err && !err->file[0])
			cs_error_file(err, args->path);
		source_free(src);
		return rc;
	}
	*out = src;
	return CS_OK;
}

/* Remembers what the source was loaded with, for source_reload. */
static int remember(struct source *src, const struct load_args *args, struct cs_error *err)
{
	if (args->companion && !(src->companion = arena_strdup(&src->arena, args->companion))) {
		cs_error_file(err, args->path);
		return cs_error_nomem(err);
	}
	return CS_OK;
}

static int load_bytes(const struct kind_ops *kind, const struct load_args *args, struct source **out,
		      struct cs_error *err)
{
	if (args->companion)
		return cs_error_set(err, CS_EUSAGE, "--assembly-file goes with a ledger database (agents.db); an export "
				    "carries its own assembly block");
	char *data;
	size_t len;
	int rc = file_read(args->path, 0, &data, &len, NULL, err);
	if (rc != CS_OK)
		return rc;
	const char *image = kind_image_type(data, len);
	if (image) { /* whatever --kind says: no kind reads an image */
		cs_free(data);
		cs_error_file(err, args->path);
		return cs_error_set(err, CS_EKIND, "a %s image, not an input: ctxscope reads JSON, JSONL and YAML files "
				    "and ledger databases", image);
	}
	if (!kind && (rc = kind_detect(args->path, data, len, &kind, err)) != CS_OK) {
		cs_free(data);
		cs_error_file(err, args->path);
		return rc;
	}
	struct source *src = source_new(kind, args->path);
	if (!src) {
		cs_free(data);
		cs_error_file(err, args->path);
		return cs_error_nomem(err);
	}
	src->input_bytes = len;
	src->settings.strict = args->strict;
	src->progress = args->progress;
	src->input_owned = true;
	rc = kind->load(src, data, len, err);
	src->input_owned = false;
	src->progress = NULL; /* borrowed for the load only */
	if (rc != CS_OK || !source_keep_input(src, data, len))
		cs_free(data); /* else piece text lives in it, and the source frees it */
	if (rc != CS_OK) {
		if (err && !err->file[0])
			cs_error_file(err, args->path);
		source_free(src);
		return rc;
	}
	*out = src;
	return CS_OK;
}

int source_load_args(const struct load_args *args, struct source **out, struct cs_error *err)
{
	*out = NULL;
	cs_alloc_install_cjson_hooks();
	const struct kind_ops *kind = NULL;
	if (args->kind && !(kind = kind_by_name(args->kind)))
		return cs_error_set(err, CS_EUSAGE, "unknown --kind \"%s\": expected manifest, loom, ledger or memory",
				    args->kind);
	const struct kind_ops *by_path = sniff_kind(args->path);
	int rc = by_path && (!kind || kind == by_path) ? load_by_path(by_path, args, out, err)
							: load_bytes(kind, args, out, err);
	if (rc == CS_OK && (rc = remember(*out, args, err)) != CS_OK) {
		source_free(*out);
		*out = NULL;
	}
	return rc;
}

int source_reload(const struct source *src, struct source **out, struct cs_error *err)
{
	struct load_args args = { .path = src->path, .kind = src->kind->name, .companion = src->companion,
				  .strict = src->settings.strict };
	return source_load_args(&args, out, err);
}

static void stamp_of(const char *path, long long *size, long long *mtime_ns)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		*size = *mtime_ns = 0;
		return;
	}
	*size = (long long)st.st_size;
	*mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

void load_stamp_take(const char *path, struct load_stamp *out)
{
	char wal[4096];
	stamp_of(path, &out->size, &out->mtime_ns);
	if (snprintf(wal, sizeof wal, "%s-wal", path) < (int)sizeof wal)
		stamp_of(wal, &out->wal_size, &out->wal_mtime_ns);
	else
		out->wal_size = out->wal_mtime_ns = 0;
}

bool load_stamp_same(const struct load_stamp *a, const struct load_stamp *b)
{
	return a->size == b->size && a->mtime_ns == b->mtime_ns && a->wal_size == b->wal_size &&
	       a->wal_mtime_ns == b->wal_mtime_ns;
}
