/* db.c: agents.db -> the ledger export's JSON text (see db.h).
 * Values are written as `sqlite3 -json` writes them: integers as numbers,
 * reals in SQLite's own rendering, text as JSON strings, NULL as null; rows
 * in the order `select * from TABLE` gives, one row a line.
 * Unsupported: BLOB values (no ledger column holds one) are written as a
 * string of hex digits. */
#include "db.h"

#include "alloc.h"
#include "fileio.h"
#include "json_doc.h"
#include "strbuf.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ledger_db_tables[6] = { "sessions", "threads", "turns", "messages", "tool_calls", "compactions" };

/* The columns the ledger cannot do without, per table (NULL-terminated). */
static const char *const needed_columns[6][5] = {
	{ "label", "thread_id", NULL },
	{ "turn_id", "ancestry", NULL },
	{ "id", "parent_turn_id", NULL },
	{ "id", "turn_id", "role", "content", NULL },
	{ "id", "turn_id", NULL },
	{ "turn_id", "summary", NULL },
};

/* SQLite allocates through the core's allocator, so out of memory inside it
 * is the same clean error (and the fault suite fails its allocations too).
 * Each block carries its size in a header of LEDGER_DB_HDR bytes, which
 * keeps the 16-byte alignment malloc gives. */
#define LEDGER_DB_HDR 16

static void *sq_malloc(int n)
{
	char *p = n >= 0 ? cs_malloc((size_t)n + LEDGER_DB_HDR) : NULL;
	if (!p)
		return NULL;
	memcpy(p, &n, sizeof n);
	return p + LEDGER_DB_HDR;
}

static void sq_free(void *p)
{
	if (p)
		cs_free((char *)p - LEDGER_DB_HDR);
}

static int sq_size(void *p)
{
	int n = 0;
	if (p)
		memcpy(&n, (char *)p - LEDGER_DB_HDR, sizeof n);
	return n;
}

static void *sq_realloc(void *p, int n)
{
	if (!p)
		return sq_malloc(n);
	char *q = n >= 0 ? cs_realloc((char *)p - LEDGER_DB_HDR, (size_t)n + LEDGER_DB_HDR) : NULL;
	if (!q)
		return NULL;
	memcpy(q, &n, sizeof n);
	return q + LEDGER_DB_HDR;
}

static int sq_roundup(int n)
{
	return (n + 7) & ~7;
}

static int sq_init(void *unused)
{
	(void)unused;
	return SQLITE_OK;
}

static void sq_shutdown(void *unused)
{
	(void)unused;
}

static void use_core_allocator(void)
{
	static bool done;
	static const sqlite3_mem_methods methods = {
		.xMalloc = sq_malloc, .xFree = sq_free, .xRealloc = sq_realloc, .xSize = sq_size,
		.xRoundup = sq_roundup, .xInit = sq_init, .xShutdown = sq_shutdown,
	};
	if (!done) {
		done = true;
		sqlite3_config(SQLITE_CONFIG_MALLOC, &methods);
	}
}

bool ledger_db_sniff(const char *head, size_t n)
{
	static const char magic[16] = "SQLite format 3";
	return n >= sizeof magic && memcmp(head, magic, sizeof magic) == 0;
}

static int db_fail(sqlite3 *db, struct cs_error *err, const char *what)
{
	int code = db ? sqlite3_errcode(db) : SQLITE_NOMEM; /* no handle: it could not be allocated */
	if (code == SQLITE_NOMEM)
		return cs_error_nomem(err);
	if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
		return cs_error_set(err, CS_EIO, "%s: the database stayed locked for more than %d ms (a writer holds it)",
				    what, LEDGER_DB_BUSY_MS);
	if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
		return cs_error_set(err, CS_EIO, "%s: not a readable SQLite database (corrupt or encrypted): %s", what,
				    db ? sqlite3_errmsg(db) : "");
	return cs_error_set(err, CS_EIO, "%s: %s", what, db ? sqlite3_errmsg(db) : "cannot open");
}

/* CS_ESTRUCT naming the first table or column the ledger needs and lacks. */
static int check_schema(sqlite3 *db, struct cs_error *err)
{
	for (size_t t = 0; t < 6; t++) {
		char sql[96];
		snprintf(sql, sizeof sql, "pragma table_info(\"%s\")", ledger_db_tables[t]);
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
			return db_fail(db, err, "reading the schema");
		bool found[5] = { false };
		size_t ncols = 0;
		int rc;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			const char *name = (const char *)sqlite3_column_text(st, 1);
			ncols++;
			for (size_t c = 0; name && needed_columns[t][c]; c++)
				if (strcmp(name, needed_columns[t][c]) == 0)
					found[c] = true;
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return db_fail(db, err, "reading the schema");
		if (ncols == 0)
			return cs_error_set(err, CS_ESTRUCT, "not an Agents Ledger: no table \"%s\" (a ledger has %s)",
					    ledger_db_tables[t],
					    "sessions, threads, turns, messages, tool_calls and compactions");
		for (size_t c = 0; needed_columns[t][c]; c++)
			if (!found[c])
				return cs_error_set(err, CS_ESTRUCT, "not an Agents Ledger: table \"%s\" has no column \"%s\"",
						    ledger_db_tables[t], needed_columns[t][c]);
	}
	return CS_OK;
}

static void put_json_string(struct strbuf *out, const unsigned char *s, size_t n)
{
	sb_putc(out, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];
		if (c == '"' || c == '\\') {
			sb_putc(out, '\\');
			sb_putc(out, (char)c);
		} else if (c < 0x20) {
			sb_printf(out, "\\u%04x", c);
		} else {
			sb_putc(out, (char)c);
		}
	}
	sb_putc(out, '"');
}

static void put_value(struct strbuf *out, sqlite3_stmt *st, int col)
{
	switch (sqlite3_column_type(st, col)) {
	case SQLITE_INTEGER:
		sb_printf(out, "%lld", (long long)sqlite3_column_int64(st, col));
		break;
	case SQLITE_FLOAT:
		sb_puts(out, (const char *)sqlite3_column_text(st, col));
		break;
	case SQLITE_TEXT:
		put_json_string(out, sqlite3_column_text(st, col), (size_t)sqlite3_column_bytes(st, col));
		break;
	case SQLITE_BLOB: {
		const unsigned char *b = sqlite3_column_blob(st, col);
		int n = sqlite3_column_bytes(st, col);
		sb_putc(out, '"');
		for (int i = 0; i < n; i++)
			sb_printf(out, "%02X", b[i]);
		sb_putc(out, '"');
		break;
	}
	default:
		sb_puts(out, "null");
	}
}

/* One table as `"name": [rows]`, a row a line; its row ids into map. */
static int export_table(sqlite3 *db, size_t t, struct strbuf *out, struct ledger_db_map *map, struct cs_error *err)
{
	char sql[96];
	sqlite3_stmt *st;
	/* The row id first (not written) where the table has one. */
	int first = 1;
	snprintf(sql, sizeof sql, "select rowid, * from \"%s\"", ledger_db_tables[t]);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		first = 0;
		snprintf(sql, sizeof sql, "select * from \"%s\"", ledger_db_tables[t]);
		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
			return db_fail(db, err, ledger_db_tables[t]);
	}
	int ncol = sqlite3_column_count(st);
	size_t cap = 0;
	sb_printf(out, "\"%s\": [", ledger_db_tables[t]);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (CS_GROW(map->rowids[t], cap, map->nrows[t] + 1) != 0) {
			sqlite3_finalize(st);
			return cs_error_nomem(err);
		}
		map->rowids[t][map->nrows[t]] = first ? (long long)sqlite3_column_int64(st, 0) : (long long)map->nrows[t] + 1;
		sb_puts(out, map->nrows[t]++ ? ",\n{" : "\n{");
		for (int c = first; c < ncol; c++) {
			if (c > first)
				sb_putc(out, ',');
			const char *name = sqlite3_column_name(st, c);
			put_json_string(out, (const unsigned char *)name, strlen(name));
			sb_putc(out, ':');
			put_value(out, st, c);
		}
		sb_putc(out, '}');
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(db, err, ledger_db_tables[t]);
	sb_puts(out, "]");
	return out->failed ? cs_error_nomem(err) : CS_OK;
}

/* The assembly file's bytes as the first member, on lines of their own. */
static int export_assembly(const char *path, struct strbuf *out, struct ledger_db_map *map, struct cs_error *err)
{
	char *data;
	size_t len;
	int rc = file_read(path, 0, &data, &len, NULL, err);
	if (rc != CS_OK)
		return rc;
	/* Checked on its own first, so its faults are told at its own lines. */
	struct json_doc d;
	rc = json_doc_parse(&d, data, len, err);
	if (rc == CS_OK && !cJSON_IsObject(d.root))
		rc = json_fail(&d, err, CS_ETYPE, JPATH_ROOT, NULL,
			       "expected the assembly block (an object: systemPrompt, event, budget, ...), got %s",
			       json_type_name(d.root));
	json_doc_free(&d);
	if (rc != CS_OK) {
		cs_free(data);
		cs_error_file(err, path);
		return rc;
	}
	sb_puts(out, "\"assembly\":\n");
	map->assembly_first_line = 2;
	long lines = 1;
	for (size_t i = 0; i < len; i++)
		lines += data[i] == '\n';
	map->assembly_last_line = 1 + lines;
	sb_append(out, data, len);
	sb_puts(out, "\n,");
	cs_free(data);
	return out->failed ? cs_error_nomem(err) : CS_OK;
}

static int export_all(sqlite3 *db, const char *assembly_path, struct strbuf *out, struct ledger_db_map *map,
		      struct cs_error *err)
{
	int rc = check_schema(db, err);
	if (rc)
		return rc;
	sb_putc(out, '{');
	if (assembly_path && (rc = export_assembly(assembly_path, out, map, err)) != CS_OK)
		return rc;
	for (size_t t = 0; t < 6; t++) {
		if (t)
			sb_puts(out, ",\n");
		if ((rc = export_table(db, t, out, map, err)) != CS_OK)
			return rc;
	}
	sb_puts(out, "}\n");
	return out->failed ? cs_error_nomem(err) : CS_OK;
}

int ledger_db_export(const char *db_path, const char *assembly_path, struct strbuf *out, struct ledger_db_map *map,
		     struct cs_error *err)
{
	memset(map, 0, sizeof *map);
	use_core_allocator();
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		rc = db_fail(db, err, "opening the database read-only");
		sqlite3_close(db);
		return rc;
	}
	sqlite3_busy_timeout(db, LEDGER_DB_BUSY_MS);
	/* One read transaction: the six tables as of one moment, even while
	 * the broker writes (WAL), and a shared lock held only for the read. */
	if (sqlite3_exec(db, "begin", NULL, NULL, NULL) != SQLITE_OK) {
		rc = db_fail(db, err, "starting a read");
	} else {
		rc = export_all(db, assembly_path, out, map, err);
		sqlite3_exec(db, "commit", NULL, NULL, NULL);
	}
	sqlite3_close(db);
	return rc;
}

/* "turns[3].ancestry" -> table 2, index 3, rest ".ancestry"; false when the
 * path does not start with a table's row. */
static bool split_path(const char *path, size_t *table, long *index, const char **rest)
{
	for (size_t t = 0; t < 6; t++) {
		size_t n = strlen(ledger_db_tables[t]);
		if (strncmp(path, ledger_db_tables[t], n) != 0 || path[n] != '[')
			continue;
		char *end;
		long i = strtol(path + n + 1, &end, 10);
		if (*end != ']' || i < 0)
			return false;
		*table = t;
		*index = i;
		*rest = end + 1;
		return true;
	}
	return false;
}

void ledger_db_locate(const struct ledger_db_map *map, const char *db_path, const char *assembly_path,
		      struct cs_error *err)
{
	if (!err || err->code == CS_OK || err->code == CS_ENOMEM)
		return;
	if (map->assembly_first_line && err->line >= map->assembly_first_line &&
	    err->line <= map->assembly_last_line) {
		cs_error_file(err, assembly_path);
		cs_error_pos(err, err->line - map->assembly_first_line + 1, err->column);
		return;
	}
	cs_error_file(err, db_path);
	size_t t;
	long i;
	const char *rest;
	if (split_path(err->path, &t, &i, &rest) && (size_t)i < map->nrows[t]) {
		char where[CS_ERROR_PATH_MAX];
		snprintf(where, sizeof where, "table %s, row %lld%s%s", ledger_db_tables[t], map->rowids[t][i],
			 *rest == '.' ? ", column " : "", *rest == '.' ? rest + 1 : rest);
		cs_error_path(err, where);
	}
	cs_error_pos(err, 0, 0);
}

void ledger_db_map_fini(struct ledger_db_map *map)
{
	for (size_t t = 0; t < 6; t++)
		cs_free(map->rowids[t]);
	memset(map, 0, sizeof *map);
}
