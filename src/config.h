/* config.h: the user's cache file, $XDG_CONFIG_HOME/ctxscope/cache.yml (else
 * ~/.config/ctxscope/cache.yml): it overrides any field of a built-in cache
 * profile, adds profiles, names the default one, sets a base price per
 * million input tokens (so costs show in money), and adds volatile-text
 * patterns for the lints. A missing file is fine; a broken one leaves the
 * built-ins untouched and comes back as an error the caller shows as a
 * warning. The format:
 *
 *   profile: anthropic              # the default profile
 *   profiles:
 *     anthropic:                    # any field of a built-in
 *       write: 2.0                  # the 1-hour cache
 *       price_per_mtok: 3.00
 *     gateway:                      # a new profile, starting from another
 *       based_on: openai
 *       min_prefix: 512
 *   volatile_patterns:
 *     - name: build-number
 *       pattern: 'BUILD-[0-9]+'
 *
 * Profile fields: mode (explicit|prefix), max_breakpoints, min_prefix, unit,
 * lookback, read, write, price_per_mtok, source, as_of, based_on. Unknown
 * keys are ignored. */
#ifndef CTXSCOPE_CONFIG_H
#define CTXSCOPE_CONFIG_H

#include "base/arena.h"
#include "cache/cache.h"
#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

#define CONFIG_MAX_PATTERNS 256  /* user patterns: each one runs on every cached block */
#define CONFIG_MAX_BYTES (1u << 20) /* a cache file past 1 MiB is not a config file */

struct cache_config {
	struct cache_profile profiles[CACHE_MAX_PROFILES];
	size_t nprofiles;
	char default_profile[CACHE_NAME_MAX];
	struct cache_pattern *patterns; /* NULL-name terminated; arena; NULL when none */
	size_t npatterns;
	struct arena arena;             /* owns the patterns */
	bool loaded;                    /* a user file was read */
};

/* The built-in profiles, default anthropic, no patterns. */
void cache_config_init(struct cache_config *c);
void cache_config_fini(struct cache_config *c);

/* The user file's path from XDG_CONFIG_HOME and HOME (either may be NULL or
 * empty) into buf. false when neither is set or the path does not fit. */
bool cache_config_path(const char *xdg_config_home, const char *home, char *buf, size_t n);

/* Merges YAML text into c. On any error c is left as it was and err says
 * where (line, column, path) and what; CS_ESYNTAX, CS_ETYPE, CS_EUSAGE,
 * CS_ELIMIT or CS_ENOMEM. */
int cache_config_parse(struct cache_config *c, const char *data, size_t len, struct cs_error *err);
/* Reads and merges the file at path. A missing file is CS_OK (loaded stays
 * false); other failures as cache_config_parse, with err's file set. */
int cache_config_load(struct cache_config *c, const char *path, struct cs_error *err);

/* The profile named `name` (exact), or NULL. Borrowed from c. */
const struct cache_profile *cache_config_profile(const struct cache_config *c, const char *name);

#endif
