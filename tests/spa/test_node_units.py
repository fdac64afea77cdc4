"""The SPA's JavaScript unit tests (``node --test spa/tests/``), run from pytest so one command covers both."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.spa.conftest import ROOT

NODE_TIMEOUT_S = 300


def test_spa_unit_tests_pass_under_node() -> None:
    node = shutil.which("node")
    if node is None:
        message = "!!! SPA UNIT TESTS NOT RUN: `node` is not on PATH (Node 20 runs them). !!!"
        pytest.skip(message)
    result = subprocess.run(
        [node, "--test", "spa/tests/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=NODE_TIMEOUT_S,
        check=False,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, f"node --test spa/tests/ failed:\n{report[-8000:]}"
    passed = re.search(r"^# pass (\d+)$", result.stdout, re.MULTILINE)
    failed = re.search(r"^# fail (\d+)$", result.stdout, re.MULTILINE)
    assert passed is not None, report[-4000:]
    assert int(passed.group(1)) > 0, report[-4000:]
    assert failed is not None, report[-4000:]
    assert int(failed.group(1)) == 0, report[-4000:]
