/* acl: users and their permissions, as Redis 7.0's ACL. Wired at start-up:
 * aclInit() before the configuration is read (it registers the `user`
 * directive and the server's access hooks), aclLoadUsersAtStartup() after. */
#ifndef ACL_ACL_H
#define ACL_ACL_H

void aclInit(void);
/* Applies the `user` lines of redis.conf, then the aclfile; exits on errors as Redis does. */
void aclLoadUsersAtStartup(void);

#endif
