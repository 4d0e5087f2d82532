/* info: the INFO command's text, section by section, with Redis's field names. */
#ifndef FEATURES_INFO_H
#define FEATURES_INFO_H

#include "core/sds.h"

/* section: "default", "all", "everything" or a section name (case-insensitive). */
sds genInfoString(const char *section);

#endif
