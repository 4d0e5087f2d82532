/* info: the INFO command's text, section by section, with Redis's field names. */
#ifndef FEATURES_INFO_H
#define FEATURES_INFO_H

#include "core/sds.h"

/* names: section names, "default", "all" or "everything" (any case); none
 * means "default". Sections come in Redis's order, each once. */
sds genInfoString(int argc, const char **names);
/* Samples the instantaneous rates (ops/sec, kbps); called from serverCron. */
void infoCron(void);

#endif
