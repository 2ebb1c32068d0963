/* kind.c: the memory snapshot's table: its operations, its settings and the
 * keys its piece list sorts by. The loader (load.c) only parses. */
#include "memory.h"

#include "assembly.h"
#include "edit.h"
#include "kind.h"
#include "setting.h"
#include "source.h"
#include "base/strbuf.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const char *const archetypes[] = { "coding", "support", "research", NULL }; /* memory_presets() */
static const char *const weight_names[] = {
#define MW_X_NAME(e, name, key) name,
	MEMORY_WEIGHTS(MW_X_NAME)
#undef MW_X_NAME
	NULL
};
static const char *const allocation_names[] = {
#define MA_X_NAME(e, name, type) name,
	MEMORY_ALLOCATIONS(MA_X_NAME)
#undef MA_X_NAME
	NULL
};
static const char *const on_off[] = { "on", "off" };
static const char *const assemblies[] = { "stack", "linear", NULL }; /* enum memory_assembly */
static const char *const incremental_modes[] = { "as-written", "as-intended", NULL }; /* enum memory_incremental */

/* step N: the new events replayed, 0 (the builder's context) to all of them. */
static int set_step(struct source *src, const struct setting *s, const char *text, struct cs_error *err)
{
	struct memory *m = src->model;
	struct setting_value v;
	int rc = setting_parse(s, text, NULL, &v, err);
	if (rc != CS_OK)
		return rc;
	if (v.number > (double)m->nnew)
		return m->nnew ? cs_error_set(err, CS_EUSAGE, "update %s: this snapshot has %zu new event%s", text, m->nnew,
					      m->nnew == 1 ? "" : "s")
			       : cs_error_set(err, CS_EUSAGE, "update %s: this snapshot has no newEvents", text);
	m->step = (long)v.number;
	return CS_OK;
}

enum { MS_ARCHETYPE, MS_WEIGHT, MS_ALLOCATION, MS_CAPS }; /* memory_settings[] */

/* stack needs a taskStack in the snapshot. */
static int set_assembly(struct source *src, const struct setting *s, const char *text, struct cs_error *err)
{
	struct memory *m = src->model;
	struct setting_value v;
	int rc = setting_parse(s, text, NULL, &v, err);
	if (rc != CS_OK)
		return rc;
	if (v.choice == MEMORY_ASSEMBLY_STACK && !m->stack.frames)
		return cs_error_set(err, CS_EUSAGE, "this snapshot has no taskStack");
	m->assembly = v.choice;
	return CS_OK;
}

/* "NAME", or "NAME recency=..,...,relations=P" to restore a state exactly
 * (undo); "none" only comes back from get_archetype (a snapshot without one).
 * Switching replaces all seven numbers with the preset's. */
static int set_archetype(struct source *src, const struct setting *s, const char *text, struct cs_error *err)
{
	struct memory *m = src->model;
	const struct setting *ws = &src->kind->settings[MS_WEIGHT], *as = &src->kind->settings[MS_ALLOCATION];
	char buf[EDIT_TEXT_MAX];
	snprintf(buf, sizeof buf, "%s", text);
	char *rest = strchr(buf, ' ');
	if (rest)
		*rest++ = '\0';
	struct setting_value v = { .choice = -1 };
	if (strcmp(buf, "none") != 0) {
		int rc = setting_parse(s, buf, NULL, &v, err);
		if (rc != CS_OK)
			return rc;
	}
	size_t npresets;
	const struct memory_preset *presets = memory_presets(&npresets);
	const struct memory_preset *base = &presets[v.choice >= 0 ? v.choice : MEMORY_DEFAULT_PRESET];
	struct memory_strategy next = { .archetype = v.choice };
	memcpy(next.weights, base->weights, sizeof next.weights);
	memcpy(next.allocation, base->allocation, sizeof next.allocation);
	char *save = NULL;
	for (char *tok = rest ? strtok_r(rest, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
		/* the list holds weights and allocations together */
		size_t n = strcspn(tok, "=");
		bool weight = false;
		for (size_t j = 0; weight_names[j]; j++)
			weight |= strlen(weight_names[j]) == n && !strncmp(weight_names[j], tok, n);
		struct setting_value part;
		double *into = weight ? next.weights : next.allocation;
		int rc = setting_parse(weight ? ws : as, tok, into, &part, err);
		if (rc != CS_OK)
			return rc;
		memcpy(into, part.list, (weight ? MW_COUNT : MA_COUNT) * sizeof *into);
	}
	m->cur = next;
	return CS_OK;
}

static void get_archetype(const struct source *src, const struct setting *s, struct strbuf *out)
{
	(void)s;
	const struct memory *m = src->model;
	size_t npresets;
	const struct memory_preset *presets = memory_presets(&npresets);
	sb_puts(out, m->cur.archetype >= 0 ? presets[m->cur.archetype].name : "none");
	if (!memory_matches_preset(&m->cur)) {
		sb_putc(out, ' ');
		setting_get(src, &src->kind->settings[MS_WEIGHT], out);
		sb_putc(out, ',');
		setting_get(src, &src->kind->settings[MS_ALLOCATION], out);
	}
}

static const struct setting memory_settings[] = {
	[MS_ARCHETYPE] = { .name = "archetype", .type = SETTING_ENUM, .choices = archetypes,
			   .help = "use a preset's weights and allocations: coding, support or research",
			   .set = set_archetype, .get = get_archetype },
	[MS_WEIGHT] = { .name = "weight", .type = SETTING_WEIGHTS, .choices = weight_names, .min = 0, .max = 1,
			.help = "a score weight from 0 to 1: recency, relevance or salience (or a list a=V,b=V)",
			SETTING_FIELD(SETTING_IN_MODEL, struct memory, cur.weights) },
	[MS_ALLOCATION] = { .name = "allocation", .type = SETTING_PERCENT, .choices = allocation_names, .min = 0,
			    .max = 100,
			    .help = "a source's share in percent: recent, semantic, entities, relations (or a list)",
			    SETTING_FIELD(SETTING_IN_MODEL, struct memory, cur.allocation) },
	[MS_CAPS] = { .name = "allocation-caps", .type = SETTING_BOOL, .words = on_off, .arg = "on|off", .def = "on",
		      .help = "off: skip pass 1 (each source query keeping its share by its own score): one greedy pass by final score",
		      SETTING_FIELD(SETTING_IN_MODEL, struct memory, caps) },
	{ .name = "compress", .type = SETTING_BOOL, .words = on_off, .arg = "on|off", .def = "off",
	  .help = "on: the seed's compressContext, lowest scores summarized to a third until the items fit",
	  SETTING_FIELD(SETTING_IN_MODEL, struct memory, compress) },
	{ .name = "assembly", .type = SETTING_ENUM, .choices = assemblies, .arg = "stack|linear",
	  .help = "stack (the default with a taskStack): its layers, then the builder for the current frame; linear: the builder alone",
	  .set = set_assembly,
	  SETTING_FIELD(SETTING_IN_MODEL, struct memory, assembly) },
	{ .name = "incremental", .type = SETTING_ENUM, .choices = incremental_modes, .def = "as-written",
	  .arg = "as-written|as-intended",
	  .help = "how newEvents replay: as-written (the seed's code: the highest score goes) or as-intended (the lowest)",
	  SETTING_FIELD(SETTING_IN_MODEL, struct memory, incremental) },
	{ .name = "update", .type = SETTING_INT, .arg = "N", .min = 0, .max = MEMORY_MAX_ITEMS,
	  .help = "the new events replayed: 0 (the builder's context) to all of them (the default)", .set = set_step,
	  SETTING_FIELD(SETTING_IN_MODEL, struct memory, step) },
	{ .name = NULL },
};

static const char *const memory_json_keys[] = { "items", NULL };
static const char *const memory_sort_keys[] = { "order", "tokens", "score", NULL };

/* A: the framework's presets, in turn. */
static const struct kind_action memory_actions[] = {
	{ .key = "A", .name = "archetype", .help = "cycle the archetype (coding, support, research), re-assemble",
	  .what = KIND_ACTION_CYCLE, .option = "archetype" },
	{ .key = "S", .name = "assembly", .help = "switch stack and linear assembly (a snapshot with a taskStack), re-assemble",
	  .what = KIND_ACTION_CYCLE, .option = "assembly" },
	{ .key = "C", .name = "compress", .help = "compression on or off (lowest scores summarized until the items fit), re-assemble",
	  .what = KIND_ACTION_TOGGLE, .option = "compress" },
	{ .key = NULL },
};

/* [ ] walk the updates (newEvents): update N is the context after N of
 * them; update 0, the builder's own, is reached with :set update 0. */
static size_t update_count(const struct source *src)
{
	const struct memory *m = src->model;
	return m->nnew;
}

static size_t update_current(const struct source *src)
{
	const struct memory *m = src->model;
	return m->step > 0 ? (size_t)m->step - 1 : 0;
}

static const struct kind_sequence memory_sequence = {
	.noun = "update", .setting = "update", .count = update_count, .current = update_current,
};

const struct kind_ops memory_kind = {
	.name = "memory",
	.title = "memory snapshot",
	.id_key = "id",
	.json_keys = memory_json_keys,
	.extensions = NULL,
	.settings = memory_settings,
	.piece_strategies = NULL,
	.global_strategies = NULL,
	.sort_keys = memory_sort_keys,
	.actions = memory_actions,
	.load = memory_load,
	.assemble = memory_assemble,
	.free_model = memory_free,
	.report_extra = memory_report_extra,
	.report_piece = memory_report_piece,
	.sequence = &memory_sequence,
	.piece_note = memory_piece_note,
	.piece_column = memory_piece_column,
	.column_title = " score",
	.column_sort = "score",
};
