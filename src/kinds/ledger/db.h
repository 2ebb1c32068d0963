/* db.h: the Agents Ledger read straight from the broker's SQLite file
 * (agents.db), read-only, as the JSON export the README's sqlite3 recipe
 * writes: the six tables, row by row, in the same order and with the same
 * values, so the ledger loader builds exactly the model an export gives. Rows
 * are handed over one at a time, never the whole export at once, so a large
 * database costs little more memory than the model built from it.
 * The database is never written and never locked for longer than one short
 * read transaction (a WAL database is read while the broker writes), and
 * nothing is made beside it: a WAL database with no -wal file is read
 * immutable, one with a -wal but no -shm from a private copy of the two. */
#ifndef CTXSCOPE_LEDGER_DB_H
#define CTXSCOPE_LEDGER_DB_H

#include "base/error.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

struct strbuf;

/* How long a read waits for a writer's lock before it gives up with an
 * error (a broker's write transaction is milliseconds; a database held
 * for longer is reported, never waited on forever). */
#define LEDGER_DB_BUSY_MS 2000

/* Every query of a database is bounded, as a file from anywhere may hold
 * views, generated columns or damage that run for ever or build gigabytes:
 * the time one query may spend inside SQLite (this, plus a second per 20 MB
 * of the file), the longest value (SQLite's length limit), and the values
 * handed over in all (twice the file's bytes plus the longest value). Views
 * and virtual tables are refused, the schema is not trusted (no function of
 * side effects from it), triggers and extensions are off. */
#define LEDGER_DB_QUERY_MS 5000
#define LEDGER_DB_MAX_VALUE (64 << 20)

/* True when the first n bytes of a file are SQLite's header. */
bool ledger_db_sniff(const char *head, size_t n);

/* An open database: one read transaction, so every table is read as of
 * one moment, even while the broker writes (WAL). */
struct ledger_db;

/* The six tables, in the export's order. */
extern const char *const ledger_db_tables[6];

/* Opens db_path read-only, starts the read and checks the schema. The
 * document the loader reads besides the tables goes into root_text: `{}`,
 * or with assembly_path, `{"assembly": <that file's bytes>}` (the file is
 * checked on its own first, so its faults are told at its own lines).
 * Errors: CS_EIO (cannot open, corrupt, encrypted, locked past the
 * timeout), CS_ESTRUCT (a table or column the ledger needs is missing),
 * CS_ENOMEM. *out is NULL after an error. */
int ledger_db_open(const char *db_path, const char *assembly_path, struct ledger_db **out, struct strbuf *root_text,
		   struct cs_error *err);

/* Starts reading the table named `table` (one of ledger_db_tables) from its
 * first row; *nrows is how many it has. */
int ledger_db_scan(struct ledger_db *db, const char *table, size_t *nrows, struct cs_error *err);

/* The scan's next row as an object of its columns, as `sqlite3 -json`
 * would write it (integers and reals as numbers, text as strings, NULL as
 * null, a BLOB as a string of hex digits); NULL after the last row. The row
 * is the database's: valid until the next call, the next scan or close. */
int ledger_db_next(struct ledger_db *db, const cJSON **row, struct cs_error *err);

/* Turns an error the loader positioned in a table's rows ("turns[3].id")
 * into one that names the database's table, row id and column, or in the
 * root text's assembly block into one at the assembly file's line. */
void ledger_db_locate(const struct ledger_db *db, const char *db_path, const char *assembly_path,
		      struct cs_error *err);

void ledger_db_close(struct ledger_db *db);

#endif
