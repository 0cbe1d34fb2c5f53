/*
 * The embed API's handlers (embed_api.c): /api/v2/embed/ and /api/v3/embed/,
 * registered in the v2 and v3 route tables.
 */
#ifndef LECTERN_SRV_EMBED_API_H
#define LECTERN_SRV_EMBED_API_H

#include "handler.h"

/* GET /api/v2/embed/?url= | project=&version=&doc=&path=, &section= */
int srv_embed_v2(struct srv_request *req, struct srv_response *res);
/* GET /api/v3/embed/?url=&doctool=&maincontent= */
int srv_embed_v3(struct srv_request *req, struct srv_response *res);

#endif
