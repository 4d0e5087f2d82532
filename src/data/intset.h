/* intset: the sorted array of integers that backs small sets whose members
 * are all integers. The bytes are exactly Redis 7.0's intset, so a blob can
 * be written to or read from an RDB file verbatim:
 *
 *   <encoding uint32 LE: 2, 4 or 8> <length uint32 LE> <length sorted LE ints>
 *
 * Every member uses the encoding's width; adding a member that does not fit
 * widens all of them (never narrowed again). The intset is one allocation:
 * functions that change it may move it and return the new pointer. A blob
 * read from disk can be used as an intset after intsetValidateIntegrity. */
#ifndef DATA_INTSET_H
#define DATA_INTSET_H

#include <stddef.h>
#include <stdint.h>

typedef struct intset intset; /* opaque: only the bytes above */

intset *intsetNew(void);
void intsetFree(intset *is);

/* *added / *removed (if not NULL) are set to 1 when the set changed. */
intset *intsetAdd(intset *is, long long value, int *added);
intset *intsetRemove(intset *is, long long value, int *removed);
int intsetFind(const intset *is, long long value); /* binary search; 1 if present */

uint32_t intsetLen(const intset *is);
size_t intsetBlobLen(const intset *is); /* bytes of the whole blob */
/* Member at position pos (ascending order); returns 0 if pos is out of range. */
int intsetGet(const intset *is, uint32_t pos, long long *value);
/* Member at position r % length; the set must not be empty. */
long long intsetRandom(const intset *is, unsigned long r);
long long intsetMin(const intset *is); /* the set must not be empty */
long long intsetMax(const intset *is);

/* 1 if the string is an integer an intset can hold: the strict string2ll
 * rules (no sign '+', no leading zeros or spaces, fits int64). */
int intsetParseMember(const char *s, size_t len, long long *value);

/* Untrusted blobs (RESTORE, RDB load): 1 if the header is sane, the size
 * matches exactly and the set is not empty (Redis rejects empty intsets);
 * deep also checks that members are strictly ascending. */
int intsetValidateIntegrity(const unsigned char *blob, size_t size, int deep);

#endif
