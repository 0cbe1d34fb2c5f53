/* Scaffold (temporary). */
#include "v3.h"
int srv_v3_envvars_list(struct srv_request *req, struct srv_response *res) { (void)req; return srv_respond_detail(res, 501, "Not implemented."); }
int srv_v3_envvars_create(struct srv_request *req, struct srv_response *res) { (void)req; return srv_respond_detail(res, 501, "Not implemented."); }
int srv_v3_envvar_detail(struct srv_request *req, struct srv_response *res) { (void)req; return srv_respond_detail(res, 501, "Not implemented."); }
int srv_v3_envvar_delete(struct srv_request *req, struct srv_response *res) { (void)req; return srv_respond_detail(res, 501, "Not implemented."); }
