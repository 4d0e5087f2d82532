/* fileutil: small file-system steps that durability needs in more than one
 * place (the RDB save, the AOF manifest). */
#ifndef CORE_FILEUTIL_H
#define CORE_FILEUTIL_H

/* fsyncs the directory that holds path, so that a file created or renamed
 * there survives a crash; 0, or -1 with errno set. */
int fsyncFileDir(const char *path);
/* The same for the directory itself. */
int fsyncDir(const char *dir);

#endif
