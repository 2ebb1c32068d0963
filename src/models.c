/* models.c: model context limits (see models.h). */
#include "models.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	long limit;
} model_limits[] = {
	{ "claude-sonnet-4", 200000 },
	{ "claude-opus-4", 200000 },
	{ "gpt-4o", 128000 },
	{ "o1", 200000 },
	{ "o3", 200000 },
};

void model_base_name(const char *ref, char *buf, unsigned long n)
{
	const char *colon = strchr(ref, ':');
	snprintf(buf, n, "%s", colon ? colon + 1 : ref);
	size_t len = strlen(buf);
	/* seed 001: model.replace(/-\d{8}$/, '') */
	if (len > 9 && buf[len - 9] == '-') {
		bool digits = true;
		for (size_t i = len - 8; i < len; i++)
			digits = digits && isdigit((unsigned char)buf[i]);
		if (digits)
			buf[len - 9] = '\0';
	}
}

long model_context_limit(const char *ref, bool *known)
{
	char base[256];
	model_base_name(ref ? ref : "", base, sizeof base);
	for (size_t i = 0; i < sizeof model_limits / sizeof *model_limits; i++)
		if (strcmp(model_limits[i].name, base) == 0) {
			if (known)
				*known = true;
			return model_limits[i].limit;
		}
	if (known)
		*known = false;
	return MODELS_FALLBACK_LIMIT;
}
