/* isotime.c: ISO 8601 times (a date, optionally a time with seconds,
 * fraction and a Z or +hh:mm offset; no offset reads as UTC) parsed to
 * milliseconds since 1970. Shared by the kinds that read times. */
#include "base/isotime.h"

static long long days_from_civil(long y, unsigned mo, unsigned d)
{
	y -= mo <= 2;
	long era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (mo + (mo > 2 ? (unsigned)-3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (long long)era * 146097 + (long long)doe - 719468;
}

static bool digits(const char **s, int n, long *out)
{
	long v = 0;
	for (int i = 0; i < n; i++) {
		if ((*s)[i] < '0' || (*s)[i] > '9')
			return false;
		v = v * 10 + ((*s)[i] - '0');
	}
	*s += n;
	*out = v;
	return true;
}

bool iso_time_parse(const char *s, long long *out_ms)
{
	long y, mo, d, h = 0, mi = 0, sec = 0, ms = 0;
	if (!digits(&s, 4, &y) || *s++ != '-' || !digits(&s, 2, &mo) || *s++ != '-' || !digits(&s, 2, &d))
		return false;
	if (mo < 1 || mo > 12 || d < 1 || d > 31)
		return false;
	long offset_min = 0;
	if (*s == 'T' || *s == 't' || *s == ' ') {
		s++;
		if (!digits(&s, 2, &h) || *s++ != ':' || !digits(&s, 2, &mi))
			return false;
		if (*s == ':') {
			s++;
			if (!digits(&s, 2, &sec))
				return false;
			if (*s == '.' || *s == ',') {
				s++;
				int n = 0;
				for (; *s >= '0' && *s <= '9'; s++, n++)
					if (n < 3)
						ms = ms * 10 + (*s - '0');
				if (n == 0)
					return false;
				for (; n < 3; n++)
					ms *= 10;
			}
		}
		if (h > 23 || mi > 59 || sec > 60)
			return false;
		if (*s == 'Z' || *s == 'z') {
			s++;
		} else if (*s == '+' || *s == '-') {
			int sign = *s++ == '-' ? -1 : 1;
			long oh, om = 0;
			if (!digits(&s, 2, &oh))
				return false;
			if (*s == ':')
				s++;
			if (*s && !digits(&s, 2, &om))
				return false;
			offset_min = sign * (oh * 60 + om);
		}
	}
	if (*s)
		return false;
	long long days = days_from_civil(y, (unsigned)mo, (unsigned)d);
	*out_ms = ((days * 86400 + h * 3600 + mi * 60 + sec) - offset_min * 60LL) * 1000 + ms;
	return true;
}
