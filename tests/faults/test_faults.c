/* test_faults.c: memory faults. For every input under samples/ and
 * tests/hostile/ (whatever kinds exist: load detects them), load, assemble,
 * report in three formats and dump with the Nth allocation failing, for
 * N = 1, 2, 3, ... until a run makes fewer than N allocations. Every run
 * must end either in CS_ENOMEM with a message, or exactly as the run
 * without faults did (same status, same message, same output: a failure
 * that was absorbed must change nothing). No crash; LeakSanitizer checks
 * that nothing leaks on any of these paths. libyaml's allocations count too
 * (the Makefile links it with malloc renamed to cs_malloc), and SQLite's
 * (the ledger database reader hands it the core's allocator): a small
 * agents.db is built with the sqlite3 shell for the sweep. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "assembly.h"
#include "dump.h"
#include "base/error.h"
#include "json/doc.h"
#include "load.h"
#include "report.h"
#include "source.h"
#include "base/strbuf.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAULTS_MAX_INPUTS 512      /* inputs swept; more is a sign the walk went wrong */
#define FAULTS_MAX_N 200000        /* allocations in one run; more is a runaway */

struct run_result {
	int rc;
	char message[CS_ERROR_MSG_MAX];
	struct strbuf out; /* reports and dump, one after another */
};

static void outcome_fini(struct run_result *o)
{
	sb_fini(&o->out);
}

/* One full pass over path: load, assemble, report x3, dump. */
static void run_once(const char *path, struct run_result *o)
{
	struct cs_error err;
	cs_error_clear(&err);
	memset(o, 0, sizeof *o);
	sb_init(&o->out);
	struct source *src = NULL;
	int rc = source_load(path, NULL, &src, &err);
	struct assembly a;
	bool assembled = false;
	if (rc == CS_OK) {
		rc = assemble(src, &a, &err);
		assembled = rc == CS_OK;
	}
	static const enum report_format formats[] = { REPORT_TEXT, REPORT_YAML, REPORT_JSON };
	for (size_t f = 0; rc == CS_OK && f < sizeof formats / sizeof formats[0]; f++) {
		struct report_options opt = { .format = formats[f] };
		rc = report_write(&a, &opt, &o->out);
	}
	if (rc == CS_OK)
		rc = dump_write(&a, false, false, &o->out);
	if (rc == CS_OK && o->out.failed)
		rc = CS_ENOMEM;
	if (rc != CS_OK && !err.message[0] && rc == CS_ENOMEM)
		snprintf(err.message, sizeof err.message, "out of memory");
	o->rc = rc;
	memcpy(o->message, err.message, sizeof o->message);
	if (assembled)
		asm_fini(&a);
	source_free(src);
}

static void sweep(void **state)
{
	const char *path = *state;
	struct run_result base;
	cs_alloc_fail_from(0);
	run_once(path, &base);
	long runs = 0;
	for (long n = 1; n <= FAULTS_MAX_N; n++) {
		struct run_result o;
		cs_alloc_fail_from(n);
		run_once(path, &o);
		long made = cs_alloc_count();
		cs_alloc_fail_from(0);
		bool same = o.rc == base.rc && !strcmp(o.message, base.message) && o.out.len == base.out.len &&
			    (o.out.len == 0 || !memcmp(o.out.data, base.out.data, o.out.len));
		bool clean_nomem = o.rc == CS_ENOMEM && o.message[0];
		if (!same && !clean_nomem) {
			char msg[CS_ERROR_MSG_MAX];
			memcpy(msg, o.message, sizeof msg);
			outcome_fini(&o);
			outcome_fini(&base);
			fail_msg("%s: failing allocation %ld gave status %d \"%s\", not out of memory nor the "
				 "fault-free result", path, n, o.rc, msg);
		}
		outcome_fini(&o);
		runs++;
		if (made < n) {
			assert_true(same); /* nothing was injected: must be the fault-free result */
			break;
		}
	}
	print_message("  %s: %ld runs, every one clean (fault-free: %s)\n", path, runs,
		      base.rc == CS_OK ? "loads" : base.message);
	outcome_fini(&base);
	assert_true(runs < FAULTS_MAX_N);
}

/* The JSON layer on its own, until a JSON kind lands: parse with cJSON's
 * allocations failing one by one. */
static void json_layer(void **state)
{
	(void)state;
	const char *text = "{\"turns\": [{\"role\": \"user\", \"content\": \"why does the parser crash?\"},"
			   " {\"role\": \"assistant\", \"content\": \"a NULL deref in next_token\", \"n\": [1, 2.5, -3e2]}],"
			   " \"meta\": {\"a\": null, \"b\": true}}";
	size_t len = strlen(text);
	for (long n = 1;; n++) {
		struct json_doc d;
		struct cs_error err;
		cs_error_clear(&err);
		cs_alloc_fail_from(n);
		int rc = json_doc_parse(&d, text, len, &err);
		long made = cs_alloc_count();
		cs_alloc_fail_from(0);
		json_doc_free(&d);
		if (made < n) {
			assert_int_equal(rc, CS_OK);
			break;
		}
		if (rc != CS_ENOMEM)
			fail_msg("failing allocation %ld: status %d (%s), expected out of memory", n, rc, err.message);
		assert_true(err.message[0] != '\0');
	}
}

static char *inputs[FAULTS_MAX_INPUTS];
static size_t ninputs;

static int collect(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	size_t n = strlen(path);
	bool wanted = (n > 4 && !strcmp(path + n - 4, ".yml")) || (n > 5 && !strcmp(path + n - 5, ".yaml")) ||
		      (n > 5 && !strcmp(path + n - 5, ".json"));
	if (flag == FTW_F && wanted && ninputs < FAULTS_MAX_INPUTS)
		inputs[ninputs++] = strdup(path);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A small Agents Ledger database, written by the sqlite3 shell (so this
 * process's SQLite is first used by the loader, with the core's allocator).
 * Returns its path (static), or NULL when the shell is missing. */
static const char *make_ledger_db(char *dir)
{
	static char path[256];
	if (!mkdtemp(dir))
		return NULL;
	snprintf(path, sizeof path, "%s/agents.db", dir);
	char cmd[320];
	snprintf(cmd, sizeof cmd, "sqlite3 '%s'", path);
	FILE *sh = popen(cmd, "w");
	if (!sh)
		return NULL;
	fputs("create table sessions (label text primary key, thread_id text, persona_id text, is_subagent integer,"
	      " task_description text, status text);\n"
	      "create table threads (turn_id text primary key, ancestry text, total_tokens integer);\n"
	      "create table turns (id text primary key, parent_turn_id text, turn_type text, status text, model text,"
	      " role text, input_tokens integer, output_tokens integer, cached_input_tokens integer,"
	      " cache_write_tokens integer, query_message_ids text, response_message_id text);\n"
	      "create table messages (id text primary key, turn_id text, role text, content text, source text,"
	      " sequence integer);\n"
	      "create table tool_calls (id text primary key, turn_id text, message_id text, tool_name text);\n"
	      "create table compactions (turn_id text primary key, summary text, summarized_through_turn_id text,"
	      " first_kept_turn_id text);\n"
	      "insert into turns values ('T1', null, 'normal', 'completed', 'claude-sonnet-4-20250514', 'manager',"
	      " 900, 40, 0, 900, '[\"M1\"]', 'M2'), ('T2', 'T1', 'normal', 'completed', 'claude-sonnet-4-20250514',"
	      " 'manager', 960, 30, 900, 60, '[\"M3\"]', 'M4');\n"
	      "insert into messages values ('M0', 'T1', 'system', 'You are Atlas.', 'broker', 0),"
	      " ('M1', 'T1', 'user', 'Is the deploy healthy?', 'slack', 1),"
	      " ('M2', 'T1', 'assistant', 'Yes: 6 of 6 pods ready.', 'broker', 2),"
	      " ('M3', 'T2', 'user', 'And the error rate?', 'slack', 1),"
	      " ('M4', 'T2', 'assistant', '0.02%, as yesterday.', 'broker', 2);\n"
	      "insert into tool_calls values ('C1', 'T1', 'M2', 'shell');\n"
	      "insert into threads values ('T2', '[\"T1\",\"T2\"]', 1990);\n"
	      "insert into sessions values ('main', 'T2', 'atlas', 0, null, 'active');\n",
	      sh);
	return pclose(sh) == 0 ? path : NULL;
}

int main(void)
{
	char db_dir[] = "/tmp/ctxscope-faults-XXXXXX";
	const char *db = make_ledger_db(db_dir);
	if (!db)
		fprintf(stderr, "faults: could not build a ledger database (sqlite3 missing?); make deps installs it\n");
	nftw("samples", collect, 16, FTW_PHYS);
	nftw("tests/hostile", collect, 16, FTW_PHYS);
	qsort(inputs, ninputs, sizeof inputs[0], by_name);
	if (db && ninputs < FAULTS_MAX_INPUTS)
		inputs[ninputs++] = strdup(db);
	struct CMUnitTest tests[FAULTS_MAX_INPUTS + 1];
	size_t ntests = 0;
	tests[ntests++] = (struct CMUnitTest){ .name = "json layer", .test_func = json_layer };
	for (size_t i = 0; i < ninputs; i++)
		tests[ntests++] = (struct CMUnitTest){ .name = inputs[i], .test_func = sweep, .initial_state = inputs[i] };
	int failed = _cmocka_run_group_tests("faults", tests, ntests, NULL, NULL);
	for (size_t i = 0; i < ninputs; i++)
		free(inputs[i]);
	if (db) {
		remove(db);
		remove(db_dir);
	}
	return failed || !db;
}
