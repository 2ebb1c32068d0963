/* cache/section.h: the `cache` section of `report`: from the command line
 * (--profile, --baseline, --baseline-edit, --breakpoint, --no-breakpoint)
 * and the user's cache file, builds the baseline assembly, analyses the
 * current one against it under the active profile and under every profile,
 * runs the lints, and writes it all through emit.h.
 *
 * Which baseline (the first assembly; the current one is compared with it):
 *   --baseline FILE          FILE, assembled with the --baseline-edit edits;
 *   --baseline-edit N=V      without --baseline: the same file with only these
 *                            edits (the command line's own edits are the change);
 *   neither, but edits       the same file without the command line's edits, so
 *   (--priority, --exclude)  `report ws.yml --priority x=0.95` prices that edit;
 *   neither, no edits        the prompt itself: a warm repeat (steady state). */
#ifndef CTXSCOPE_CACHE_REPORT_H
#define CTXSCOPE_CACHE_REPORT_H

#include "assembly.h"
#include "cache/cache.h"
#include "config.h"
#include "base/error.h"
#include "tokens/exact.h"
#include "report.h"

#include <stdbool.h>

struct cli;
struct tokenizer;

#define CACHE_REPORT_NOTE_MAX 640 /* a sentence about the baseline or the user file */

struct cache_report {
	struct cache_config cfg;
	const struct cache_profile *profile;   /* the active one: in cfg, or tuned */
	struct cache_profile tuned;            /* it with the figures of the prompt's model (kind_ops.cache_tune) */
	char tuned_for[64];                    /* that model; "" when the profile is cfg's as it is */
	const struct assembly *now;            /* borrowed */
	struct source *base_src;               /* owned when the baseline was loaded */
	struct assembly base;                  /* valid when base_src */
	const struct assembly *given_base;     /* the inspector's baseline, borrowed; NULL: the command line's */
	struct cache_overrides overrides;      /* --breakpoint / --no-breakpoint, on now */
	struct cache_analysis an;              /* under the active profile */
	struct cache_analysis *all;            /* one per profile in cfg, owned */
	size_t nall;
	struct cache_lints lints;
	char baseline[CACHE_REPORT_NOTE_MAX];  /* what the baseline is, in words */
	char config_note[CACHE_REPORT_NOTE_MAX]; /* the user file: read, absent, or why it was ignored */
	struct report_section sections[2];     /* {"cache", ...}, {NULL}: for report_options.extra */
	struct exact_live exact_base;          /* the baseline's exact counts (borrowing the caller's memo) */
	char encoding[64];                     /* theirs; "" when none */
};

/* Builds everything for `now` (borrowed; must outlive r) as the command line
 * says. Reads the user file from $XDG_CONFIG_HOME or ~/.config (a broken file
 * is a note in the section, not an error). CS_EUSAGE for an unknown profile
 * or a bad baseline edit, the baseline's load errors, CS_ENOMEM. Call
 * cache_report_fini in every case. */
int cache_report_prepare(struct cache_report *r, const struct cli *cli, const struct assembly *now,
			 struct cs_error *err);
/* The same, with exact counts for the profiles whose provider's tokenizer
 * is public (cache_profile.exact): their figures, minimum and steps are then
 * in real tokens. counted: now's exact counts by tok (both borrowed; NULL:
 * none); the baseline is counted here, sharing counted's memo. */
int cache_report_prepare_exact(struct cache_report *r, const struct cli *cli, const struct assembly *now,
			       struct tokenizer *tok, const struct exact_live *counted, struct cs_error *err);
/* The inspector's: the same against its own baseline `base` (borrowed, as
 * now; they must outlive r), said in base_words ("the prompt as loaded"),
 * under the profile it shows (`profile`, a name; NULL: the command line's). */
int cache_report_prepare_inspector(struct cache_report *r, const struct cli *cli, const char *profile,
				   const struct assembly *now, const struct assembly *base, const char *base_words,
				   struct cs_error *err);
void cache_report_fini(struct cache_report *r);
/* The command line's --breakpoint and --no-breakpoint on `now` into o (the
 * overrides the section uses). CS_EUSAGE for one naming no block; CS_ENOMEM. */
int cache_report_overrides(const struct cli *cli, const struct assembly *now, struct cache_overrides *o,
			   struct cs_error *err);

/* Writes the section (the report_section callback; ctx is the cache_report). */
int cache_report_write(const struct assembly *a, void *ctx, struct emitter *em);

#endif
