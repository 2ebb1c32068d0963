/* cache/section.c: the report's `cache` section (see cache/section.h). */
#include "cache/section.h"

#include "base/alloc.h"
#include "cli.h"
#include "edit.h"
#include "emit.h"
#include "kind.h"
#include "load.h"
#include "source.h"
#include "base/strbuf.h"
#include "tokens/exact.h"
#include "tokens/tokenizer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Applies "NAME=VALUE" edits to src, in order. */
static int apply_edits(struct source *src, const char *const *edits, size_t n, struct cs_error *err)
{
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(edits[i], '=');
		char name[64];
		size_t len = eq ? (size_t)(eq - edits[i]) : 0;
		if (!eq || len == 0 || len >= sizeof name)
			return cs_error_set(err, CS_EUSAGE, "--baseline-edit %s: expected NAME=VALUE", edits[i]);
		memcpy(name, edits[i], len);
		name[len] = '\0';
		struct edit e;
		int rc = edit_from_setting(src, name, eq + 1, &e, err);
		if (rc == CS_OK)
			rc = edit_apply(src, &e, err);
		if (rc != CS_OK) {
			char msg[CS_ERROR_MSG_MAX];
			memcpy(msg, err->message, sizeof msg);
			return cs_error_set(err, (enum cs_status)rc, "--baseline-edit %s: %s", edits[i], msg);
		}
	}
	return CS_OK;
}

/* The block a --breakpoint ID names: a piece id, or #N for block N. */
static int find_block(const struct assembly *a, const char *id, size_t *out, struct cs_error *err)
{
	if (id[0] == '#') {
		char *end;
		unsigned long n = strtoul(id + 1, &end, 10);
		if (*end || end == id + 1 || n >= a->nblocks)
			return cs_error_set(err, CS_EUSAGE, "breakpoint %s: no such block (the prompt has #0 to #%zu)", id,
					    a->nblocks ? a->nblocks - 1 : 0);
		*out = n;
		return CS_OK;
	}
	for (size_t b = 0; b < a->nblocks; b++)
		if (a->blocks[b].piece >= 0 && !strcmp(a->src->pieces[a->blocks[b].piece].id, id)) {
			*out = b;
			return CS_OK;
		}
	return cs_error_set(err, CS_EUSAGE, "breakpoint %s: no such piece in the prompt", id);
}

int cache_report_overrides(const struct cli *cli, const struct assembly *now, struct cache_overrides *o,
			   struct cs_error *err)
{
	for (size_t i = 0; i < cli->nbreakpoints; i++) {
		size_t b = 0;
		int rc = find_block(now, cli->breakpoints[i], &b, err);
		if (rc == CS_OK)
			rc = cache_overrides_set(o, now, b, cli->breakpoint_on[i], err);
		if (rc != CS_OK)
			return rc;
	}
	return CS_OK;
}

static int build_baseline(struct cache_report *r, const struct cli *cli, struct cs_error *err)
{
	if (r->given_base) /* the inspector's: said by its caller */
		return CS_OK;
	if (!cli->baseline && !cli->nbaseline_edits && !cli->nsettings) {
		snprintf(r->baseline, sizeof r->baseline, "this prompt, repeated (no edits given): the steady state");
		return CS_OK;
	}
	const char *file = cli->baseline ? cli->baseline : cli->file;
	int rc = source_load(file, cli->kind, &r->base_src, err);
	if (rc != CS_OK) {
		char msg[CS_ERROR_MSG_MAX];
		memcpy(msg, err->message, sizeof msg);
		return cs_error_set(err, (enum cs_status)rc, "the baseline: %s", msg);
	}
	rc = apply_edits(r->base_src, cli->baseline_edits, cli->nbaseline_edits, err);
	if (rc == CS_OK)
		rc = assemble(r->base_src, &r->base, err);
	if (rc != CS_OK) {
		source_free(r->base_src);
		r->base_src = NULL;
		return rc;
	}
	if (cli->baseline)
		snprintf(r->baseline, sizeof r->baseline, "%s%s", cli->baseline,
			 cli->nbaseline_edits ? " with the --baseline-edit edits" : "");
	else if (cli->nbaseline_edits)
		snprintf(r->baseline, sizeof r->baseline, "%s with the --baseline-edit edits only", cli->file);
	else
		snprintf(r->baseline, sizeof r->baseline, "%s without the command line's edits", cli->file);
	return CS_OK;
}

/* Counts now and the baseline exactly when some profile prices in exact
 * tokens; *m then points at them (else NULL). */
static int measure(struct cache_report *r, struct tokenizer *tok, const struct exact_live *now,
		   const struct assembly *base, struct cache_measure *m, struct cs_error *err)
{
	memset(m, 0, sizeof *m);
	bool wanted = false;
	for (size_t i = 0; i < r->cfg.nprofiles; i++)
		wanted = wanted || r->cfg.profiles[i].exact;
	if (!tok || !now || now->total < 0 || !wanted)
		return CS_OK;
	if (base != r->now) {
		exact_live_share(&r->exact_base, now);
		int rc = exact_live_count(&r->exact_base, tok, base, err);
		if (rc != CS_OK)
			return rc;
	}
	const struct exact_live *b = base != r->now ? &r->exact_base : now;
	*m = (struct cache_measure){ now->block_tokens, b->block_tokens, now->total, b->total };
	snprintf(r->encoding, sizeof r->encoding, "%s", tokenizer_name(tok));
	return CS_OK;
}

int cache_report_prepare(struct cache_report *r, const struct cli *cli, const struct assembly *now,
			 struct cs_error *err)
{
	return cache_report_prepare_exact(r, cli, now, NULL, NULL, err);
}

/* What the prepare functions share: given_base (borrowed; NULL: the command
 * line's baseline) said in base_words; profile: the active profile's name
 * (NULL: the command line's). */
static int prepare(struct cache_report *r, const struct cli *cli, const char *profile, const struct assembly *now,
		   const struct assembly *given_base, const char *base_words, struct tokenizer *tok,
		   const struct exact_live *counted, struct cs_error *err);

int cache_report_prepare_exact(struct cache_report *r, const struct cli *cli, const struct assembly *now,
			       struct tokenizer *tok, const struct exact_live *counted, struct cs_error *err)
{
	return prepare(r, cli, NULL, now, NULL, NULL, tok, counted, err);
}

int cache_report_prepare_inspector(struct cache_report *r, const struct cli *cli, const char *profile,
				   const struct assembly *now, const struct assembly *base, const char *base_words,
				   struct cs_error *err)
{
	return prepare(r, cli, profile, now, base, base_words, NULL, NULL, err);
}

static int prepare(struct cache_report *r, const struct cli *cli, const char *profile, const struct assembly *now,
		   const struct assembly *given_base, const char *base_words, struct tokenizer *tok,
		   const struct exact_live *counted, struct cs_error *err)
{
	memset(r, 0, sizeof *r);
	if (given_base) {
		r->given_base = given_base;
		snprintf(r->baseline, sizeof r->baseline, "%s", base_words ? base_words : "the inspector's baseline");
	}
	cache_config_init(&r->cfg);
	cache_overrides_init(&r->overrides);
	r->now = now;
	r->sections[0] = (struct report_section){ .name = "cache", .write = cache_report_write, .ctx = r };
	r->sections[1] = (struct report_section){ .name = NULL };

	char path[1024];
	if (!cache_config_path(getenv("XDG_CONFIG_HOME"), getenv("HOME"), path, sizeof path)) {
		snprintf(r->config_note, sizeof r->config_note, "built-in profiles (no XDG_CONFIG_HOME or HOME)");
	} else {
		struct cs_error cerr;
		cs_error_clear(&cerr);
		int rc = cache_config_load(&r->cfg, path, &cerr);
		if (rc == CS_ENOMEM)
			return cs_error_nomem(err);
		if (rc != CS_OK) {
			char msg[CS_ERROR_FILE_MAX + CS_ERROR_PATH_MAX + CS_ERROR_MSG_MAX + 64];
			cs_error_format(&cerr, msg, sizeof msg);
			snprintf(r->config_note, sizeof r->config_note, "ignored (built-ins apply): %.590s", msg);
		} else if (r->cfg.loaded) {
			snprintf(r->config_note, sizeof r->config_note, "%.600s", path);
		} else {
			snprintf(r->config_note, sizeof r->config_note, "built-in profiles (no %.580s)", path);
		}
	}
	const char *name = profile ? profile : source_cache_profile(now->src, cli->profile, r->cfg.default_profile);
	r->profile = cache_config_profile(&r->cfg, name);
	if (!r->profile) {
		char names[512] = "";
		for (size_t i = 0; i < r->cfg.nprofiles; i++) {
			size_t used = strlen(names);
			snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", r->cfg.profiles[i].name);
		}
		return cs_error_set(err, CS_EUSAGE, "--profile: no profile named \"%s\" (there are %s)", name, names);
	}
	const char *model;
	r->profile = cache_tuned_profile(now->src, r->profile, &r->tuned, &model);
	if (model)
		snprintf(r->tuned_for, sizeof r->tuned_for, "%s", model);
	int rc = cache_report_overrides(cli, now, &r->overrides, err);
	if (rc != CS_OK)
		return rc;
	rc = build_baseline(r, cli, err);
	if (rc != CS_OK)
		return rc;
	const struct assembly *base = r->base_src ? &r->base : r->given_base ? r->given_base : now;
	/* the baseline keeps the assembler's breakpoints unless it is this very prompt */
	const struct cache_overrides *ob = base != now ? NULL : &r->overrides;
	struct cache_measure m;
	rc = measure(r, tok, counted, base, &m, err);
	if (rc != CS_OK)
		return rc;
	const struct cache_measure *mp = m.now_blocks ? &m : NULL;
	rc = cache_analyze_measured(base, ob, now, &r->overrides, r->profile, r->profile->exact ? mp : NULL, &r->an, err);
	if (rc != CS_OK)
		return rc;
	r->all = cs_calloc(r->cfg.nprofiles, sizeof *r->all);
	if (!r->all)
		return cs_error_nomem(err);
	for (size_t i = 0; i < r->cfg.nprofiles; i++) {
		const struct cache_profile *p = &r->cfg.profiles[i];
		rc = cache_analyze_measured(base, ob, now, &r->overrides, p, p->exact ? mp : NULL, &r->all[i], err);
		if (rc != CS_OK)
			return rc;
		r->nall++;
	}
	return cache_lint(now, &r->an, r->cfg.patterns, &r->lints, err);
}

void cache_report_fini(struct cache_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nall; i++)
		cache_analysis_fini(&r->all[i]);
	cs_free(r->all);
	cache_analysis_fini(&r->an);
	cache_lints_fini(&r->lints);
	if (r->base_src) {
		asm_fini(&r->base);
		source_free(r->base_src);
	}
	cache_overrides_fini(&r->overrides);
	cache_config_fini(&r->cfg);
	exact_live_fini(&r->exact_base);
	memset(r, 0, sizeof *r);
}

/* ---- writing ---------------------------------------------------------------- */

static void emit_where(struct emitter *em, const struct assembly *a, long b)
{
	if (b < 0 || (size_t)b >= a->nblocks) {
		emit_key_str(em, "at", "the end of the prompt");
		return;
	}
	emit_key_int(em, "block", b);
	const struct block *blk = &a->blocks[b];
	if (blk->piece >= 0)
		emit_key_str(em, "at", a->src->pieces[blk->piece].id);
	else
		emit_key_str(em, "at", blk->label ? blk->label : "assembler text");
}

static void emit_money(struct emitter *em, const char *key, const struct cache_profile *p, double tokens)
{
	if (p->price_per_mtok < 0)
		return;
	emit_key_num(em, key, round(tokens * p->price_per_mtok) / 1e6);
}

static void emit_costs(struct emitter *em, const struct cache_analysis *an, bool detail)
{
	const struct cache_profile *p = an->profile;
	/* one vocabulary (read / written / uncached), as the header and the status say */
	emit_key_int(em, "read", an->now.read);
	emit_key_int(em, "written", an->now.written);
	if (detail)
		emit_key_int(em, "written_again", an->now.rewritten);
	emit_key_int(em, "uncached", an->now.uncached);
	emit_key_int(em, "no_longer_read", an->now.lost);
	emit_key_int(em, "cost_tokens", llround(an->now.cost));
	emit_key_int(em, "baseline_cost_tokens", llround(an->steady.cost));
	emit_key_int(em, "delta_tokens", llround(an->delta));
	emit_money(em, "cost_usd", p, an->now.cost);
	emit_money(em, "baseline_cost_usd", p, an->steady.cost);
	emit_money(em, "delta_usd", p, an->delta);
}

/* Which tokens the figures are in (ctxscope-formats(5) §8). */
static void emit_tokens_label(struct emitter *em, const struct cache_report *r, const struct cache_analysis *an)
{
	if (an->exact) {
		char what[160];
		const char *own = exact_auto_tokenizer(r->now); /* the model's; NULL: no model named */
		if (!own || strcmp(own, r->encoding) == 0)
			snprintf(what, sizeof what, "exact: %s, the provider's own tokenizer", r->encoding);
		else
			snprintf(what, sizeof what, "exact: %s, as asked (the model's own is %s)", r->encoding, own);
		emit_key_str(em, "tokens", what);
	} else {
		emit_key_str(em, "tokens", "estimated: ceil(code points / chars per token)");
	}
}

int cache_report_write(const struct assembly *a, void *ctx, struct emitter *em)
{
	const struct cache_report *r = ctx;
	const struct cache_profile *p = r->profile;
	const struct cache_analysis *an = &r->an;
	emit_map_begin(em);
	emit_key_str(em, "profile", p->name);
	if (r->tuned_for[0])
		emit_key_str(em, "figures_of_model", r->tuned_for);
	emit_key_str(em, "mode", cache_mode_name(p->mode));
	if (p->mode == CACHE_EXPLICIT) {
		emit_key_int(em, "max_breakpoints", p->max_breakpoints);
		emit_key_int(em, "lookback_blocks", p->lookback);
	}
	emit_key_int(em, "min_prefix", p->min_prefix);
	emit_key_int(em, "unit", p->unit);
	emit_key_num(em, "read_price", p->read);
	emit_key_num(em, "write_price", p->write);
	if (p->price_per_mtok >= 0)
		emit_key_num(em, "price_per_mtok", p->price_per_mtok);
	emit_key_str(em, "source", p->source);
	emit_key_str(em, "as_of", p->as_of);
	emit_key_str(em, "config", r->config_note);
	emit_tokens_label(em, r, an);

	emit_key(em, "breakpoints");
	emit_list_begin(em);
	for (size_t i = 0; i < an->nbps; i++) {
		const struct cache_breakpoint *bp = &an->bps[i];
		emit_map_begin(em);
		emit_where(em, a, (long)bp->block);
		emit_key_int(em, "end_tokens", bp->end_tokens);
		emit_key_bool(em, "readable", bp->can_cache);
		if (!bp->in_limit)
			emit_key_str(em, "why_not", "over the breakpoint limit");
		else if (!bp->over_min)
			emit_key_str(em, "why_not", "under the minimum prefix");
		if (bp->user)
			emit_key_bool(em, "user", true);
		emit_map_end(em);
	}
	emit_list_end(em);

	emit_key(em, "diff");
	emit_map_begin(em);
	emit_key_str(em, "baseline", r->baseline);
	emit_key_int(em, "baseline_tokens", an->steady.total);
	emit_key_int(em, "prompt_tokens", an->now.total);
	emit_key_bool(em, "identical", an->div.identical);
	if (!an->div.identical) {
		emit_key_int(em, "first_difference", an->div.tokens);
		emit_where(em, a, an->div.block);
	}
	emit_costs(em, an, true);
	/* one sentence for people (and projectors) */
	struct strbuf sum = STRBUF_INIT;
	char n1[32], n2[32], n3[32], n4[32], n5[32];
	sb_printf(&sum, "%s of %s tokens read", fmt_thousands(n1, an->now.read), fmt_thousands(n2, an->now.total));
	if (an->now.lost)
		sb_printf(&sum, "; %s the baseline read are no longer read", fmt_thousands(n3, an->now.lost));
	sb_printf(&sum, "; %s written, %s uncached; %s base-price tokens against %s for the baseline repeated",
		  fmt_thousands(n4, an->now.written), fmt_thousands(n5, an->now.uncached),
		  fmt_thousands(n1, llround(an->now.cost)), fmt_thousands(n2, llround(an->steady.cost)));
	emit_key_str(em, "summary", sum.failed ? "" : sb_str(&sum));
	bool failed = sum.failed;
	sb_fini(&sum);
	emit_map_end(em);

	emit_key(em, "profiles");
	emit_list_begin(em);
	for (size_t i = 0; i < r->nall; i++) {
		emit_map_begin(em);
		emit_key_str(em, "name", r->all[i].profile->name);
		if (r->all[i].exact)
			emit_key_str(em, "tokens", r->encoding);
		emit_costs(em, &r->all[i], false);
		emit_map_end(em);
	}
	emit_list_end(em);

	emit_key(em, "lints");
	emit_list_begin(em);
	for (size_t i = 0; i < r->lints.n; i++) {
		const struct cache_lint *l = &r->lints.items[i];
		emit_map_begin(em);
		emit_key_str(em, "lint", cache_lint_code(l->kind));
		emit_where(em, a, l->block);
		emit_key_str(em, "detail", l->sentence);
		emit_map_end(em);
	}
	emit_list_end(em);
	emit_map_end(em);
	return failed ? CS_ENOMEM : CS_OK;
}
