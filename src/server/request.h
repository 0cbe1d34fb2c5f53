/*
 * The site: what every request of one server shares and the accessors
 * (request.c) read through req->site: the configuration, the names links
 * are built from, and the keys of each thread's store handle and response
 * cache. The daemon (server.c) sets it up and owns it; the accessors' own
 * declarations are in handler.h, with the request they read.
 */
#ifndef LECTERN_SRV_REQUEST_H
#define LECTERN_SRV_REQUEST_H

#include <pthread.h>
#include <stdatomic.h>

#include "server.h"
#include "throttle.h"

struct srv_site {
	struct srv_config config;
	char *data_dir;          /* owned copy of config.data_dir */
	/* The docs domain builds bake into pages: the configured one, else
	 * "localhost[:<port>]"; set by the daemon once it has a port. */
	char *docs_domain;
	/* Likewise where pull requests' previews are: "external." and that. */
	char *external_domain;
	char base_url[128];      /* the listening address, for links */
	pthread_key_t store_key; /* each thread's store handle */
	pthread_key_t cache_key; /* each thread's response cache */
	int keys;                /* keys created: 0, 1 (store) or 2 */
	struct srv_throttle imports; /* each user's import rate */
	/* The build workers beside the server (srv_set_workers), -1 until
	 * the pipeline has started: written once by the daemon's starter,
	 * read by every request. */
	atomic_int workers;
};

/* Copy config, start the import throttle and create the per-thread keys. Returns 0, or -1 when out
 * of memory or keys (what was set up is undone by srv_site_dispose). */
int srv_site_init(struct srv_site *site, const struct srv_config *config);
/* Delete the keys, free the names and stop the throttle. Call once every thread that used
 * the site has exited (each thread's store and cache are freed as it
 * exits). */
void srv_site_dispose(struct srv_site *site);

#endif
