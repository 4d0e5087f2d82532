/* access: the registration point through which server/ (and the rooms beside
 * acl/) ask access control about a client — may it run this command on these
 * keys and channels, who is it, does this password log it in. acl/ fills the
 * hooks at start-up; server/ never includes acl/ headers. Until hooks are set
 * every client is an unrestricted, authenticated user. */
#ifndef SERVER_ACCESS_H
#define SERVER_ACCESS_H

#include "server/server.h"

/* Why a command was refused (the order matters: a higher reason is the more
 * specific one when several selectors refuse, as in Redis). */
#define ACCESS_OK 0
#define ACCESS_DENIED_CMD 1
#define ACCESS_DENIED_KEY 2
#define ACCESS_DENIED_AUTH 3
#define ACCESS_DENIED_CHANNEL 4

/* Where the refused command came from (ACL LOG "context"). */
#define ACCESS_CTX_TOPLEVEL 0
#define ACCESS_CTX_MULTI 1
#define ACCESS_CTX_LUA 2

typedef struct accessHooks {
    /* ACCESS_OK, or the reason with *errpos set to the refused argv index. */
    int (*check)(client *c, struct redisCommand *cmd, robj **argv, int argc, int *errpos);
    /* Records a refusal in the ACL log; argv/cmd are those that were refused. */
    void (*logDenial)(client *c, int reason, int context, struct redisCommand *cmd, robj **argv, int errpos);
    int (*authenticate)(client *c, robj *username, robj *password); /* C_OK or C_ERR (logged) */
    void (*setDefaultUser)(client *c);  /* new or RESET connections */
    int (*authRequired)(client *c);
    const char *(*userName)(client *c); /* CLIENT LIST user= */
    void *(*lookupUser)(const char *name, size_t len);
    /* SORT BY/GET: may the client read any key with this command? */
    int (*fullKeyAccess)(client *c);
    /* sanitize-dump-payload clients: does its user skip the deep check
     * (the skip-sanitize-payload flag)? */
    int (*skipsSanitize)(client *c);
} accessHooks;

void accessRegister(const accessHooks *hooks);

int accessCheck(client *c, struct redisCommand *cmd, robj **argv, int argc, int *errpos);
void accessLogDenial(client *c, int reason, int context, struct redisCommand *cmd, robj **argv, int errpos);
int accessAuthenticate(client *c, robj *username, robj *password);
void accessSetDefaultUser(client *c);
int accessAuthRequired(client *c);
const char *accessUserName(client *c);
void *accessLookupUser(const char *name, size_t len);
int accessFullKeyAccess(client *c);
int accessSkipsSanitize(client *c);

#endif
