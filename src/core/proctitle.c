/* proctitle: sets the process title by writing over the argv area (see
 * proctitle.h). The kernel shows the bytes from argv[0] to the end of the
 * original arguments; a title longer than that runs on into the environment
 * strings, which is why those are copied elsewhere first. */
#include "core/proctitle.h"

#include <stdlib.h>
#include <string.h>

extern char **environ;

static char *area_start, *area_end; /* argv[0] .. end of the last adjacent string */

void procTitleInit(int argc, char **argv) {
    if (argc < 1 || !argv[0]) return;
    char *start = argv[0];
    char *end = start + strlen(start) + 1;
    for (int i = 1; i < argc; i++)
        if (argv[i] == end) end = argv[i] + strlen(argv[i]) + 1;
    size_t envc = 0;
    while (environ[envc]) envc++;
    char **env = malloc(sizeof(char *) * (envc + 1));
    if (!env) return;
    for (size_t i = 0; i < envc; i++) {
        if (environ[i] == end) end = environ[i] + strlen(environ[i]) + 1;
        env[i] = strdup(environ[i]);
    }
    env[envc] = NULL;
    environ = env;
    for (int i = 0; i < argc; i++) argv[i] = strdup(argv[i]);
    area_start = start;
    area_end = end;
}

void procTitleSet(const char *title) {
    if (!area_start) return;
    size_t room = (size_t)(area_end - area_start) - 1;
    size_t len = strlen(title);
    if (len > room) len = room;
    memset(area_start, 0, room + 1);
    memcpy(area_start, title, len);
}
