/* numparse: the one place where numbers are parsed from and formatted to
 * strings, with Redis 7.0's exact strictness and output, so every command
 * accepts and prints numbers identically. */
#ifndef CORE_NUMPARSE_H
#define CORE_NUMPARSE_H

#include <stddef.h>
#include <stdint.h>

/* Longest string accepted by string2ld (as Redis's MAX_LONG_DOUBLE_CHARS).
 * Guarded so a module that still defines its own copy keeps compiling. */
#ifndef MAX_LONG_DOUBLE_CHARS
#define MAX_LONG_DOUBLE_CHARS (5 * 1024)
#endif
/* Buffer sizes that always fit the formatted value. */
#define MAX_LONG_LONG_CHARS 21
#define MAX_D2STRING_CHARS 128

/* All return 1 on success, 0 on error (value untouched on error unless noted). */
int string2ll(const char *s, size_t slen, long long *value); /* strict decimal */
int string2l(const char *s, size_t slen, long *value);
int string2ull(const char *s, unsigned long long *value); /* NUL-terminated */
int string2ld(const char *s, size_t slen, long double *dp);
int string2d(const char *s, size_t slen, double *dp);

/* Formatters return the length written (without the NUL), 0 if it does not fit. */
int ll2string(char *dst, size_t dstlen, long long v);
int ull2string(char *dst, size_t dstlen, unsigned long long v);
int d2string(char *buf, size_t len, double value);   /* "%.17g", "inf", "-inf", "nan" */
/* humanfriendly (INCRBYFLOAT, HINCRBYFLOAT): "%.17Lf" trimmed of trailing zeros
 * and a trailing '.'; otherwise "%.17Lg". Infinities print as "inf" / "-inf". */
int ld2string(char *buf, size_t len, long double value, int humanfriendly);

int double2ll(double d, long long *out); /* 1 if d is exactly an integer in range */
uint32_t digits10(uint64_t v);

#endif
