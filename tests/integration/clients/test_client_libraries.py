"""Real client libraries from Debian against the server: what an application
using them does, with the results it must see (the same on the reference).
node-redis 4 (Debian's node-redis) runs tests/integration/clients/libraries/node_redis_smoke.js (over TLS too); kombu
(Celery's transport) and RQ (a job queue; its job functions are in
tests/integration/clients/libraries/rq_jobs.py) run in-process.
"""
import os
import shutil
import subprocess
import time

import pytest

from support import start_tls

HERE = os.path.dirname(os.path.abspath(__file__))
NODE_PATH = "/usr/share/nodejs"


@pytest.mark.skipif(not shutil.which("node") or not os.path.isdir(os.path.join(NODE_PATH, "redis")),
                    reason="nodejs and node-redis (Debian packages nodejs, node-redis) are not installed")
@pytest.mark.parametrize("tls", [False, True], ids=["plain", "tls"])
def test_node_redis_application_calls(server_factory, tls_certs, tls):
    """tls: node-redis's TLS socket to the TLS port, with a client certificate."""
    script = os.path.join(HERE, "libraries", "node_redis_smoke.js")
    server = start_tls(server_factory, tls_certs)
    args = [str(server.tls_port), tls_certs.dir] if tls else [str(server.port)]
    out = subprocess.run(["node", script] + args, env=dict(os.environ, NODE_PATH=NODE_PATH),
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


def test_rq_jobs_run_and_report(server):
    """RQ (Debian's python3-rq), a job queue: jobs run by a worker, results and failures reported
    (RQ 1.13 keeps results in streams), a scheduled job run by the scheduler."""
    rq = pytest.importorskip("rq", reason="python3-rq is not installed")
    import datetime
    import sys
    sys.path.insert(0, os.path.join(HERE, "libraries"))
    import rq_jobs
    from rq.registry import FailedJobRegistry, FinishedJobRegistry
    r = server.client()
    queue = rq.Queue("default", connection=r)
    ok = queue.enqueue(rq_jobs.add, 2, 3)
    bad = queue.enqueue(rq_jobs.fail)
    later = queue.enqueue_in(datetime.timedelta(seconds=1), rq_jobs.add, 10, 20)
    worker = rq.SimpleWorker([queue], connection=r)
    worker.work(burst=True)
    assert ok.get_status(refresh=True) == "finished" and ok.result == 5
    assert bad.get_status(refresh=True) == "failed"
    assert "ValueError: boom" in bad.latest_result().exc_string
    time.sleep(1.2)
    worker.work(burst=True, with_scheduler=True)
    deadline = time.time() + 10
    while later.get_status(refresh=True) != "finished" and time.time() < deadline:
        worker.work(burst=True, with_scheduler=True)
        time.sleep(0.2)
    assert later.result == 30
    assert len(FailedJobRegistry(queue=queue)) == 1 and len(FinishedJobRegistry(queue=queue)) == 2
