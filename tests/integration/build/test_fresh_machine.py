"""The README's commands on a machine without the packages.

tests/check_fresh_make.sh runs the Makefile's decisions with pkg-config pointed
at an empty directory: every goal that promises to install what is missing
(run, test, bench, test-reference, test-upstream, fuzz) must reach deps/install.sh before it
compiles, and `make` alone must stop with one line naming the package. No
server is involved, so it runs the same against the reference.
"""
import os
import subprocess

from support import ROOT


def test_make_goals_install_missing_packages_before_building():
    result = subprocess.run(["sh", os.path.join(ROOT, "tests", "check_fresh_make.sh")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("ok   ") == 7, result.stdout
