/*
 * The search API (contract §4.11, behaviour notes §4.1-4.2): its routes,
 * answered on every host (the API host and every docs host, under /_/),
 * and their handlers.
 */
#ifndef LECTERN_SRV_SEARCH_API_H
#define LECTERN_SRV_SEARCH_API_H

#include "handler.h"

/* /api/v2/search/, /_/api/v2/search/, /api/v3/search/, /_/api/v3/search/ */
extern const struct srv_route srv_search_routes[];
extern const size_t srv_search_route_count;

/* GET ?q=&project=&version=&page=&page_size= */
int srv_search_v2(struct srv_request *req, struct srv_response *res);
/* GET ?q=project:<slug>[/<version>] subprojects:... user:@me <text> */
int srv_search_v3(struct srv_request *req, struct srv_response *res);

#endif
