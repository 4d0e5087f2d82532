"""Fixtures of the fault tests: a small file system that fills up, and
faults (a failing fork or fsync) put under a server process.

small_disk mounts a tmpfs of a few MB (the tests run as root in CI; where
mounting is not allowed they are skipped, saying so). faults compiles
faultinject.c into a preload library once per run; a server started with
faults.env gets it, and faults.set()/clear() switch a fault on and off while
it runs. Both work the same under Debian's redis-server, so every case is
also run against the reference.
"""
import os
import shutil
import subprocess
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


class SmallDisk:
    def __init__(self, path, size_kb):
        self.path = path
        self.size_kb = size_kb

    def resize(self, size_kb):
        """More (or less) room, as when an operator frees space."""
        subprocess.check_call(["mount", "-o", "remount,size=%dk" % size_kb, self.path])
        self.size_kb = size_kb

    def fill(self, leave_kb=0):
        """A filler file takes all the room but leave_kb; free() removes it."""
        st = os.statvfs(self.path)
        free = st.f_bavail * st.f_frsize - leave_kb * 1024
        with open(os.path.join(self.path, "filler"), "wb") as f:
            while free > 0:
                n = min(free, 1 << 20)
                try:
                    f.write(b"\0" * n)
                    f.flush()
                except OSError:
                    break
                free -= n

    def free(self):
        os.unlink(os.path.join(self.path, "filler"))


@pytest.fixture
def small_disk():
    """A tmpfs of 8 MB, unmounted at the end."""
    path = tempfile.mkdtemp(prefix="redis-fault-disk-")
    rc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", path],
                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if rc.returncode != 0:
        os.rmdir(path)
        pytest.skip("cannot mount a tmpfs here (needs root): " + rc.stderr.decode(errors="replace").strip())
    try:
        yield SmallDisk(path, 8 * 1024)
    finally:
        subprocess.run(["umount", "-l", path], stderr=subprocess.DEVNULL)
        shutil.rmtree(path, ignore_errors=True)


class Faults:
    def __init__(self, library, directory):
        self.dir = directory
        self.env = {"LD_PRELOAD": library, "FAULT_DIR": directory}

    def set(self, call, text):
        """call: 'fork' (text: ENOMEM or EAGAIN) or 'fsync' (text: 'EIO [path part]')."""
        with open(os.path.join(self.dir, call), "w") as f:
            f.write(text)

    def clear(self, call):
        try:
            os.unlink(os.path.join(self.dir, call))
        except FileNotFoundError:
            pass


@pytest.fixture(scope="session")
def fault_library(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("faultinject") / "faultinject.so")
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler to build the fault-injection library")
    subprocess.check_call([cc, "-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror", "-o", out,
                           os.path.join(HERE, "faultinject.c"), "-ldl"])
    return out


@pytest.fixture
def faults(fault_library):
    d = tempfile.mkdtemp(prefix="redis-faults-")
    yield Faults(fault_library, d)
    shutil.rmtree(d, ignore_errors=True)
