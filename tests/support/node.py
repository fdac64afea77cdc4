"""Node.js tools the tests run (the official AG-UI client, the AsyncAPI parser, the generated TypeScript client).

Each lives in its own folder under tests/ with a committed package-lock.json; ``make test`` installs them
with ``npm ci``. Without Node or the installed packages a test fails under CI (``CI`` set) and skips
loudly elsewhere.
"""

from __future__ import annotations

import shutil
import subprocess
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ("node_tool", "run_node")


def node_tool(folder: Path) -> str:
    """The ``node`` executable, once ``folder``'s packages are installed; else fail (CI) or skip."""
    node = shutil.which("node")
    if node is None or not (folder / "node_modules").is_dir():
        message = f"{folder.name}: Node.js or its packages are missing (npm ci --prefix {folder})"
        pytest.skip(message + "; `make test` installs them")
    return node


def run_node(folder: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [node_tool(folder), *args], cwd=folder, capture_output=True, text=True, check=False, timeout=timeout
    )
    assert result.returncode == 0, f"node {' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result
