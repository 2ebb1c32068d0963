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

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
	size_t handed;          /* rows of this scan handed over */
	long long budget_ns;    /* the time one query may spend inside SQLite */
	long long spent_ns;     /* the running query's so far */
	long long call_start;   /* when the running call into SQLite began; 0: none */
	unsigned long long bytes, max_bytes; /* values handed over, and their bound */
	char *copy_dir;         /* the private copy's folder, removed at close; owned; NULL: none */
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
	const char *msg = db ? sqlite3_errmsg(db) : "";
	if (strstr(msg, "functions prohibited") || strstr(msg, "unsafe use of") || strstr(msg, "runs no function"))
		return cs_error_set(err, CS_ESTRUCT,
				    "%s: the schema calls a function (%s); ctxscope runs none of a database file's own "
				    "code (a generated column or view?)",
				    what, msg);
	if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
		return cs_error_set(err, CS_EIO, "%s: not a readable SQLite database (corrupt or encrypted): %s", what,
				    db ? sqlite3_errmsg(db) : "");
	return cs_error_set(err, CS_EIO, "%s: %s", what, db ? sqlite3_errmsg(db) : "cannot open");
}

/* ---- every query bounded in time ------------------------------------------ */

static long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* SQLite calls it every few hundred steps of a query's program: past the
 * query's time, the query stops with SQLITE_INTERRUPT. Only the time inside
 * SQLite counts (not the loader's between two rows). */
static int past_deadline(void *arg)
{
	struct ledger_db *db = arg;
	return db->call_start && db->spent_ns + (now_ns() - db->call_start) > db->budget_ns;
}

/* A call into SQLite, timed against the query's budget (SQLITE_INTERRUPT past it). */
static int timed_step(struct ledger_db *db, sqlite3_stmt *st)
{
	db->call_start = now_ns();
	int rc = sqlite3_step(st);
	db->spent_ns += now_ns() - db->call_start;
	db->call_start = 0;
	/* The handler is called between steps of the program only: a row
	 * made of a few long steps is caught here. */
	return rc == SQLITE_ROW && db->spent_ns > db->budget_ns ? SQLITE_INTERRUPT : rc;
}

/* A statement prepared and timed from scratch (its own budget). */
static int timed_prepare(struct ledger_db *db, const char *sql, sqlite3_stmt **st)
{
	db->spent_ns = 0;
	db->call_start = now_ns();
	int rc = sqlite3_prepare_v2(db->sql, sql, -1, st, NULL);
	db->spent_ns += now_ns() - db->call_start;
	db->call_start = 0;
	return rc;
}

/* `name` as an SQL identifier in double quotes into buf: false when it does
 * not fit. */
static bool quote_ident(const char *name, char *buf, size_t n)
{
	size_t k = 0;
	if (n < 3)
		return false;
	buf[k++] = '"';
	for (const char *c = name; *c; c++) {
		if (k + (*c == '"' ? 2 : 1) + 2 > n)
			return false;
		if (*c == '"')
			buf[k++] = '"';
		buf[k++] = *c;
	}
	buf[k++] = '"';
	buf[k] = '\0';
	return true;
}

/* What a query that failed ran into, told for table t (row: the 1-based
 * row being read, 0: none; column NULL: not known). */
static int query_fail(struct ledger_db *db, int code, size_t t, size_t row, const char *column, struct cs_error *err)
{
	char where[160];
	int k = snprintf(where, sizeof where, "table %s", ledger_db_tables[t]);
	if (row && k > 0 && (size_t)k < sizeof where)
		k += snprintf(where + k, sizeof where - (size_t)k, ", row %zu (in the order read)", row);
	if (column && k > 0 && (size_t)k < sizeof where)
		snprintf(where + k, sizeof where - (size_t)k, ", column %s", column);
	if (code == SQLITE_INTERRUPT)
		return cs_error_set(err, CS_ELIMIT,
				    "%s: reading it took more than %lld ms inside SQLite, the most one query may take "
				    "for a database this size; stopped (a view, a generated column or a damaged file?)",
				    where, db->budget_ns / 1000000);
	if (code == SQLITE_TOOBIG)
		return cs_error_set(err, CS_ELIMIT, "%s: a value longer than %d MB, the most a ledger value may hold",
				    where, LEDGER_DB_MAX_VALUE >> 20);
	return db_fail(db->sql, err, where);
}

/* The column of table t that runs over the value length in the table's
 * row `row` (1-based, in scan order), each column read on its own; NULL when
 * none does alone. Each probe has the query's budget. */
static const char *column_too_big(struct ledger_db *db, sqlite3_stmt *scan, size_t t, size_t row)
{
	for (int c = db->first; c < sqlite3_column_count(scan); c++) {
		const char *name = sqlite3_column_name(scan, c);
		char ident[200], sql[320];
		if (!name || !quote_ident(name, ident, sizeof ident))
			continue;
		snprintf(sql, sizeof sql, "select %s from \"%s\" limit 1 offset %zu", ident, ledger_db_tables[t],
			 row ? row - 1 : 0);
		sqlite3_stmt *st;
		if (timed_prepare(db, sql, &st) != SQLITE_OK)
			continue;
		int rc = timed_step(db, st);
		sqlite3_finalize(st);
		if (rc == SQLITE_TOOBIG)
			return name;
	}
	return NULL;
}

/* The kind of schema object `name` is in the main database: "table",
 * "view", "virtual table", other ("index", "trigger") or NULL for none.
 * Names compare as SQLite compares them (ASCII case folded). */
static int object_kind(struct ledger_db *db, const char *name, const char **kind, struct cs_error *err)
{
	sqlite3_stmt *st;
	*kind = NULL;
	if (timed_prepare(db, "select type, sql from main.sqlite_master where name = ?1 collate nocase", &st) !=
	    SQLITE_OK)
		return db_fail(db->sql, err, "reading the schema");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	int rc;
	while ((rc = timed_step(db, st)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		const char *sql = (const char *)sqlite3_column_text(st, 1);
		if (!type)
			continue;
		if (!strcmp(type, "table"))
			*kind = sql && !sqlite3_strnicmp(sql, "create virtual", 14) ? "virtual table" : "table";
		else if (!strcmp(type, "view"))
			*kind = "view";
		else if (!*kind)
			*kind = "other";
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? CS_OK : db_fail(db->sql, err, "reading the schema");
}

/* CS_ESTRUCT naming the first table or column the ledger needs and lacks,
 * or a table that is not one: only real tables of stored values are read
 * (a view, a virtual table or a virtual generated column runs code of the
 * file's own when read, which can run for ever or build gigabytes, and
 * SQLite checks a query's time only where its program jumps: one row's
 * straight run of operators is never stopped). */
static int check_schema(struct ledger_db *db, struct cs_error *err)
{
	for (size_t t = 0; t < 6; t++) {
		const char *kind;
		int rc = object_kind(db, ledger_db_tables[t], &kind, err);
		if (rc != CS_OK)
			return rc;
		if (kind && strcmp(kind, "table"))
			return cs_error_set(err, CS_ESTRUCT,
					    "\"%s\" is a %s, not a table: ctxscope reads only real tables (a %s "
					    "runs the file's own query when read, which could run for ever)",
					    ledger_db_tables[t], kind, kind);
		char sql[96];
		snprintf(sql, sizeof sql, "pragma table_xinfo(\"%s\")", ledger_db_tables[t]);
		sqlite3_stmt *st;
		if (timed_prepare(db, sql, &st) != SQLITE_OK)
			return db_fail(db->sql, err, "reading the schema");
		bool found[5] = { false };
		size_t ncols = 0;
		char computed[128] = "";
		while ((rc = timed_step(db, st)) == SQLITE_ROW) {
			const char *name = (const char *)sqlite3_column_text(st, 1);
			if (sqlite3_column_int(st, 6) == 2 && !computed[0]) /* hidden 2: generated when read */
				snprintf(computed, sizeof computed, "%s", name ? name : "?");
			ncols++;
			for (size_t c = 0; name && needed_columns[t][c]; c++)
				if (strcmp(name, needed_columns[t][c]) == 0)
					found[c] = true;
		}
		sqlite3_finalize(st);
		if (rc == SQLITE_DONE && computed[0])
			rc = cs_error_set(err, CS_ESTRUCT,
					  "table \"%s\", column \"%s\": a virtual generated column, computed when "
					  "read; ctxscope reads only stored values (a computed one runs the file's own code)",
					  ledger_db_tables[t], computed);
		else if (rc != SQLITE_DONE)
			rc = db_fail(db->sql, err, "reading the schema");
		else
			rc = CS_OK;
		if (rc != CS_OK)
			return rc;
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
	if (rc == CS_OK && !json_is_object(d.root))
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

/* ---- opening without writing beside the file ------------------------------ */

/* "file:" and path as a URI (every byte but the plain ones %-escaped; an
 * absolute path behind an empty authority) with ?query, or NULL (memory). */
static char *file_uri(const char *path, const char *query)
{
	size_t n = strlen(path);
	char *u = cs_malloc(3 * n + strlen(query) + 16);
	if (!u)
		return NULL;
	size_t k = (size_t)sprintf(u, "file:%s", path[0] == '/' ? "//" : "");
	for (const char *c = path; *c; c++) {
		unsigned char b = (unsigned char)*c;
		if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || strchr("/-._~", b))
			u[k++] = (char)b;
		else
			k += (size_t)sprintf(u + k, "%%%02X", b);
	}
	strcpy(u + k, query);
	return u;
}

static bool exists(const char *path, const char *suffix)
{
	char buf[4096];
	struct stat st;
	return snprintf(buf, sizeof buf, "%s%s", path, suffix) < (int)sizeof buf && lstat(buf, &st) == 0;
}

/* Whether the file's header says WAL (bytes 18 and 19 are 2). */
static bool wal_mode(const char *path)
{
	unsigned char h[20];
	FILE *f = fopen(path, "rb");
	bool wal = f && fread(h, 1, sizeof h, f) == sizeof h && h[18] == 2 && h[19] == 2;
	if (f)
		fclose(f);
	return wal;
}

/* from into to, byte for byte. */
static int copy_file(const char *from, const char *to, struct cs_error *err)
{
	char *data;
	size_t len;
	int rc = file_read(from, 0, &data, &len, NULL, err);
	if (rc != CS_OK)
		return rc;
	FILE *f = fopen(to, "wbx");
	bool ok = f && fwrite(data, 1, len, f) == len;
	ok = f && fclose(f) == 0 && ok;
	cs_free(data);
	return ok ? CS_OK : cs_error_set(err, CS_EIO, "copying %s to %s: %s", from, to, strerror(errno));
}

static void remove_copy(struct ledger_db *db)
{
	if (!db->copy_dir)
		return;
	static const char *const names[] = { "/agents.db", "/agents.db-wal", "/agents.db-shm", "/agents.db-journal" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		char buf[4096];
		if (snprintf(buf, sizeof buf, "%s%s", db->copy_dir, names[i]) < (int)sizeof buf)
			unlink(buf);
	}
	rmdir(db->copy_dir);
	cs_free(db->copy_dir);
	db->copy_dir = NULL;
}

/* A WAL database with its -wal file but no -shm: SQLite would make the -shm
 * beside it, so the file and its -wal are copied to a private folder and
 * the copy is read. *uri: the copy's. */
static int private_copy(struct ledger_db *db, const char *path, char **uri, struct cs_error *err)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], to[4200], from[4200];
	snprintf(dir, sizeof dir, "%s/ctxscope-db-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return cs_error_set(err, CS_EIO, "making a folder for a copy of the database: %s", strerror(errno));
	if (!(db->copy_dir = cs_strdup(dir))) {
		rmdir(dir);
		return cs_error_nomem(err);
	}
	snprintf(to, sizeof to, "%s/agents.db", dir);
	int rc = copy_file(path, to, err);
	snprintf(from, sizeof from, "%s-wal", path);
	snprintf(to, sizeof to, "%s/agents.db-wal", dir);
	if (rc == CS_OK)
		rc = copy_file(from, to, err);
	snprintf(to, sizeof to, "%s/agents.db", dir);
	if (rc == CS_OK && !(*uri = file_uri(to, "?mode=ro")))
		rc = cs_error_nomem(err);
	return rc;
}

/* How the file is opened so that nothing is made beside it: a WAL database
 * with no -wal file is all in its main file and read immutable (no lock, no
 * -shm); one with both files (a broker running) is read through them, which
 * makes nothing new; one with a -wal and no -shm is read from a private
 * copy; any other is opened read-only (a rollback journal makes nothing on
 * a read). */
static int open_uri(struct ledger_db *db, const char *path, char **uri, struct cs_error *err)
{
	*uri = NULL;
	if (wal_mode(path) && exists(path, "-wal") && !exists(path, "-shm"))
		return private_copy(db, path, uri, err);
	bool immutable = wal_mode(path) && !exists(path, "-wal");
	if (!(*uri = file_uri(path, immutable ? "?mode=ro&immutable=1" : "?mode=ro")))
		return cs_error_nomem(err);
	return CS_OK;
}

/* What a function of the file's schema does when called. */
static void refused_function(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	(void)argv;
	sqlite3_result_error(ctx, "ctxscope runs no function a database file calls", -1);
}

/* Every scalar function SQLite has, made one the schema may not call (an
 * application's function, not marked innocuous, with the schema
 * untrusted): a generated column or an index of the file's own then runs
 * no code but operators, each of them bounded by the length limit (SQLite
 * checks the time between the steps of a query, and one call such as
 * instr() or replace() on long texts runs for hours). The ledger's own
 * queries call none. SQLITE_OK, or why not. */
static int refuse_schema_functions(sqlite3 *q)
{
	/* Listed first: no function can be made while a statement runs. */
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(q, "pragma function_list", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	struct strbuf names;
	sb_init(&names);
	int n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *type = (const char *)sqlite3_column_text(st, 2);
		if (name && type && !strcmp(type, "s")) {
			sb_printf(&names, "%d %s", sqlite3_column_int(st, 4), name);
			sb_append(&names, "", 1);
			n++;
		}
	}
	sqlite3_finalize(st);
	rc = names.failed ? SQLITE_NOMEM : rc == SQLITE_DONE ? SQLITE_OK : rc;
	const char *p = names.data;
	for (int i = 0; rc == SQLITE_OK && i < n; i++, p += strlen(p) + 1) {
		char *name;
		int narg = (int)strtol(p, &name, 10);
		rc = sqlite3_create_function_v2(q, name + 1, narg, SQLITE_UTF8, NULL, refused_function, NULL, NULL, NULL);
	}
	sb_fini(&names);
	return rc;
}

/* The bounds every query of a database from anywhere runs under. */
static void bound_queries(struct ledger_db *db, const char *path)
{
	sqlite3 *q = db->sql;
	struct stat st;
	unsigned long long size = stat(path, &st) == 0 ? (unsigned long long)st.st_size : 0;
	char wal[4096];
	if (snprintf(wal, sizeof wal, "%s-wal", path) < (int)sizeof wal && stat(wal, &st) == 0)
		size += (unsigned long long)st.st_size;
	/* A table's values are the file's bytes (a BLOB's hex twice them):
	 * more than that comes from generated columns, not from data. */
	db->max_bytes = 2 * size + LEDGER_DB_MAX_VALUE;
	db->budget_ns = ((long long)LEDGER_DB_QUERY_MS + (long long)(size / (20u << 20)) * 1000) * 1000000LL;
	sqlite3_progress_handler(q, 64, past_deadline, db);
	sqlite3_limit(q, SQLITE_LIMIT_LENGTH, LEDGER_DB_MAX_VALUE);
	sqlite3_limit(q, SQLITE_LIMIT_SQL_LENGTH, 1 << 20);
	sqlite3_limit(q, SQLITE_LIMIT_EXPR_DEPTH, 100);
	sqlite3_limit(q, SQLITE_LIMIT_COLUMN, 500);
	sqlite3_limit(q, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 100);
	sqlite3_limit(q, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_limit(q, SQLITE_LIMIT_TRIGGER_DEPTH, 1);
	sqlite3_limit(q, SQLITE_LIMIT_WORKER_THREADS, 0);
	sqlite3_db_config(q, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
	sqlite3_db_config(q, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
	sqlite3_db_config(q, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)NULL);
	sqlite3_db_config(q, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)NULL);
	sqlite3_db_config(q, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)NULL);
}

int ledger_db_open(const char *db_path, const char *assembly_path, struct ledger_db **out, struct strbuf *root,
		   struct cs_error *err)
{
	*out = NULL;
	use_core_allocator();
	struct ledger_db *db = cs_calloc(1, sizeof *db);
	if (!db)
		return cs_error_nomem(err);
	char *uri;
	int rc = open_uri(db, db_path, &uri, err);
	if (rc == CS_OK &&
	    sqlite3_open_v2(uri, &db->sql, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, NULL) !=
		    SQLITE_OK) {
		rc = db_fail(db->sql, err, "opening the database read-only");
	} else if (rc == CS_OK) {
		sqlite3_busy_timeout(db->sql, LEDGER_DB_BUSY_MS);
		bound_queries(db, db_path);
		int q = refuse_schema_functions(db->sql);
		if (q == SQLITE_NOMEM)
			rc = cs_error_nomem(err);
		else if (q != SQLITE_OK)
			rc = db_fail(db->sql, err, "opening the database read-only");
	}
	if (rc == CS_OK) {
		/* One read transaction: the six tables as of one moment, even
		 * while the broker writes (WAL); its shared lock ends at close. */
		if (sqlite3_exec(db->sql, "begin", NULL, NULL, NULL) != SQLITE_OK)
			rc = db_fail(db->sql, err, "starting a read");
		else
			rc = check_schema(db, err);
	}
	cs_free(uri);
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
	json_tree_free(db->row);
	db->row = NULL;
	sqlite3_finalize(db->scan);
	db->scan = NULL;
}

static int count_rows(struct ledger_db *db, size_t t, size_t *nrows, struct cs_error *err)
{
	char sql[96];
	sqlite3_stmt *st;
	snprintf(sql, sizeof sql, "select count(*) from \"%s\"", ledger_db_tables[t]);
	if (timed_prepare(db, sql, &st) != SQLITE_OK)
		return db_fail(db->sql, err, ledger_db_tables[t]);
	int rc = timed_step(db, st);
	long long n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return query_fail(db, rc, t, 0, NULL, err);
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
	int rc = count_rows(db, t, nrows, err);
	if (rc != CS_OK)
		return rc;
	/* The row id first (not handed over) where the table has one. */
	char sql[96];
	db->first = 1;
	snprintf(sql, sizeof sql, "select rowid, * from \"%s\"", table);
	if (timed_prepare(db, sql, &db->scan) != SQLITE_OK) {
		db->first = 0;
		snprintf(sql, sizeof sql, "select * from \"%s\"", table);
		if (timed_prepare(db, sql, &db->scan) != SQLITE_OK)
			return query_fail(db, sqlite3_errcode(db->sql), t, 0, NULL, err);
	}
	db->spent_ns = 0; /* the count and the scan: one query's budget each */
	db->handed = 0;
	db->table = t;
	db->recording = db->nrows[t] == 0; /* a second scan reads the same rows */
	return CS_OK;
}

static cJSON *column_value(sqlite3_stmt *st, int col)
{
	switch (sqlite3_column_type(st, col)) {
	case SQLITE_INTEGER:
		return json_new_number((double)sqlite3_column_int64(st, col));
	case SQLITE_FLOAT: /* as the export writes it: SQLite's rendering, read back */
		return json_new_number(strtod((const char *)sqlite3_column_text(st, col), NULL));
	case SQLITE_TEXT:
		return json_new_string((const char *)sqlite3_column_text(st, col));
	case SQLITE_BLOB: {
		const unsigned char *b = sqlite3_column_blob(st, col);
		size_t n = (size_t)sqlite3_column_bytes(st, col);
		char *hex = cs_malloc(2 * n + 1);
		if (!hex)
			return NULL;
		for (size_t i = 0; i < n; i++)
			snprintf(hex + 2 * i, 3, "%02X", b[i]);
		hex[2 * n] = '\0';
		cJSON *v = json_new_string(hex);
		cs_free(hex);
		return v;
	}
	default:
		return json_new_null();
	}
}

/* The current row as an object into *out; its keys are the statement's
 * column names (valid while the statement lives, which outlives the row).
 * CS_ELIMIT naming the column where the values handed over pass the
 * database's bound. */
static int row_object(struct ledger_db *db, cJSON **out, struct cs_error *err)
{
	cJSON *o = json_new_object();
	int ncol = sqlite3_column_count(db->scan);
	for (int c = db->first; o && c < ncol; c++) {
		int type = sqlite3_column_type(db->scan, c);
		unsigned long long n = (unsigned long long)sqlite3_column_bytes(db->scan, c);
		db->bytes += type == SQLITE_BLOB ? 2 * n : n;
		if (db->bytes > db->max_bytes) {
			json_tree_free(o);
			return cs_error_set(err, CS_ELIMIT,
					    "table %s, row %zu (in the order read), column %s: the values read pass "
					    "%llu MB, twice the database's own size and more; not read further",
					    ledger_db_tables[db->table], db->handed + 1, sqlite3_column_name(db->scan, c),
					    db->max_bytes >> 20);
		}
		cJSON *v = column_value(db->scan, c);
		if (!v || !json_add_member(o, sqlite3_column_name(db->scan, c), v)) {
			json_tree_free(v);
			json_tree_free(o);
			o = NULL;
		}
	}
	*out = o;
	return o ? CS_OK : cs_error_nomem(err);
}

int ledger_db_next(struct ledger_db *db, const cJSON **row, struct cs_error *err)
{
	*row = NULL;
	json_tree_free(db->row);
	db->row = NULL;
	if (!db->scan)
		return CS_OK;
	size_t t = db->table;
	int rc = timed_step(db, db->scan);
	if (rc == SQLITE_DONE) {
		end_scan(db);
		return CS_OK;
	}
	if (rc == SQLITE_TOOBIG)
		return query_fail(db, rc, t, db->handed + 1, column_too_big(db, db->scan, t, db->handed + 1), err);
	if (rc != SQLITE_ROW)
		return query_fail(db, rc, t, db->handed + 1, NULL, err);
	if (db->recording) {
		if (CS_GROW(db->rowids[t], db->cap[t], db->nrows[t] + 1) != 0)
			return cs_error_nomem(err);
		db->rowids[t][db->nrows[t]] =
			db->first ? (long long)sqlite3_column_int64(db->scan, 0) : (long long)db->nrows[t] + 1;
		db->nrows[t]++;
	}
	if ((rc = row_object(db, &db->row, err)) != CS_OK)
		return rc;
	db->handed++;
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
	remove_copy(db);
	for (size_t t = 0; t < 6; t++)
		cs_free(db->rowids[t]);
	cs_free(db);
}
