/* manifest.h: the working-set manifest kind (seed 002, ctxscope-formats(5) section 3):
 * a YAML list of files with priorities, roles, truncation strategies and
 * line caps, assembled greedily by priority into a token budget.
 * Each file is a piece (id = its path as written); the kind's model keeps the
 * manifest's bytes (saving parses them again to splice), the budget and the
 * companion hints. */
#ifndef CTXSCOPE_MANIFEST_H
#define CTXSCOPE_MANIFEST_H

#include "base/bulk.h"
#include "base/fileio.h"
#include "kind.h"
#include "json/yaml_tree.h"

#include <stdbool.h>
#include <stddef.h>

extern const struct kind_ops manifest_kind;

#define MANIFEST_DEFAULT_MAX_TOKENS 28000 /* ctxscope-formats(5): no budget at all */
#define MANIFEST_DEFAULT_RESERVED 4000
#define MANIFEST_MAX_FILES 1000000        /* entries; more is refused */
#define MANIFEST_MAX_FILE_BYTES ((size_t)256 << 20) /* one listed file; larger is excluded as unreadable */

/* Roles, in layer order (the boot header is layer 0). X(enum, name) */
#define MANIFEST_ROLES(X)            \
	X(MROLE_SYSTEM, "system")     \
	X(MROLE_DEVELOPER, "developer") \
	X(MROLE_USER, "user")         \
	X(MROLE_CONTEXT, "context")

enum manifest_role {
#define MROLE_X_ENUM(e, name) e,
	MANIFEST_ROLES(MROLE_X_ENUM)
#undef MROLE_X_ENUM
	MROLE_COUNT
};

/* Where max_lines cuts a file under one strategy (computed at load). */
struct manifest_cap {
	size_t head_bytes;        /* kept from the start */
	size_t head_code_points;
	size_t tail_offset;       /* kept from here to the end */
	size_t tail_code_points;
};

struct manifest_entry {
	long line, column;          /* where the entry's mapping starts (1-based) */
	long piece;                 /* its piece */
	size_t max_lines;           /* 0: no cap */
	const char *resolved;       /* the path read, relative to the manifest's folder */
	bool symlink;               /* resolved's last component is a symbolic link (seen as it was read) */
	const char *hint;           /* from hot.yml / cold.yml, a sentence; NULL none */
	bool hot;                   /* hint is a keep (hot) hint, else evict (cold) */
	const char *suggested;      /* cold.yml suggested_action; NULL none */
	struct manifest_cap *caps;  /* max_lines cuts for start, middle, end (arena); NULL when not over max_lines */
};

struct manifest {
	char *data;                 /* its bytes (cs_malloc'd), for saving */
	size_t len;
	struct file_stamp stamp;    /* the file as parsed: its size is len, its mtime taken before the listed files */
	unsigned long long hash;    /* manifest_hash of the bytes last saved: what a save checks */
	bool hashed;                /* hash is set; else the bytes are m->data's, not hashed yet */
	const char *protocol;       /* NULL when absent */
	long max_tokens;
	long reserved;
	long effective;             /* the input's, or max - reserved */
	bool has_budget;
	struct manifest_entry *entries; /* one per file, in input order */
	struct bulk texts;          /* the listed files' bytes, the pieces' texts */
	size_t nentries;
	bool boot_header;           /* render seed 7's boot header first */
	const char *session;        /* metadata.session, for the boot header; NULL none */
	const char *output_sink;    /* metadata.output_sink */
	const char *hints_present;  /* "hot.yml, cold.yml" as found; NULL none */
};

/* An entry of `files` as the loader takes it: checked by the loader's rules
 * (manifest_entry_spec) and reduced to what it keeps, with the places its
 * sentences name (1-based). */
struct manifest_entry_spec {
	const char *path;          /* as written: not empty, no NUL */
	size_t path_len;
	double priority;           /* any finite number (outside 0..1 is a warning) */
	const char *priority_text; /* as written, for that warning */
	long priority_line, priority_column;
	long line, column;         /* the entry's mapping */
	int role;                  /* enum manifest_role */
	int strategy;              /* STRAT_NEVER..STRAT_END */
	size_t max_lines;          /* 0: no cap */
};

/* Checks entry i (files[i]) of a manifest and fills *out (its strings point
 * into e's nodes). On a fault, err names it (file:line:col and the path
 * files[i].field) as the loader reports it: CS_ETYPE, CS_ESTRUCT. */
int manifest_entry_spec(const struct ynode *e, size_t i, struct manifest_entry_spec *out, struct cs_error *err);

/* The role named `name`, or -1. */
int manifest_role_from_name(const char *name);
const char *manifest_role_name(int role);

struct piece;
/* Fills *out with where max_lines cuts piece p's text under strategy
 * (start, middle or end). Scans the text: done at load, not per assembly. */
void manifest_cap_compute(const struct piece *p, size_t max_lines, int strategy, struct manifest_cap *out);

/* Assembler (assemble.c), through manifest_kind.assemble. */
struct asm_run;
int manifest_assemble(struct asm_run *run, struct assembly *out, struct cs_error *err);

/* FNV-1a of data[0..len): the manifest's changed-on-disk check. */
unsigned long long manifest_hash(const char *data, size_t len);

/* Stamps m as holding data[0..len) of the file at path (its identity and
 * mtime now, the size and hash of these bytes). data NULL: the bytes loaded
 * (m->data), hashed only when a save checks them (a load hashing the whole
 * manifest every start was 3% of its user time, for a save that is rare). */
void manifest_stamp_bytes(struct manifest *m, const char *path, const char *data, size_t len);

/* The kind's operations, for its table (kind.c); load.c, and the report's
 * (report.c). */
struct emitter;
int manifest_load(struct source *src, const char *data, size_t len, struct cs_error *err);
void manifest_free(void *model);
int manifest_report_piece(const struct source *src, const struct assembly *a, long piece, struct emitter *em);
const char *manifest_piece_note(const struct source *src, long piece);
bool manifest_piece_column(const struct source *src, const struct assembly *a, long piece,
			   char cell[KIND_COLUMN_WIDTH + 1]);

#endif
