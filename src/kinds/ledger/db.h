/* db.h: the Agents Ledger read straight from the broker's SQLite file
 * (agents.db), read-only, as the JSON export the README's sqlite3 recipe
 * writes: the six tables, row by row, in the same order and with the same
 * values, so the ledger loader builds exactly the model an export gives.
 * The database is never written and never locked for longer than one short
 * read transaction (a WAL database is read while the broker writes). */
#ifndef CTXSCOPE_LEDGER_DB_H
#define CTXSCOPE_LEDGER_DB_H

#include "error.h"

#include <stdbool.h>
#include <stddef.h>

struct strbuf;

/* How long a read waits for a writer's lock before it gives up with an
 * error (a broker's write transaction is milliseconds; a database held
 * for longer is reported, never waited on forever). */
#define LEDGER_DB_BUSY_MS 2000

/* True when the first n bytes of a file are SQLite's header. */
bool ledger_db_sniff(const char *head, size_t n);

/* Where each part of the text ledger_db_export wrote came from, so that an
 * error the loader positions in that text can be told in the database's
 * terms (table, row id, column) or the assembly file's (line, column). */
struct ledger_db_map {
	long assembly_first_line; /* lines of the assembly file in the text; 0: none */
	long assembly_last_line;
	long long *rowids[6];     /* per table (ledger_db_tables order), the row ids; owned */
	size_t nrows[6];
};

/* The six tables, in the export's order. */
extern const char *const ledger_db_tables[6];

/* Reads the database at db_path (read-only) into out as the export's JSON
 * text; with assembly_path, that file's bytes become the `assembly` block.
 * Fills map (free with ledger_db_map_fini, also after an error). Errors:
 * CS_EIO (cannot open, corrupt, encrypted, locked past the timeout),
 * CS_ESTRUCT (a table or column the ledger needs is missing), CS_ENOMEM. */
int ledger_db_export(const char *db_path, const char *assembly_path, struct strbuf *out, struct ledger_db_map *map,
		     struct cs_error *err);

/* Turns an error the loader positioned in the exported text into one that
 * names the database's table, row id and column (or the assembly file's
 * line and column). */
void ledger_db_locate(const struct ledger_db_map *map, const char *db_path, const char *assembly_path,
		      struct cs_error *err);

void ledger_db_map_fini(struct ledger_db_map *map);

#endif
