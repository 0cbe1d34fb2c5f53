/*
 * What the checks of `.readthedocs.yaml` (rtdconfig.c) share with the
 * file's other parts: its JSON (rtdconfig_json.c) renders the formats and
 * the jobs the checks know by the same names.
 */
#ifndef LECTERN_RTDCONFIG_INTERNAL_H
#define LECTERN_RTDCONFIG_INTERNAL_H

#include "lectern/rtdconfig.h"

/* The extra formats in the order the service lists them for "all", and
 * their LEC_FORMAT_* bits. */
#define LEC_RTD__FORMATS 3
extern const char *const lec_rtd__format_names[LEC_RTD__FORMATS];
extern const unsigned lec_rtd__format_bits[LEC_RTD__FORMATS];

/* Jobs that replace a default step: with them and no sphinx/mkdocs key the
 * doc type is generic (notes §5.4), and unset they are null in the JSON. */
#define LEC_RTD__NEW_JOBS                                                    \
	((1u << LEC_RTD_JOB_CREATE_ENVIRONMENT) | (1u << LEC_RTD_JOB_INSTALL) | \
	 (1u << LEC_RTD_JOB_BUILD_HTML) | (1u << LEC_RTD_JOB_BUILD_PDF) |       \
	 (1u << LEC_RTD_JOB_BUILD_EPUB) | (1u << LEC_RTD_JOB_BUILD_HTMLZIP))

#endif
