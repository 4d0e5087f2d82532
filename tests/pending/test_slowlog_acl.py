"""SLOWLOG redaction of ACL SETUSER, split out of test_slowlog.py: ACL is not
in our server's scope yet, so this case stays pending while the rest of
test_slowlog.py runs in tests/. The test is kept verbatim (only this
parameter), and passes on redis-server 7.0.15.
"""
import pytest

from support import argvs


@pytest.mark.parametrize("args,shown", [
    (("acl", "setuser", "bob", ">pw"), [b"acl", b"setuser", b"(redacted)", b"(redacted)"]),
])
def test_secrets_redacted(slowlog_conn, args, shown):
    slowlog_conn.call(*args)
    assert argvs(slowlog_conn) == [shown]
