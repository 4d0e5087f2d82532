/* randbytes: random bytes from the kernel's generator (getrandom(2)) for
 * what must be unguessable and differ from one process to the next: the hash
 * seed, the run and replication ids, the passwords ACL GENPASS makes. */
#ifndef CORE_RANDBYTES_H
#define CORE_RANDBYTES_H

#include <stddef.h>

/* Fills p with n random bytes: 1, or 0 when the kernel gave none. */
int getRandomBytes(unsigned char *p, size_t n);

/* n random lowercase hex digits and a NUL into dst (n + 1 bytes). Returns 1
 * when they came from the kernel; where it gave nothing, rand() makes them
 * and 0 is returned: still good to tell one process's id from the next, not
 * for a secret. */
int getRandomHex(char *dst, size_t n);

#endif
