/*
 * ISO 8601 formatting of stored times (integer microseconds, UTC), matching
 * Python's isoformat() as the service's API renders it.
 */
#include <stdio.h>
#include <time.h>

#include "internal.h"
#include "lectern/timefmt.h"

static void format(int64_t us, char out[LEC_TIME_ISO_MAX], const char *zone)
{
	int64_t secs = us / 1000000;
	int64_t frac = us % 1000000;
	time_t t;
	struct tm tm;
	/* Wide enough for any int fields, so the compiler can see no
	 * truncation; real dates need 27 bytes. */
	char buf[128];

	if (frac < 0) {
		frac += 1000000;
		secs -= 1;
	}
	t = (time_t)secs;
	gmtime_r(&t, &tm);
	if (frac)
		snprintf(buf, sizeof(buf),
			 "%04d-%02d-%02dT%02d:%02d:%02d.%06ld%s",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			 tm.tm_hour, tm.tm_min, tm.tm_sec, (long)frac, zone);
	else
		snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d%s",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			 tm.tm_hour, tm.tm_min, tm.tm_sec, zone);
	snprintf(out, LEC_TIME_ISO_MAX, "%.39s", buf);
}

void lec_time_iso8601(int64_t us, char out[LEC_TIME_ISO_MAX])
{
	format(us, out, "Z");
}

void lec_time_iso8601_naive(int64_t us, char out[LEC_TIME_ISO_MAX])
{
	format(us, out, "");
}

int64_t lec_time_now(void)
{
	return lec__now_us();
}
