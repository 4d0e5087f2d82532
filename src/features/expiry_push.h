/* expiry_push: the 0MQ expiry push (EXPIRY_0MQ.md). Every key removed by
 * expiry is handed here with its value; enabled types are serialized into a
 * three-frame message and sent on the bound PUSH socket without ever blocking
 * the event loop (a bounded in-memory backlog absorbs a slow consumer). */
#ifndef FEATURES_EXPIRY_PUSH_H
#define FEATURES_EXPIRY_PUSH_H

#include "server/keyhook.h"

void expiryPushKey(int dbid, robj *key, robj *val);
/* Subscribed to the key-change hook: a key leaving by expiry (which only a
 * master does) is pushed with its value, still in the db when `expired` is raised. */
void expiryPushKeyspaceSubscriber(const keyspaceEvent *ev); /* wants NOTIFY_EXPIRED */
/* The config apply hook of the zmq-expiry-* directives. */
int expiryPushApplyHook(const char **err);
/* Config apply hook of zmq-expiry-ack: the value in use only, once running. */
int expiryPushApplyAckMode(const char **err);
/* True when 0MQ took messages in the last few ms: a consumer is taking them,
 * and 0MQ's I/O thread and the consumer are busy with them. */
int expiryPushFeeding(void);
/* True while the backlog is draining: 0MQ takes messages, and more wait. */
int expiryPushDraining(void);
/* True while expiry should leave due keys in the dataset (plain mode): a
 * consumer is being fed and 0MQ's queue is full, with a few messages in the
 * backlog. Its drain resumes expiry (expireResume) once they are out. */
int expiryPushHolding(void);
/* An expiry slice begins and ends: plain mode hands the slice's messages to
 * 0MQ in batches (see expiry_push.c, "Batches"), the last at the end. */
void expiryPushRunBegin(void);
void expiryPushRunEnd(void);
/* (Re)binds the endpoints and applies HWM/backlog from the server's zmq_* config.
 * On failure nothing changes, *err says why, and C_ERR is returned. */
int expiryPushApplyConfig(const char **err);
/* Called once the event loop exists (after a daemonizing fork): binds the
 * endpoints that the config only test-bound. Exits if one cannot be bound. */
void expiryPushInit(void);
/* At shutdown: hands what it can of the backlog to 0MQ, closes the socket
 * (waiting at most a second for queued messages to reach consumers). */
void expiryPushShutdown(void);
/* The cron's part: a drop warning the rate limit held back is written with
 * the running total once the period is over. */
void expiryPushCron(void);
/* Appends the "# Expiry_push" INFO section. */
sds expiryPushInfo(sds s);

#endif
