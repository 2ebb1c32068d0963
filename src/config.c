/* config.c: the user's cache file (see config.h). Parsed with yaml_tree.h
 * into a copy of the configuration, which replaces the old one only when the
 * whole file made sense. */
#include "config.h"

#include "base/alloc.h"
#include "base/fileio.h"
#include "json/yaml_tree.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define PATH_BUF 320 /* a document path in an error: profiles.NAME.field */

void cache_config_init(struct cache_config *c)
{
	memset(c, 0, sizeof *c);
	size_t n;
	const struct cache_profile *b = cache_builtin_profiles(&n);
	memcpy(c->profiles, b, n * sizeof *b);
	c->nprofiles = n;
	snprintf(c->default_profile, sizeof c->default_profile, "%s", b[0].name);
	arena_init(&c->arena);
}

void cache_config_fini(struct cache_config *c)
{
	if (!c)
		return;
	arena_fini(&c->arena);
	memset(c, 0, sizeof *c);
}

bool cache_config_path(const char *xdg_config_home, const char *home, char *buf, size_t n)
{
	int len;
	if (xdg_config_home && *xdg_config_home)
		len = snprintf(buf, n, "%s/ctxscope/cache.yml", xdg_config_home);
	else if (home && *home)
		len = snprintf(buf, n, "%s/.config/ctxscope/cache.yml", home);
	else
		return false;
	return len > 0 && (size_t)len < n;
}

const struct cache_profile *cache_config_profile(const struct cache_config *c, const char *name)
{
	for (size_t i = 0; i < c->nprofiles; i++)
		if (!strcmp(c->profiles[i].name, name))
			return &c->profiles[i];
	return NULL;
}

static int number(const struct ynode *n, const char *path, double lo, double hi, double *out, struct cs_error *err)
{
	double v;
	if (!ynode_number(n, &v) || v < lo || v > hi)
		return yfail(err, n, path, CS_ETYPE, "expected a number from %g to %g", lo, hi);
	*out = v;
	return CS_OK;
}

static int whole(const struct ynode *n, const char *path, long hi, long *out, struct cs_error *err)
{
	double v = 0;
	int rc = number(n, path, 0, (double)hi, &v, err);
	if (rc != CS_OK)
		return rc;
	if (v != floor(v))
		return yfail(err, n, path, CS_ETYPE, "expected a whole number");
	*out = (long)v;
	return CS_OK;
}

static int text(const struct ynode *n, const char *path, char *out, size_t cap, struct cs_error *err)
{
	if (!n || n->type != YNODE_SCALAR)
		return yfail(err, n, path, CS_ETYPE, "expected text, got %s", ynode_type_name(n));
	if (n->len >= cap || memchr(n->value, '\0', n->len))
		return yfail(err, n, path, CS_ETYPE, "expected text of at most %zu bytes, without NUL", cap - 1);
	memcpy(out, n->value, n->len);
	out[n->len] = '\0';
	return CS_OK;
}

static int read_profile(struct cache_config *c, struct cache_profile *p, const struct ynode *map, const char *name,
			struct cs_error *err)
{
	char path[PATH_BUF];
	if (map->type != YNODE_MAP) {
		snprintf(path, sizeof path, "profiles.%s", name);
		return yfail(err, map, path, CS_ETYPE, "expected a map of profile fields, got %s", ynode_type_name(map));
	}
	int rc = CS_OK;
	const struct ynode *based = ymap_get(map, "based_on");
	if (based) {
		char from[CACHE_NAME_MAX];
		snprintf(path, sizeof path, "profiles.%s.based_on", name);
		rc = text(based, path, from, sizeof from, err);
		if (rc != CS_OK)
			return rc;
		const struct cache_profile *f = cache_config_profile(c, from);
		if (!f)
			return yfail(err, based, path, CS_EUSAGE, "no profile named \"%s\" to start from", from);
		struct cache_profile copy = *f;
		snprintf(copy.name, sizeof copy.name, "%s", p->name);
		*p = copy;
	}
	for (size_t i = 0; i + 1 < map->nchildren && rc == CS_OK; i += 2) {
		const struct ynode *k = map->children[i], *v = map->children[i + 1];
		if (k->type != YNODE_SCALAR)
			continue;
		const char *key = k->value;
		snprintf(path, sizeof path, "profiles.%s.%s", name, key);
		double d = 0;
		if (!strcmp(key, "mode")) {
			char mode[16];
			rc = text(v, path, mode, sizeof mode, err);
			if (rc == CS_OK && !strcmp(mode, "explicit"))
				p->mode = CACHE_EXPLICIT;
			else if (rc == CS_OK && !strcmp(mode, "prefix"))
				p->mode = CACHE_PREFIX;
			else if (rc == CS_OK)
				rc = yfail(err, v, path, CS_ETYPE, "expected explicit or prefix, got \"%s\"", mode);
		} else if (!strcmp(key, "max_breakpoints")) {
			long l = 0;
			rc = whole(v, path, 1000, &l, err);
			if (rc == CS_OK)
				p->max_breakpoints = (int)l;
		} else if (!strcmp(key, "min_prefix")) {
			rc = whole(v, path, 100000000, &p->min_prefix, err);
		} else if (!strcmp(key, "unit")) {
			rc = whole(v, path, 1000000, &p->unit, err);
			if (rc == CS_OK && p->unit < 1)
				rc = yfail(err, v, path, CS_ETYPE, "a unit is at least 1 token");
		} else if (!strcmp(key, "lookback")) {
			rc = whole(v, path, 1000000, &p->lookback, err);
		} else if (!strcmp(key, "read")) {
			rc = number(v, path, 0, 100, &d, err);
			if (rc == CS_OK)
				p->read = d;
		} else if (!strcmp(key, "write")) {
			rc = number(v, path, 0, 100, &d, err);
			if (rc == CS_OK)
				p->write = d;
		} else if (!strcmp(key, "price_per_mtok")) {
			rc = number(v, path, 0, 1e6, &d, err);
			if (rc == CS_OK)
				p->price_per_mtok = d;
		} else if (!strcmp(key, "source")) {
			rc = text(v, path, p->source, sizeof p->source, err);
		} else if (!strcmp(key, "as_of")) {
			rc = text(v, path, p->as_of, sizeof p->as_of, err);
		}
	}
	return rc;
}

static int read_profiles(struct cache_config *c, const struct ynode *map, struct cs_error *err)
{
	if (map->type != YNODE_MAP)
		return yfail(err, map, "profiles", CS_ETYPE, "expected a map of profiles by name, got %s",
			   ynode_type_name(map));
	int rc = CS_OK;
	for (size_t i = 0; i + 1 < map->nchildren && rc == CS_OK; i += 2) {
		const struct ynode *k = map->children[i], *v = map->children[i + 1];
		char name[CACHE_NAME_MAX];
		rc = text(k, "profiles", name, sizeof name, err);
		if (rc != CS_OK)
			break;
		struct cache_profile *p = NULL;
		for (size_t j = 0; j < c->nprofiles && !p; j++)
			if (!strcmp(c->profiles[j].name, name))
				p = &c->profiles[j];
		if (!p) {
			if (c->nprofiles == CACHE_MAX_PROFILES)
				return yfail(err, k, "profiles", CS_ELIMIT, "more than %d profiles", CACHE_MAX_PROFILES);
			p = &c->profiles[c->nprofiles++];
			/* a new profile starts as an automatic prefix cache with no premium */
			*p = (struct cache_profile){ .mode = CACHE_PREFIX, .unit = 1, .read = 1.0, .write = 1.0,
						     .price_per_mtok = -1, .source = "user file", .as_of = "" };
			memcpy(p->name, name, sizeof name);
		}
		rc = read_profile(c, p, v, name, err);
	}
	return rc;
}

static int read_patterns(struct cache_config *c, const struct ynode *seq, struct cs_error *err)
{
	if (seq->type != YNODE_SEQ)
		return yfail(err, seq, "volatile_patterns", CS_ETYPE, "expected a list of {name, pattern}, got %s",
			   ynode_type_name(seq));
	if (seq->nchildren > CONFIG_MAX_PATTERNS)
		return yfail(err, seq, "volatile_patterns", CS_ELIMIT, "more than %d patterns", CONFIG_MAX_PATTERNS);
	size_t n = c->npatterns + seq->nchildren;
	struct cache_pattern *all = arena_alloc(&c->arena, (n + 1) * sizeof *all);
	if (!all)
		return cs_error_nomem(err);
	if (c->npatterns)
		memcpy(all, c->patterns, c->npatterns * sizeof *all);
	for (size_t i = 0; i < seq->nchildren; i++) {
		const struct ynode *item = seq->children[i];
		char path[PATH_BUF];
		snprintf(path, sizeof path, "volatile_patterns[%zu]", i);
		const struct ynode *name = item->type == YNODE_MAP ? ymap_get(item, "name") : NULL;
		const struct ynode *pat = item->type == YNODE_MAP ? ymap_get(item, "pattern") : NULL;
		if (!name || !pat || name->type != YNODE_SCALAR || pat->type != YNODE_SCALAR)
			return yfail(err, item, path, CS_ETYPE, "expected {name: text, pattern: text}");
		char *ns = arena_strndup(&c->arena, name->value, name->len);
		char *ps = arena_strndup(&c->arena, pat->value, pat->len);
		if (!ns || !ps)
			return cs_error_nomem(err);
		int rc = cache_pattern_check(ns, ps, err);
		if (rc != CS_OK) {
			yerror_at(err, pat, path);
			return rc;
		}
		all[c->npatterns++] = (struct cache_pattern){ ns, ps };
	}
	all[c->npatterns] = (struct cache_pattern){ NULL, NULL };
	c->patterns = all;
	return CS_OK;
}

int cache_config_parse(struct cache_config *c, const char *data, size_t len, struct cs_error *err)
{
	struct ytree t;
	int rc = ytree_parse(&t, data, len, err);
	/* everything goes into a copy first; its arena is fresh */
	struct cache_config *copy = cs_malloc(sizeof *copy);
	if (rc == CS_OK && !copy)
		rc = cs_error_nomem(err);
	if (rc != CS_OK) {
		cs_free(copy);
		ytree_fini(&t);
		return rc;
	}
	*copy = *c;
	arena_init(&copy->arena);
	copy->patterns = NULL;
	copy->npatterns = 0;
	const struct ynode *root = t.root;
	if (root && !ynode_is_null(root) && root->type != YNODE_MAP)
		rc = yfail(err, root, "", CS_ETYPE, "expected a map (profile, profiles, volatile_patterns), got %s",
			 ynode_type_name(root));
	const struct ynode *n;
	if (rc == CS_OK && root && root->type == YNODE_MAP && (n = ymap_get(root, "profiles")) && !ynode_is_null(n))
		rc = read_profiles(copy, n, err);
	if (rc == CS_OK && root && root->type == YNODE_MAP && (n = ymap_get(root, "profile"))) {
		rc = text(n, "profile", copy->default_profile, sizeof copy->default_profile, err);
		if (rc == CS_OK && !cache_config_profile(copy, copy->default_profile))
			rc = yfail(err, n, "profile", CS_EUSAGE, "no profile named \"%s\"", copy->default_profile);
	}
	/* the old patterns first, then the file's */
	if (rc == CS_OK && c->npatterns) {
		copy->patterns = arena_alloc(&copy->arena, (c->npatterns + 1) * sizeof *copy->patterns);
		if (!copy->patterns)
			rc = cs_error_nomem(err);
		for (size_t i = 0; rc == CS_OK && i < c->npatterns; i++) {
			char *ns = arena_strdup(&copy->arena, c->patterns[i].name);
			char *ps = arena_strdup(&copy->arena, c->patterns[i].pattern);
			if (!ns || !ps)
				rc = cs_error_nomem(err);
			else
				copy->patterns[copy->npatterns++] = (struct cache_pattern){ ns, ps };
		}
		if (rc == CS_OK)
			copy->patterns[copy->npatterns] = (struct cache_pattern){ NULL, NULL };
	}
	if (rc == CS_OK && root && root->type == YNODE_MAP && (n = ymap_get(root, "volatile_patterns")) &&
	    !ynode_is_null(n))
		rc = read_patterns(copy, n, err);
	ytree_fini(&t);
	if (rc != CS_OK) {
		arena_fini(&copy->arena);
		cs_free(copy);
		return rc;
	}
	arena_fini(&c->arena);
	*c = *copy;
	c->loaded = true;
	cs_free(copy);
	return CS_OK;
}

int cache_config_load(struct cache_config *c, const char *path, struct cs_error *err)
{
	char *data = NULL;
	size_t len = 0;
	enum file_state state = FILE_OK;
	int rc = file_read(path, CONFIG_MAX_BYTES, &data, &len, &state, err);
	if (rc != CS_OK) {
		cs_free(data);
		if (state == FILE_MISSING) {
			cs_error_clear(err);
			return CS_OK;
		}
		return rc;
	}
	rc = cache_config_parse(c, data, len, err);
	cs_free(data);
	if (rc != CS_OK)
		cs_error_file(err, path);
	return rc;
}
