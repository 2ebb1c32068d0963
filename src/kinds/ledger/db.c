/* db.c: agents.db -> the ledger export's rows, one at a time (see db.h).
 * Values are what `sqlite3 -json` writes: integers as numbers, reals as
 * SQLite renders them, text as strings, NULL as null; rows in the order
 * `select * from TABLE` gives.
 * Unsupported: BLOB values (no ledger column holds one) become a string of
 * hex digits. */
#include "db.h"

#include "base/alloc.h"
#include "base/fileio.h"
#include "json/doc.h"
#include "base/strbuf.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ledger_db {
	sqlite3 *sql;
	sqlite3_stmt *scan;     /* the table being read; NULL: none */
	size_t table;           /* its index in ledger_db_tables */
	int first;              /* 1: column 0 of the scan is the row id */
	bool recording;         /* this scan records the table's row ids */
	cJSON *row;             /* the row last handed over; owned */
	long assembly_first_line; /* lines of the assembly file in the root text; 0: none */
	long assembly_last_line;
	long long *rowids[6];   /* per table, the row ids in scan order; owned */
	size_t nrows[6];
	size_t cap[6];
};

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

/* The root text: `{"assembly": FILE}` with the file's bytes on lines of
 * their own (their first line is the text's second), or `{}`. */
static int root_text(struct ledger_db *db, const char *path, struct strbuf *out, struct cs_error *err)
{
	if (!path) {
		sb_puts(out, "{}");
		return out->failed ? cs_error_nomem(err) : CS_OK;
	}
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
	sb_puts(out, "{\"assembly\":\n");
	db->assembly_first_line = 2;
	long lines = 1;
	for (size_t i = 0; i < len; i++)
		lines += data[i] == '\n';
	db->assembly_last_line = 1 + lines;
	sb_append(out, data, len);
	sb_puts(out, "\n}");
	cs_free(data);
	return out->failed ? cs_error_nomem(err) : CS_OK;
}

int ledger_db_open(const char *db_path, const char *assembly_path, struct ledger_db **out, struct strbuf *root,
		   struct cs_error *err)
{
	*out = NULL;
	use_core_allocator();
	struct ledger_db *db = cs_calloc(1, sizeof *db);
	if (!db)
		return cs_error_nomem(err);
	int rc = sqlite3_open_v2(db_path, &db->sql, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		rc = db_fail(db->sql, err, "opening the database read-only");
	} else {
		sqlite3_busy_timeout(db->sql, LEDGER_DB_BUSY_MS);
		/* One read transaction: the six tables as of one moment, even
		 * while the broker writes (WAL); its shared lock ends at close. */
		if (sqlite3_exec(db->sql, "begin", NULL, NULL, NULL) != SQLITE_OK)
			rc = db_fail(db->sql, err, "starting a read");
		else
			rc = check_schema(db->sql, err);
	}
	if (rc == CS_OK)
		rc = root_text(db, assembly_path, root, err);
	if (rc != CS_OK) {
		ledger_db_close(db);
		return rc;
	}
	*out = db;
	return CS_OK;
}

static void end_scan(struct ledger_db *db)
{
	cJSON_Delete(db->row);
	db->row = NULL;
	sqlite3_finalize(db->scan);
	db->scan = NULL;
}

static int count_rows(struct ledger_db *db, const char *table, size_t *nrows, struct cs_error *err)
{
	char sql[96];
	sqlite3_stmt *st;
	snprintf(sql, sizeof sql, "select count(*) from \"%s\"", table);
	if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(db->sql, err, table);
	int rc = sqlite3_step(st);
	long long n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return db_fail(db->sql, err, table);
	*nrows = n > 0 ? (size_t)n : 0;
	return CS_OK;
}

int ledger_db_scan(struct ledger_db *db, const char *table, size_t *nrows, struct cs_error *err)
{
	end_scan(db);
	size_t t = 0;
	while (t < 6 && strcmp(ledger_db_tables[t], table) != 0)
		t++;
	if (t == 6)
		return cs_error_set(err, CS_ESTRUCT, "no ledger table \"%s\"", table);
	int rc = count_rows(db, table, nrows, err);
	if (rc != CS_OK)
		return rc;
	/* The row id first (not handed over) where the table has one. */
	char sql[96];
	db->first = 1;
	snprintf(sql, sizeof sql, "select rowid, * from \"%s\"", table);
	if (sqlite3_prepare_v2(db->sql, sql, -1, &db->scan, NULL) != SQLITE_OK) {
		db->first = 0;
		snprintf(sql, sizeof sql, "select * from \"%s\"", table);
		if (sqlite3_prepare_v2(db->sql, sql, -1, &db->scan, NULL) != SQLITE_OK)
			return db_fail(db->sql, err, table);
	}
	db->table = t;
	db->recording = db->nrows[t] == 0; /* a second scan reads the same rows */
	return CS_OK;
}

static cJSON *column_value(sqlite3_stmt *st, int col)
{
	switch (sqlite3_column_type(st, col)) {
	case SQLITE_INTEGER:
		return cJSON_CreateNumber((double)sqlite3_column_int64(st, col));
	case SQLITE_FLOAT: /* as the export writes it: SQLite's rendering, read back */
		return cJSON_CreateNumber(strtod((const char *)sqlite3_column_text(st, col), NULL));
	case SQLITE_TEXT:
		return cJSON_CreateString((const char *)sqlite3_column_text(st, col));
	case SQLITE_BLOB: {
		const unsigned char *b = sqlite3_column_blob(st, col);
		size_t n = (size_t)sqlite3_column_bytes(st, col);
		char *hex = cs_malloc(2 * n + 1);
		if (!hex)
			return NULL;
		for (size_t i = 0; i < n; i++)
			snprintf(hex + 2 * i, 3, "%02X", b[i]);
		hex[2 * n] = '\0';
		cJSON *v = cJSON_CreateString(hex);
		cs_free(hex);
		return v;
	}
	default:
		return cJSON_CreateNull();
	}
}

/* The current row as an object; its keys are the statement's column names
 * (valid while the statement lives, which outlives the row). */
static cJSON *row_object(struct ledger_db *db)
{
	cJSON *o = cJSON_CreateObject();
	int ncol = sqlite3_column_count(db->scan);
	for (int c = db->first; o && c < ncol; c++) {
		cJSON *v = column_value(db->scan, c);
		if (!v || !cJSON_AddItemToObjectCS(o, sqlite3_column_name(db->scan, c), v)) {
			cJSON_Delete(v);
			cJSON_Delete(o);
			o = NULL;
		}
	}
	return o;
}

int ledger_db_next(struct ledger_db *db, const cJSON **row, struct cs_error *err)
{
	*row = NULL;
	cJSON_Delete(db->row);
	db->row = NULL;
	if (!db->scan)
		return CS_OK;
	size_t t = db->table;
	int rc = sqlite3_step(db->scan);
	if (rc == SQLITE_DONE) {
		end_scan(db);
		return CS_OK;
	}
	if (rc != SQLITE_ROW)
		return db_fail(db->sql, err, ledger_db_tables[t]);
	if (db->recording) {
		if (CS_GROW(db->rowids[t], db->cap[t], db->nrows[t] + 1) != 0)
			return cs_error_nomem(err);
		db->rowids[t][db->nrows[t]] =
			db->first ? (long long)sqlite3_column_int64(db->scan, 0) : (long long)db->nrows[t] + 1;
		db->nrows[t]++;
	}
	if (!(db->row = row_object(db)))
		return cs_error_nomem(err);
	*row = db->row;
	return CS_OK;
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

void ledger_db_locate(const struct ledger_db *db, const char *db_path, const char *assembly_path,
		      struct cs_error *err)
{
	if (!err || err->code == CS_OK || err->code == CS_ENOMEM)
		return;
	if (db && db->assembly_first_line && err->line >= db->assembly_first_line &&
	    err->line <= db->assembly_last_line) {
		cs_error_file(err, assembly_path);
		cs_error_pos(err, err->line - db->assembly_first_line + 1, err->column);
		return;
	}
	cs_error_file(err, db_path);
	size_t t;
	long i;
	const char *rest;
	if (db && split_path(err->path, &t, &i, &rest) && (size_t)i < db->nrows[t]) {
		char where[CS_ERROR_PATH_MAX];
		snprintf(where, sizeof where, "table %s, row %lld%s%s", ledger_db_tables[t], db->rowids[t][i],
			 *rest == '.' ? ", column " : "", *rest == '.' ? rest + 1 : rest);
		cs_error_path(err, where);
	}
	cs_error_pos(err, 0, 0);
}

void ledger_db_close(struct ledger_db *db)
{
	if (!db)
		return;
	end_scan(db);
	if (db->sql) {
		sqlite3_exec(db->sql, "commit", NULL, NULL, NULL);
		sqlite3_close(db->sql);
	}
	for (size_t t = 0; t < 6; t++)
		cs_free(db->rowids[t]);
	cs_free(db);
}
