/* Scaffold (temporary). */
#include "v3.h"
int srv_v3_redirects_list(struct srv_request *req, struct srv_response *res) { (void)req; return srv_respond_detail(res, 501, "Not implemented."); }
int srv_v3_redirects_create(struct srv_request *req, struct srv_response *res) { (void)req; return srv_respond_detail(res, 501, "Not implemented."); }
int srv_v3_redirect_detail(struct srv_request *req, struct srv_response *res) { (void)req; return srv_respond_detail(res, 501, "Not implemented."); }
int srv_v3_redirect_put(struct srv_request *req, struct srv_response *res) { (void)req; return srv_respond_detail(res, 501, "Not implemented."); }
int srv_v3_redirect_patch(struct srv_request *req, struct srv_response *res) { (void)req; return srv_respond_detail(res, 501, "Not implemented."); }
int srv_v3_redirect_delete(struct srv_request *req, struct srv_response *res) { (void)req; return srv_respond_detail(res, 501, "Not implemented."); }
