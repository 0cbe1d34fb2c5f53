/*
 * A map from byte strings to pointers, for lookups whose count a client
 * chooses (the fields of a form body): each lookup takes constant time on
 * average however many keys there are, and the hash is keyed with a
 * random number per process, so a client cannot choose keys that collide.
 */
#ifndef LECTERN_SRV_KEYMAP_H
#define LECTERN_SRV_KEYMAP_H

#include <stddef.h>

struct srv_keymap_slot;

/* Zero-initialised: an empty map. */
struct srv_keymap {
	struct srv_keymap_slot *slots;
	size_t cap; /* a power of two, or 0 */
	size_t len;
};

/* The value stored under the n bytes of key, or NULL. */
void *srv_keymap_get(const struct srv_keymap *m, const char *key, size_t n);
/* Store value (not NULL) under a copy of the n bytes of key, which must not
 * be in the map yet. 0, or -1 when out of memory (the map is unchanged). */
int srv_keymap_put(struct srv_keymap *m, const char *key, size_t n,
		   void *value);
/* Free the map's keys and slots (not the values); the map is empty again. */
void srv_keymap_dispose(struct srv_keymap *m);

#endif
