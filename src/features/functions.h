/* functions: what persistence needs from the FUNCTION library registry —
 * creating a library from its code, listing every library's code, emptying
 * the registry. RDB files, FUNCTION DUMP payloads and the AOF carry libraries
 * only as their code, so these are the whole interface. */
#ifndef FEATURES_FUNCTIONS_H
#define FEATURES_FUNCTIONS_H

#include "core/sds.h"

/* Creates a library from its code with FUNCTION LOAD's validation (replace:
 * as FUNCTION LOAD REPLACE). NULL on success, else the error text. */
sds functionsCreateLibrary(sds code, int replace);
/* Calls fn with each library's code until fn returns 0. 1 if every call succeeded. */
int functionsForEachLibraryCode(int (*fn)(void *ctx, sds code), void *ctx);
/* Removes every library, as FUNCTION FLUSH does. */
void functionsFlushAll(void);

#endif
