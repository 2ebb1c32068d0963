/* tokens/estimate.h: the seeds' token estimate, ceil(code_points / chars_per_token),
 * chars_per_token 4 by default. It is what the inspected systems use, not the
 * truth (design.md: x0.4 to x1.1 against a real tokenizer); everything shown
 * from it says "estimated". */
#ifndef CTXSCOPE_TOKENS_H
#define CTXSCOPE_TOKENS_H

#include <stdbool.h>
#include <stddef.h>

#define TOKENS_DEFAULT_CHARS_PER_TOKEN 4.0
#define TOKENS_MIN_CHARS_PER_TOKEN 0.5   /* below this the setting is refused */
#define TOKENS_MAX_CHARS_PER_TOKEN 64.0

/* ceil(code_points / chars_per_token); 0 for 0 code points. */
long tokens_estimate(size_t code_points, double chars_per_token);
/* The most code points whose estimate is at most `tokens` (0 when tokens <= 0).
 * tokens_estimate(tokens_code_point_room(t, c), c) <= t always holds. */
size_t tokens_code_point_room(long tokens, double chars_per_token);
/* Estimate of s[0..n) (counts its code points). */
long tokens_of_text(const char *s, size_t n, double chars_per_token);

/* Parses a token count: "128000", "128,000", "100k", "1.5M". false if not one. */
bool parse_token_count(const char *text, long *out);

#endif
