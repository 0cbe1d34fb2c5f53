/*
 * v3 builds: scaffold.
 */
#include "v3.h"

int srv_v3_builds_list(struct srv_request *req, struct srv_response *res)
{
	(void)req;
	return srv_respond_detail(res, 501, "Not implemented.");
}

int srv_v3_build_detail(struct srv_request *req, struct srv_response *res)
{
	(void)req;
	return srv_respond_detail(res, 501, "Not implemented.");
}

int srv_v3_version_builds_list(struct srv_request *req,
			       struct srv_response *res)
{
	(void)req;
	return srv_respond_detail(res, 501, "Not implemented.");
}

int srv_v3_version_build_detail(struct srv_request *req,
				struct srv_response *res)
{
	(void)req;
	return srv_respond_detail(res, 501, "Not implemented.");
}

int srv_v3_build_trigger(struct srv_request *req, struct srv_response *res)
{
	(void)req;
	return srv_respond_detail(res, 501, "Not implemented.");
}
