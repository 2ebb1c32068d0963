/* time.c (loom): a loom tree's times: ISO 8601 parsed to epoch milliseconds, and "3 minutes ago". */
#include "loom.h"

#include "base/isotime.h"

#include <stdio.h>

/* ---- time ---------------------------------------------------------------- */

bool loom_parse_time(const char *s, long long *out_ms)
{
	return iso_time_parse(s, out_ms);
}

const char *loom_relative_time(char buf[32], long long ms, long long now_ms)
{
	long long s = (now_ms - ms) / 1000;
	const char *unit;
	long long n;
	if (s < 0) {
		snprintf(buf, 32, "later");
		return buf;
	}
	if (s < 60) {
		snprintf(buf, 32, "just now");
		return buf;
	}
	if (s < 3600)
		n = s / 60, unit = "minute";
	else if (s < 86400)
		n = s / 3600, unit = "hour";
	else
		n = s / 86400, unit = "day";
	snprintf(buf, 32, "%lld %s%s ago", n, unit, n == 1 ? "" : "s");
	return buf;
}
