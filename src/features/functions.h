/* functions: the FUNCTION library registry. Persistence and replication reach
 * it only through persist/libstore.h (RDB files, FUNCTION DUMP payloads, the
 * AOF and full syncs carry libraries only as their code); the script runner
 * (scripting.c) starts the registry and asks what a function declares. */
#ifndef FEATURES_FUNCTIONS_H
#define FEATURES_FUNCTIONS_H

#include "data/object.h"
#include "persist/libstore.h"

#include <stddef.h>

/* What the libraries take: counts, the bytes of their Lua interpreter and of
 * the registry itself (names, code, tables), for INFO memory and MEMORY STATS. */
typedef struct functionsMemory {
    size_t functions, libraries, vm_bytes, registry_bytes;
} functionsMemory;
void functionsGetMemory(functionsMemory *fm);
/* What persistence and replication need of the registry (persist/libstore.h):
 * creating a library from its code, listing every library's code, emptying
 * it, and setting the libraries in use aside while a replica loads its
 * master's snapshot (repl-diskless-load swapdb; a failed load puts them back).
 * main.c registers it. */
extern const libraryStore functionsLibraryStore;
/* Removes every library, as FUNCTION FLUSH does. */
void functionsFlushAll(void);
void functionsInit(void); /* called by scriptingInit */
/* The flags a function declares (with SCRIPT_FLAG_SHEBANG), 0 if there is none by that name. */
int functionDeclaredFlags(robj *name);

#endif
