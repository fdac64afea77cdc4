"""The suite's own rules, checked on the suite itself."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent


def _run_skipping_test(tmp_path: Path, *, ci: bool) -> subprocess.CompletedProcess[str]:
    """A test that skips, run by pytest with the suite's conftest as a plugin."""
    probe = tmp_path / "test_probe.py"
    probe.write_text("import pytest\n\n\ndef test_needs_a_tool():\n    pytest.skip('the tool is missing')\n")
    env = {key: value for key, value in os.environ.items() if key != "CI"} | ({"CI": "true"} if ci else {})
    env["PYTHONPATH"] = str(REPOSITORY)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.conftest", str(probe)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_skip_under_ci_fails_the_run(tmp_path: Path) -> None:
    result = _run_skipping_test(tmp_path, ci=True)
    assert result.returncode == 1, result.stdout
    assert "skipped under CI=true" in result.stdout


def test_a_skip_elsewhere_is_a_skip(tmp_path: Path) -> None:
    result = _run_skipping_test(tmp_path, ci=False)
    assert result.returncode == 0, result.stdout
    assert "1 skipped" in result.stdout
