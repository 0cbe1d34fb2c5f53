/*
 * What the commit statuses (commit_status.c) need of an integration that
 * no public call gives: its forge token, opened. Nothing else reads a
 * token back.
 */
#ifndef LECTERN_INTEGRATION_INTERNAL_H
#define LECTERN_INTEGRATION_INTERNAL_H

#include <stddef.h>

#include "lectern/integration.h"

/* The integration's forge token (owned by the caller: free with
 * lec__secret_free(*token, *len + 1)). LEC_ENOTFOUND when it has none;
 * LEC_ECORRUPT when it does not open. */
int lec__integration_token(struct lec_store *st,
			   const struct lec_integration *in, char **token,
			   size_t *len);

#endif
