/* tokens/estimate.c: the seeds' token estimate (see tokens/estimate.h). */
#include "tokens/estimate.h"

#include "base/utf8.h"

#include <math.h>
#include <stdlib.h>

long tokens_estimate(size_t code_points, double cpt)
{
	if (code_points == 0)
		return 0;
	double whole = floor(cpt);
	if (whole == cpt) {
		size_t c = (size_t)whole;
		return (long)((code_points + c - 1) / c);
	}
	/* A fractional setting: ceil with a tolerance so 33 / 3.3 is 10, not 11. */
	double v = (double)code_points / cpt;
	double r = round(v);
	if (fabs(v - r) < 1e-9 * (v > 1 ? v : 1))
		return (long)r;
	return (long)ceil(v);
}

size_t tokens_code_point_room(long tokens, double cpt)
{
	if (tokens <= 0)
		return 0;
	size_t room = (size_t)floor((double)tokens * cpt + 1e-9);
	while (tokens_estimate(room + 1, cpt) <= tokens)
		room++;
	while (room > 0 && tokens_estimate(room, cpt) > tokens)
		room--;
	return room;
}

long tokens_of_text(const char *s, size_t n, double cpt)
{
	return tokens_estimate(utf8_count_code_points(s, n), cpt);
}

bool parse_token_count(const char *text, long *out)
{
	char digits[64];
	size_t n = 0;
	for (const char *p = text; *p && n + 1 < sizeof digits; p++)
		if (*p != ',' && *p != '_')
			digits[n++] = *p;
	digits[n] = '\0';
	if (n == 0 || n + 1 >= sizeof digits)
		return false;
	char *end;
	double v = strtod(digits, &end);
	double mult = 1;
	if (*end == 'k' || *end == 'K')
		mult = 1e3, end++;
	else if (*end == 'm' || *end == 'M')
		mult = 1e6, end++;
	if (*end != '\0' || !isfinite(v) || v < 0 || v * mult > 1e12 || end == digits)
		return false;
	*out = (long)llround(v * mult);
	return true;
}
