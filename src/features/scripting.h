/* scripting: Lua 5.1 scripts — EVAL/EVALSHA(_RO), SCRIPT, the redis.* API,
 * the sandbox, busy-script handling. */
#ifndef FEATURES_SCRIPTING_H
#define FEATURES_SCRIPTING_H

#include "server/server.h"

void scriptingInit(void);
/* A script has been running past busy-reply-threshold: other clients get -BUSY. */
int scriptIsTimedout(void);
int scriptIsRunning(void);
/* Before BUSY is answered: commands allowed while a script is stuck. */
int scriptAllowsWhileBusy(client *c);

#endif
