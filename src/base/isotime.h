/* isotime.h: ISO 8601 times to milliseconds since 1970. */
#ifndef CTXSCOPE_ISOTIME_H
#define CTXSCOPE_ISOTIME_H

#include <stdbool.h>

/* "2026-01-30", "2026-01-30T10:00", "2026-01-30T10:00:00.123Z",
 * "...+02:00"; no offset reads as UTC. false when s is not one of them. */
bool iso_time_parse(const char *s, long long *out_ms);

#endif
