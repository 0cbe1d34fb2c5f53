/*
 * v3 versions: scaffold.
 */
#include "v3.h"

int srv_v3_versions_list(struct srv_request *req, struct srv_response *res)
{
	(void)req;
	return srv_respond_detail(res, 501, "Not implemented.");
}

int srv_v3_version_detail(struct srv_request *req, struct srv_response *res)
{
	(void)req;
	return srv_respond_detail(res, 501, "Not implemented.");
}

int srv_v3_version_update(struct srv_request *req, struct srv_response *res)
{
	(void)req;
	return srv_respond_detail(res, 501, "Not implemented.");
}

int srv_v3_project_sync_versions(struct srv_request *req,
				 struct srv_response *res)
{
	(void)req;
	return srv_respond_detail(res, 501, "Not implemented.");
}
