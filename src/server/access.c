/* access: forwards server/'s questions about a client's permissions to the
 * hooks access control registered (see access.h), with the answers of an
 * open server when none did. */
#include "server/access.h"

static accessHooks hooks;

void accessRegister(const accessHooks *h) { hooks = *h; }

int accessCheck(client *c, struct redisCommand *cmd, robj **argv, int argc, int *errpos) {
    *errpos = 0;
    return hooks.check ? hooks.check(c, cmd, argv, argc, errpos) : ACCESS_OK;
}

void accessLogDenial(client *c, int reason, int context, struct redisCommand *cmd, robj **argv, int errpos) {
    if (hooks.logDenial) hooks.logDenial(c, reason, context, cmd, argv, errpos);
}

int accessAuthenticate(client *c, robj *username, robj *password) {
    return hooks.authenticate ? hooks.authenticate(c, username, password) : C_ERR;
}

void accessSetDefaultUser(client *c) {
    if (hooks.setDefaultUser) hooks.setDefaultUser(c);
    else c->authenticated = 1;
}

/* An authenticated client never needs to: asked per request and per
 * argument, so the common case costs one test. */
int accessAuthRequired(client *c) {
    if (c->authenticated) return 0;
    return hooks.authRequired ? hooks.authRequired(c) : 1;
}

const char *accessUserName(client *c) { return hooks.userName ? hooks.userName(c) : "default"; }

void *accessLookupUser(const char *name, size_t len) { return hooks.lookupUser ? hooks.lookupUser(name, len) : NULL; }

int accessFullKeyAccess(client *c) { return hooks.fullKeyAccess ? hooks.fullKeyAccess(c) : 1; }
int accessSkipsSanitize(client *c) { return hooks.skipsSanitize ? hooks.skipsSanitize(c) : 0; }
