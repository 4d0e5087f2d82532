/* zmqlib: libzmq loaded with dlopen the first time it is needed.
 *
 * Debian's libzmq brings libstdc++, Kerberos (gssapi, krb5, k5crypto),
 * libsodium, libpgm, libnorm and libbsd: the pages of them that loading and
 * starting 0MQ touch are 3.3 MB of RSS, more than the rest of an empty server
 * (its context and I/O thread add 0.7 MB). Most servers configure no
 * endpoint (the built-in default has none); those never load it. */
#include "features/zmqlib.h"

#include <dlfcn.h>
#include <stdio.h>

/* libzmq 4.x (the zmq.h we compile against) has had this soname, ABI 5, since 4.0. */
#if ZMQ_VERSION_MAJOR != 4
#error "zmqlib.c loads libzmq.so.5, the library of libzmq 4.x"
#endif
#define ZMQ_LIBRARY "libzmq.so.5"

zmqLib zmqlib;

static void *handle;

static char why[512];

static int missing(const char *func, const char **err) {
    snprintf(why, sizeof(why), "%s has no %s", ZMQ_LIBRARY, func);
    *err = why;
    return 0;
}

int zmqLibLoad(const char **err) {
    if (zmqlib.send) return 1;
    if (!handle) handle = dlopen(ZMQ_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(why, sizeof(why), "can't load %s, which the 0MQ expiry push needs: %s", ZMQ_LIBRARY, dlerror());
        *err = why;
        return 0;
    }
    zmqLib lib;
    /* POSIX defines dlsym's pointer as convertible to a function pointer. */
#define LOAD(field)                                                                                                    \
    if (!(lib.field = (__typeof__(lib.field))dlsym(handle, "zmq_" #field))) return missing("zmq_" #field, err)
    LOAD(ctx_new);
    LOAD(ctx_term);
    LOAD(socket);
    LOAD(close);
    LOAD(setsockopt);
    LOAD(getsockopt);
    LOAD(bind);
    LOAD(unbind);
    LOAD(strerror);
    LOAD(recv);
    LOAD(send);
#undef LOAD
    zmqlib = lib; /* published only once every function was found */
    return 1;
}
