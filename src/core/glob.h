/* glob: the one glob-style matcher (KEYS, SCAN MATCH, PSUBSCRIBE, CONFIG GET),
 * with Redis 7.0's semantics: * ? [set] [^set] [a-z] and \ escapes. Matching is
 * bounded so hostile patterns cannot make it run for exponential time. */
#ifndef CORE_GLOB_H
#define CORE_GLOB_H

/* Return 1 on match, 0 otherwise. nocase compares ASCII letters case-insensitively. */
int stringmatchlen(const char *pattern, int patternLen, const char *string, int stringLen, int nocase);
int stringmatch(const char *pattern, const char *string, int nocase);

#endif
