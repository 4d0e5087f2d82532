/* functions: the FUNCTION library registry. Persistence needs creating a
 * library from its code, listing every library's code and emptying the
 * registry (RDB files, FUNCTION DUMP payloads and the AOF carry libraries
 * only as their code); the script runner (scripting.c) starts the registry
 * and asks what a function declares. */
#ifndef FEATURES_FUNCTIONS_H
#define FEATURES_FUNCTIONS_H

#include "data/object.h"

#include <stddef.h>

/* Creates a library from its code with FUNCTION LOAD's validation (replace:
 * as FUNCTION LOAD REPLACE). NULL on success, else the error text. */
sds functionsCreateLibrary(sds code, int replace);
/* Calls fn with each library's code until fn returns 0. 1 if every call succeeded. */
int functionsForEachLibraryCode(int (*fn)(void *ctx, sds code), void *ctx);
/* What the libraries take: counts, the bytes of their Lua interpreter and of
 * the registry itself (names, code, tables), for INFO memory and MEMORY STATS. */
typedef struct functionsMemory {
    size_t functions, libraries, vm_bytes, registry_bytes;
} functionsMemory;
void functionsGetMemory(functionsMemory *fm);
/* The libraries in use can be set aside, as the dbs are, while a replica
 * loads its master's snapshot (repl-diskless-load swapdb): a failed load
 * puts them back. functionsSetAside(NULL) leaves an empty set in use and
 * returns the old one; functionsSetAside(set) puts set in use and returns
 * the one it replaces; functionsFreeSet frees a set aside. */
typedef struct registry functionsSet;
functionsSet *functionsSetAside(functionsSet *set);
void functionsFreeSet(functionsSet *set);
/* Removes every library, as FUNCTION FLUSH does. */
void functionsFlushAll(void);
void functionsInit(void); /* called by scriptingInit */
/* The flags a function declares (with SCRIPT_FLAG_SHEBANG), 0 if there is none by that name. */
int functionDeclaredFlags(robj *name);

#endif
