/* proctitle: the process title ps and /proc/PID/cmdline show (Linux has no
 * call to set it: the title is written over the memory that held argv). */
#ifndef CORE_PROCTITLE_H
#define CORE_PROCTITLE_H

/* Call first thing in main: moves the argv strings and the environment out of
 * the way (argv[i] then point to copies), keeping their memory for the title. */
void procTitleInit(int argc, char **argv);

/* Shows `title` as the whole command line (cut to the room argv and the
 * environment had). Nothing happens before procTitleInit. */
void procTitleSet(const char *title);

#endif
