/* expiry_push: placeholder until the 0MQ push lands (issue 6): nothing is sent. */
#include "features/expiry_push.h"

void expiryPushKey(int dbid, robj *key, robj *val) {
    (void)dbid, (void)key, (void)val;
}

int expiryPushApplyConfig(const char **err) {
    (void)err;
    return 0;
}
