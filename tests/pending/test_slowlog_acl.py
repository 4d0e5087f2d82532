"""SLOWLOG redaction of ACL SETUSER, split out of test_slowlog.py: ACL is not
in our server's scope yet, so this case stays pending while the rest of
test_slowlog.py runs in tests/. The test is kept verbatim (only this
parameter), and passes on redis-server 7.0.15.
"""
import pytest

from resp_raw import connect  # noqa: F401  (a fixture)
from test_slowlog import argvs, c  # noqa: F401  (c is a fixture)


@pytest.mark.parametrize("args,shown", [
    (("acl", "setuser", "bob", ">pw"), [b"acl", b"setuser", b"(redacted)", b"(redacted)"]),
])
def test_secrets_redacted(c, args, shown):
    c.call(*args)
    assert argvs(c) == [shown]
