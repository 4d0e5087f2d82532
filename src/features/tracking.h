/* tracking: client-side caching (CLIENT TRACKING) as Redis 7.0 has it. */
#ifndef FEATURES_TRACKING_H
#define FEATURES_TRACKING_H

#include "server/hooks.h"
#include "server/keyhook.h"

/* Wiring (main.c). */
void trackingKeyspaceSubscriber(const keyspaceEvent *ev); /* invalidates changed keys, once tracking was used */
void trackingCallObserver(const callInfo *ci);            /* remembers keys read; sends deferred invalidations */
void trackingCommandPrelude(client *c);                   /* keeps the table within tracking-table-max-keys */
void trackingCron(void);
void trackingBeforeSleep(void);                           /* BCAST invalidations of the loop's changes */
void trackingClientTeardown(client *c);

/* CLIENT TRACKING off (RESET). */
void trackingDisable(client *c);

/* INFO. */
unsigned long long trackingClientsCount(void);
unsigned long long trackingGetTotalKeys(void);
unsigned long long trackingGetTotalItems(void);
unsigned long long trackingGetTotalPrefixes(void);

#endif
