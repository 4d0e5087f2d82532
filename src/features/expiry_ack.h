/* expiry_ack: acknowledged delivery of the 0MQ expiry push (zmq-expiry-ack
 * yes). expiry_push serializes each message and binds the endpoints; this
 * module numbers the messages, hands them to consumers within the window each
 * asked for, keeps every one until it is acknowledged and re-sends those of a
 * consumer that went silent or restarted. The protocol is in EXPIRY_0MQ.md. */
#ifndef FEATURES_EXPIRY_ACK_H
#define FEATURES_EXPIRY_ACK_H

#include <stddef.h>

#include "core/sds.h"
#include "features/expiry_spool.h"

/* The ROUTER socket messages go out on (NULL: none; what was held stays). */
void expiryAckSetSocket(void *sock);
/* A new message: the three frames back to back in frames (header, key of
 * keyframe_len bytes, value of valframe_len bytes), copied. 0 when held (and
 * sent if a consumer has room), -1 when holding it would pass
 * zmq-expiry-backlog: the caller counts the drop. */
int expiryAckOffer(const unsigned char *frames, size_t keyframe_len, size_t valframe_len);
/* The socket's fd fired: consumers' READY and ACK are read, messages sent. */
void expiryAckSocketEvent(void);
/* Consumers silent past zmq-expiry-ack-timeout lose their messages to others. */
void expiryAckCron(void);
/* Every held message leaves memory (endpoints removed): how many of them the
 * spool does not hold (lost). */
unsigned long long expiryAckDiscard(void);
/* At shutdown: held messages the spool does not hold yet are appended to it;
 * those it cannot take are counted and returned (lost). */
unsigned long long expiryAckKeepForRestart(void);
/* Messages held (not acknowledged yet) and their bytes; messages sent
 * (re-sends included) and their frame bytes. */
unsigned long long expiryAckHeldMessages(void);
unsigned long long expiryAckHeldBytes(void);
unsigned long long expiryAckSentMessages(void);
unsigned long long expiryAckSentBytes(void);
/* The INFO fields of ack mode. */
sds expiryAckInfo(sds s);

#endif
