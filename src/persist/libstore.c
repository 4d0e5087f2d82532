/* libstore: the registration point of libstore.h, forwarding to the function
 * registry main.c wires in. */
#include "persist/libstore.h"

#include <stddef.h>

static const libraryStore *store;

void persistSetLibraryStore(const libraryStore *s) { store = s; }

sds librariesCreate(sds code, int replace) {
    return store ? store->create(code, replace) : sdsnew("this server has no function libraries");
}

int librariesForEachCode(int (*fn)(void *ctx, sds code), void *ctx) {
    return store ? store->for_each_code(fn, ctx) : 1;
}

void librariesFlushAll(void) {
    if (store) store->flush_all();
}

librarySet *librariesSetAside(librarySet *set) { return store ? store->set_aside(set) : NULL; }

void librariesFreeSet(librarySet *set) {
    if (store) store->free_set(set);
}
