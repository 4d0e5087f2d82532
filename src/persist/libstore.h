/* libstore: the function libraries as persistence and replication carry
 * them, as their code. RDB files, FUNCTION DUMP payloads, the AOF and a
 * replica's full sync hold libraries only as code, so this room needs four
 * things of the registry: create a library from code, list every library's
 * code, empty it, and set the libraries in use aside (and back) while a
 * replica loads its master's snapshot. The registry itself is a feature
 * above (features/functions.c, it compiles Lua); it registers here and
 * main.c does the wiring, so persist/ and repl/ never include it. */
#ifndef PERSIST_LIBSTORE_H
#define PERSIST_LIBSTORE_H

#include "core/sds.h"

typedef struct librarySet librarySet; /* the registry's own set of libraries */

typedef struct libraryStore {
    /* FUNCTION LOAD [REPLACE] of code: NULL on success, else the error text. */
    sds (*create)(sds code, int replace);
    /* Calls fn with each library's code until fn returns 0; 1 if every call succeeded. */
    int (*for_each_code)(int (*fn)(void *ctx, sds code), void *ctx);
    /* FUNCTION FLUSH. */
    void (*flush_all)(void);
    /* set_aside(NULL): an empty set in use, the old one returned; set_aside(s): s in
     * use, the one it replaces returned. free_set frees a set aside. */
    librarySet *(*set_aside)(librarySet *set);
    void (*free_set)(librarySet *set);
} libraryStore;

void persistSetLibraryStore(const libraryStore *store);

/* The registered store's operations; without one there are no libraries
 * (nothing listed, a library to create is refused). */
sds librariesCreate(sds code, int replace);
int librariesForEachCode(int (*fn)(void *ctx, sds code), void *ctx);
void librariesFlushAll(void);
librarySet *librariesSetAside(librarySet *set);
void librariesFreeSet(librarySet *set);

#endif
