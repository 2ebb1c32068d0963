/* ledger.h: the ledger-export kind (seeds 001 and 004, ctxscope-formats(5) section 2):
 * a Nexus Agents Ledger (agents.db) exported table by table as JSON, from
 * which the broker's context for one session is rebuilt: system prompt,
 * history from the session thread's ancestry with the latest compaction
 * applied, and the current event (a replayed turn's query, or the
 * hypothetical next turn). Pieces: every message of the export (id = its
 * message id), every compaction summary ("compaction:<turn>"), the
 * assembly.systemPrompt sections ("system:<name>"), nexusEnvironment,
 * memory entries ("memory[i]") and the next event ("event"). The model
 * below indexes them; all its strings and arrays live in the source's arena. */
#ifndef CTXSCOPE_LEDGER_H
#define CTXSCOPE_LEDGER_H

#include "kind.h"

#include <stdbool.h>
#include <stddef.h>

extern const struct kind_ops ledger_kind;

#define LEDGER_DEFAULT_RESERVE_RESPONSE 8000L /* ctxscope-formats(5) section 2 */
#define LEDGER_DEFAULT_RESERVE_TOOLS 16000L
#define LEDGER_COMPACT_TARGET 0.6            /* seed 001 ensureBudget: compact to 60% of available */
#define LEDGER_MIN_RECENT_TURNS 3            /* seed 001 open question 3: keep at least 3 turns */
#define LEDGER_MAX_ROWS 10000000L            /* rows per table; more is refused (ids are indexed in memory) */
#define LEDGER_SUMMARY_MARKER "[Previous conversation summary]\n" /* seed 001 buildCompactedHistory */

enum ledger_rule {
	LEDGER_RULE_FIRST_KEPT, /* ctxscope-formats(5) Decision: from first_kept_turn_id, then after the compaction */
	LEDGER_RULE_AFTER_ONLY, /* seed 001 only: the turns after the compaction turn */
};

struct ledger_message {
	const char *id;
	long turn;        /* index into turns */
	const char *role; /* user, assistant, system, tool */
	long sequence;    /* 0 when absent */
	long piece;
	bool system;      /* role is "system": asked of every message on the path at every assembly */
};

struct ledger_turn {
	const char *id;
	const char *parent_id; /* NULL for a root */
	long parent;           /* index into turns, -1 for a root */
	bool compaction;       /* turn_type = compaction */
	const char *status, *model, *provider, *role; /* NULL when absent */
	long input_tokens, output_tokens, cached_input_tokens, cache_write_tokens,
	     reasoning_tokens, total_tokens;           /* -1 when not recorded */
	long *query;          /* message indices of query_message_ids; NULL: none given */
	size_t nquery;
	bool has_query;       /* query_message_ids was given */
	long response;        /* message index of response_message_id, -1 none */
	long *messages;       /* its messages, in sequence order */
	size_t nmessages;
	long compaction_row;  /* index into compactions, -1 none */
	long *ancestry;       /* from threads (turn indices, root -> this); NULL: none given */
	size_t nancestry;
};

struct ledger_compaction {
	long turn;            /* the compaction turn */
	long through;         /* summarized_through_turn_id, -1 none */
	long first_kept;      /* first_kept_turn_id, -1 none */
	long tokens_before, tokens_after; /* -1 when absent */
	const char *trigger;  /* NULL when absent */
	long piece;           /* the summary's piece */
};

struct ledger_session {
	const char *label;
	long head;            /* thread_id's turn */
	const char *persona_id, *task_description, *status; /* NULL when absent */
	bool is_subagent;
};

struct ledger_section {
	int layer;            /* 0 workspace, 1 persona (conceptual layer index) */
	long piece;
};

/* What a lazy assembly (the inspector's) wrote into its results that the
 * next can keep (assemble.c): the runs of summarized messages of this view
 * of the thread. A re-assembly that takes those results over
 * (asm_init_reuse) and decides the same view leaves them as they are. The
 * model remembers the last few such assemblies (the inspector keeps two:
 * the current one and the baseline, built one after the other). */
struct ledger_runs {
	unsigned long serial; /* that assembly's; 0: none */
	long head, compaction;
	size_t cpos, kept_from, fk_at;
	int rule;
	double chars_per_token; /* its results' original_tokens are the pieces' at this divisor */
};

#define LEDGER_RUNS_KEPT 4

struct ledger_thread;
/* The model's cache: what the kind keeps between assemblies to spare work,
 * owned by the model (freed by ledger_free_model). It never changes what
 * the export means: the thread is kept for the head it was flattened for,
 * and a run is kept with the serial of the assembly that left it. A replay
 * (bare) writes nothing here. */
struct ledger_cache {
	struct ledger_thread *thread; /* the last head's thread flattened (thread.c); NULL until the
				       * first assembly */
	struct ledger_runs runs[LEDGER_RUNS_KEPT]; /* what the inspector's last assemblies left in their results */
	size_t runs_next;             /* where the next one goes (oldest first) */
};
/* The cache of src's model (a ledger): the one place where a source held
 * read-only (const) is written, and only its cache. */
struct ledger_cache *ledger_cache(const struct source *src);

struct ledger {
	struct ledger_turn *turns;
	size_t nturns;
	long *turn_order;     /* turn indices sorted by id, for lookups */
	struct ledger_message *messages;
	size_t nmessages;
	struct ledger_compaction *compactions;
	size_t ncompactions;
	struct ledger_session *sessions;
	size_t nsessions;
	struct ledger_section *sections; /* assembly.systemPrompt */
	size_t nsections;
	long nexus_env;       /* piece of assembly.nexusEnvironment, -1 none */
	const char *runtime_host, *runtime_os, *runtime_arch; /* NULL when absent */
	long *memory;         /* pieces of assembly.memory */
	size_t nmemory;
	long event;           /* piece of assembly.event.content, -1 none */
	const char *event_time, *event_timezone, *event_platform, *event_hook; /* NULL when absent */
	const char **event_actions;
	size_t nevent_actions;
	const char *model;    /* assembly.model, NULL none */
	const char *role;     /* assembly.role, NULL none */
	long model_limit, reserve_response, reserve_tools; /* -1: default */
	/* Settings (kind options), starting from the assembly block. */
	const char *session;  /* label, NULL: default */
	const char *turn;     /* replayed turn id, NULL: the head */
	bool next;
	bool bare;            /* a replay for the timeline, of which only the blocks and totals are read: what
			       * stays out is not recorded (results only for what goes in, not_whole empty) */
	enum ledger_rule rule;
	bool summary_system;  /* summary-role system (seed 004), else user (seed 001) */
	struct ledger_cache cache; /* kept between assemblies (ledger_cache) */
};

/* A head's thread flattened for the assembly (thread.c). */
struct ledger_thread;
/* The thread of head, kept in the model from one assembly to the next; a
 * bare replay (a copy of the model) gets one of its own in *temp, which it
 * frees (ledger_thread_free). NULL on out of memory. */
const struct ledger_thread *ledger_thread_of(const struct source *src, long head, struct ledger_thread **temp);
/* Its ancestry (turn indices, root -> head): n turns. */
size_t ledger_thread_ancestry(const struct ledger_thread *th, const long **anc);
/* The system messages in the thread's first `turns` turns: n of them, the
 * k-th being (*msgs)[(*at)[k]], in order. */
size_t ledger_thread_system(const struct ledger_thread *th, size_t turns, const long **msgs, const long **at);
/* The messages of the thread's turn at position pos (root 0) and their
 * pieces: n of them, in order. */
size_t ledger_thread_turn(const struct ledger_thread *th, size_t pos, const long **msgs, const long **pieces);
/* The pieces of the messages of the thread's turns at positions
 * [from, to) that are not system messages, in order: n of them. */
size_t ledger_thread_plain(const struct ledger_thread *th, size_t from, size_t to, const long **pieces);
/* The positions (root 0) of the thread's compaction turns, in order: n. */
size_t ledger_thread_compactions(const struct ledger_thread *th, const size_t **pos);
/* The messages whose piece the thread does not hold (nor a compaction of
 * it), in message order: n of them in *off. */
size_t ledger_thread_off(const struct ledger_thread *th, const long **off);
/* The compactions (rows) whose turn is not on the thread, in row order. */
size_t ledger_thread_compactions_off(const struct ledger_thread *th, const long **rows);
/* NULL-safe. */
void ledger_thread_free(struct ledger_thread *th);
/* The kind's free_model: the thread, then the loader's model (ledger_free). */
void ledger_free_model(void *model);

/* Turn index of id, or -1. O(log n). */
long ledger_turn_index(const struct ledger *l, const char *id);

/* The session the settings select (see ctxscope-formats(5): assembly.session, else the
 * only active one, else "main", else the only one), or -1 with a sentence in
 * err (CS_EUSAGE). */
long ledger_pick_session(const struct ledger *l, struct cs_error *err);

/* The ancestry of turn (root -> turn) as turn indices into *out (cs_malloc'd,
 * the caller frees), from the thread row when given, else by walking
 * parent_turn_id. CS_OK or CS_ENOMEM. */
int ledger_ancestry(const struct ledger *l, long turn, long **out, size_t *n);

/* One turn of the timeline (timeline.c): its prompt replayed and what the
 * cache should have done, beside what the provider recorded. */
struct ledger_turn_usage {
	long turn;               /* index into turns */
	const char *profile;     /* the cache profile of its provider (static) */
	long estimated;          /* the replayed prompt's tokens, estimated */
	long compared;           /* the turn (index) of the same model before it, read from; -1: the first */
	long predicted_read;     /* read from the cache after that turn (0: the first) */
	long predicted_written;  /* written to it */
	long recorded_input, recorded_read, recorded_written; /* usage columns; -1: not recorded */
};

#define LEDGER_TIMELINE_MAX 64 /* turns replayed for the timeline: the thread's last ones */

/* Every normal turn on the selected session's thread, root first (the last
 * LEDGER_TIMELINE_MAX of them), into
 * *out (cs_malloc'd; the caller frees) and *n. CS_OK, or the error of a
 * turn that does not replay, or CS_ENOMEM. */
int ledger_timeline(const struct source *src, struct ledger_turn_usage **out, size_t *n, struct cs_error *err);
/* The timeline as lines for the inspector's view (kind_ops.timeline; report.c). */
int ledger_timeline_text(const struct source *src, unsigned text_flags, struct strbuf *out, size_t *step_at,
			 struct cs_error *err);
/* The timeline as a report section ("timeline"; report.c). */
int ledger_timeline_emit(const struct source *src, struct emitter *em);

/* What the settings select: session, thread, replayed turn, compaction. */
struct ledger_view {
	long session;      /* -1: no sessions table, the last turn is the head */
	long head;
	long turn;         /* replayed turn, -1 with next */
	const long *anc;   /* ancestry of head: the thread's */
	size_t nanc;
	const struct ledger_thread *th; /* head's thread (ledger_thread_of) */
	struct ledger_thread *own; /* a bare replay's own thread, freed by ledger_view_fini */
	size_t hist_end;   /* history is anc[0 .. hist_end) */
	long compaction;   /* latest compaction turn in history, -1 none */
	size_t cpos;       /* its position in anc */
	size_t kept_from;  /* first history position kept after the summary */
	bool first_kept_used; /* kept_from came from first_kept_turn_id */
	size_t sys_upto;   /* the system messages of anc[0 .. sys_upto) are the system layer's */
	const char *role;  /* manager, worker, unified */
	size_t fk_at;      /* where the applied compaction's first_kept_turn_id sits (hist_end: not before it) */
	bool keep_runs;    /* the results taken over hold the summarized runs already (ledger_runs) */
};

/* The turns of the history in prompt order with their charged tokens. */
struct ledger_hist_turn {
	long turn;
	long tokens;
};

/* The assembler's view and budget helpers (assemble.c), shared with the
 * report (report.c): the view the settings select (CS_OK, else err; its
 * own thread freed by ledger_view_fini); the history turns a proactive
 * compaction from `used` tokens would summarize (*out cs_malloc'd); the
 * tokens charged to the event's memory injection. */
int ledger_view_resolve(const struct source *src, struct ledger_view *v, struct cs_error *err);
void ledger_view_fini(struct ledger_view *v);
int ledger_would_compact(const struct assembly *a, long used, struct ledger_hist_turn **out, size_t *nout,
			 long *target);
long ledger_memory_tokens(const struct assembly *a);

/* Assembler (assemble.c), through ledger_kind.assemble. */
struct asm_run;
int ledger_assemble(struct asm_run *run, struct assembly *out, struct cs_error *err);
int ledger_report_extra(const struct source *src, const struct assembly *a, struct emitter *em);
/* The kind's operations, for its table (kind.c); load.c. */
int ledger_load(struct source *src, const char *data, size_t len, struct cs_error *err);
int ledger_load_db(struct source *src, const char *path, const char *assembly, struct cs_error *err);
void ledger_free(void *model);
int ledger_report_piece(const struct source *src, const struct assembly *a, long piece, struct emitter *em);
/* The list's column (report.c). */
bool ledger_piece_column(const struct source *src, const struct assembly *a, long piece,
			 char cell[KIND_COLUMN_WIDTH + 1]);

#endif
