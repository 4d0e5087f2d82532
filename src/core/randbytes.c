/* randbytes: random bytes and hex ids from getrandom(2) (see randbytes.h).
 * getrandom needs no file descriptor (reading /dev/urandom needs one, which a
 * server at its descriptor limit does not have) and blocks only until the
 * kernel's pool is first seeded, at boot. */
#include "randbytes.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/types.h>

int getRandomBytes(unsigned char *p, size_t n) {
    while (n) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            return 0;
        }
        p += got;
        n -= (size_t)got;
    }
    return 1;
}

int getRandomHex(char *dst, size_t n) {
    static const char hex[] = "0123456789abcdef";
    unsigned char b[32];
    int from_kernel = 1;
    for (size_t done = 0; done < n;) {
        size_t chunk = (n - done + 1) / 2 < sizeof(b) ? (n - done + 1) / 2 : sizeof(b);
        if (!getRandomBytes(b, chunk)) {
            from_kernel = 0;
            for (size_t i = 0; i < chunk; i++) b[i] = (unsigned char)rand();
        }
        for (size_t i = 0; i < chunk * 2 && done < n; i++) dst[done++] = hex[(b[i / 2] >> (i % 2 ? 0 : 4)) & 15];
    }
    dst[n] = '\0';
    return from_kernel;
}
