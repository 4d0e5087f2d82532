"""Real client libraries from Debian against the server: what an application
using them does, with the results it must see (the same on the reference).
node-redis 4 (Debian's node-redis) runs tests/clients/node_redis_smoke.js; kombu
(Celery's transport) runs in-process.
"""
import os
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
NODE_PATH = "/usr/share/nodejs"


@pytest.mark.skipif(not shutil.which("node") or not os.path.isdir(os.path.join(NODE_PATH, "redis")),
                    reason="nodejs and node-redis (Debian packages nodejs, node-redis) are not installed")
def test_node_redis_application_calls(server):
    script = os.path.join(HERE, "clients", "node_redis_smoke.js")
    out = subprocess.run(["node", script, str(server.port)], env=dict(os.environ, NODE_PATH=NODE_PATH),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "OK", "v", "100", "2", '{"a":"1","b":"2"}', "5", '[6,2,["y","x"]]', "[]",
        '[{"value":"a","score":1},{"value":"b","score":2.5}]', "v", "1", "hello",
        '{"key":"q","element":"job1"}', '["k"]', "true"]


def test_kombu_queue_round_trip(server):
    """Celery's transport (Debian's python3-kombu): a queue's messages come back in order, acked."""
    kombu = pytest.importorskip("kombu", reason="python3-kombu is not installed")
    with kombu.Connection("redis://127.0.0.1:%d/0" % server.port) as conn:
        queue = conn.SimpleQueue("jobs")
        for i in range(5):
            queue.put({"n": i})
        got = []
        for _ in range(5):
            message = queue.get(block=True, timeout=5)
            got.append(message.payload["n"])
            message.ack()
        with pytest.raises(queue.Empty):
            queue.get(block=True, timeout=0.2)
        queue.close()
    assert got == [0, 1, 2, 3, 4]
