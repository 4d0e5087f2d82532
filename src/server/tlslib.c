/* tlslib: OpenSSL loaded with dlopen the first time TLS is configured.
 *
 * Measured on Debian 12 (OpenSSL 3.0): an empty server's RSS is 5.35 MB;
 * with libssl.so.3 and libcrypto.so.3 merely mapped and relocated (as
 * linking them would do) it is 6.93 MB, 1.6 MB more, before any TLS is
 * configured. Most servers never configure TLS, so the libraries are loaded
 * only when tls-port, tls-replication or tls-cluster asks for them (as
 * libzmq is, features/zmqlib.c); only OpenSSL's headers are needed to build. */
#include "server/tlslib.h"

#include <dlfcn.h>
#include <stdio.h>

/* OpenSSL 3.x: its libraries' sonames are .so.3 (the ABI the headers describe). */
#if OPENSSL_VERSION_MAJOR != 3
#error "tlslib.c loads libssl.so.3 and libcrypto.so.3, the libraries of OpenSSL 3.x"
#endif

tlsLib tlslib;

static char why[512];

int tlsLibLoad(const char **err) {
    static void *ssl, *crypto;
    if (tlslib.SSL_read) return 1;
    if (!crypto) crypto = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (crypto && !ssl) ssl = dlopen("libssl.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!crypto || !ssl) {
        snprintf(why, sizeof(why), "can't load OpenSSL (libssl.so.3, libcrypto.so.3), which TLS needs: %s", dlerror());
        *err = why;
        return 0;
    }
    tlsLib lib;
    /* POSIX defines dlsym's pointer as convertible to a function pointer. */
#define TLSLIB_LOAD(handle, fn)                                                                                        \
    if (!(lib.fn = (__typeof__(lib.fn))dlsym(handle, #fn))) {                                                          \
        snprintf(why, sizeof(why), "OpenSSL has no %s", #fn);                                                         \
        *err = why;                                                                                                    \
        return 0;                                                                                                      \
    }
    TLSLIB_FUNCS(TLSLIB_LOAD)
#undef TLSLIB_LOAD
    tlslib = lib; /* published only once every function was found */
    return 1;
}
