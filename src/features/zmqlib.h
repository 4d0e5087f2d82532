/* zmqlib: libzmq, loaded when the first 0MQ expiry endpoint is configured.
 * A server that pushes nothing does not map libzmq and the libraries it pulls
 * in (see zmqlib.c); expiry_push calls 0MQ only through these pointers. */
#ifndef FEATURES_ZMQLIB_H
#define FEATURES_ZMQLIB_H

#include <stddef.h>
#include <zmq.h>

typedef struct zmqLib {
    __typeof__(zmq_ctx_new) *ctx_new;
    __typeof__(zmq_ctx_term) *ctx_term;
    __typeof__(zmq_socket) *socket;
    __typeof__(zmq_close) *close;
    __typeof__(zmq_setsockopt) *setsockopt;
    __typeof__(zmq_getsockopt) *getsockopt;
    __typeof__(zmq_bind) *bind;
    __typeof__(zmq_unbind) *unbind;
    __typeof__(zmq_send) *send;
    __typeof__(zmq_recv) *recv;
    __typeof__(zmq_strerror) *strerror;
} zmqLib;

/* Filled by zmqLibLoad(); all NULL before. */
extern zmqLib zmqlib;

/* Loads libzmq once (later calls return at once): 1, or 0 with *err saying
 * why (the library is missing, or lacks a function). */
int zmqLibLoad(const char **err);

#endif
