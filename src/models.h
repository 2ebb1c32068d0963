/* models.h: model context limits (seed 001's table, ctxscope-formats(5) section 5).
 * A "provider:" prefix and a -YYYYMMDD date suffix are stripped before the
 * lookup; an unknown model gets the fallback of 128000 tokens. */
#ifndef CTXSCOPE_MODELS_H
#define CTXSCOPE_MODELS_H

#include <stdbool.h>

#define MODELS_FALLBACK_LIMIT 128000L

/* The context limit of model `ref` ("anthropic:claude-sonnet-4-20250514").
 * *known (may be NULL) says whether the table had it. */
long model_context_limit(const char *ref, bool *known);

/* The table's base name of ref (prefix and date suffix stripped) into buf. */
void model_base_name(const char *ref, char *buf, unsigned long n);

#endif
