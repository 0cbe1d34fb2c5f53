/*
 * Datetimes as the service writes them: ISO 8601 in UTC with a trailing Z,
 * the fraction omitted when it is zero and six digits otherwise
 * ("2019-04-29T10:00:00Z", "2019-02-22T21:54:52.768630Z").
 */
#ifndef LECTERN_TIMEFMT_H
#define LECTERN_TIMEFMT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Room for "YYYY-MM-DDTHH:MM:SS.ffffffZ" and a NUL, with margin. */
#define LEC_TIME_ISO_MAX 40

/** Format microseconds since the epoch into out. */
void lec_time_iso8601(int64_t us, char out[LEC_TIME_ISO_MAX]);

/** The same without the Z (the v2 API's form). */
void lec_time_iso8601_naive(int64_t us, char out[LEC_TIME_ISO_MAX]);

/** Microseconds since the epoch, now. */
int64_t lec_time_now(void);

#ifdef __cplusplus
}
#endif
#endif
