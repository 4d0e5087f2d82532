/* nodesconf: the cluster configuration file (cluster-config-file, nodes.conf):
 * one CLUSTER NODES line per node and a `vars` line with the epochs. Loaded at
 * start-up, written atomically whenever the configuration changes (a spare
 * file beside it, "<file>.tmp", written, fsynced when asked, then swapped
 * with it by an atomic exchange of the names, and the directory fsynced),
 * and locked, so that two processes never share one. */
#ifndef CLUSTER_NODESCONF_H
#define CLUSTER_NODESCONF_H

/* C_OK when a configuration was read (myself and the rest set up); C_ERR when
 * there is none yet. Exits with Redis's message when the file is corrupt or
 * used by another process. */
int clusterLoadConfig(const char *filename);
/* Write the configuration (fsync the file too when do_fsync). C_ERR on failure
 * (logged); the OrDie form exits, as a node must not run on with a config
 * it cannot keep. */
int clusterSaveConfig(int do_fsync);
void clusterSaveConfigOrDie(int do_fsync);
/* At shutdown, after the last save: the spare file goes. */
void clusterDropConfigSpare(void);
/* Take the lock on the file (at start-up, once it exists). C_ERR: another process has it. */
int clusterLockConfig(const char *filename);

#endif
