"""`harness serve` says at start which event loop and HTTP parser it runs on (the default install has both)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.support.harness_process import HarnessProcess

if TYPE_CHECKING:
    from pathlib import Path


async def test_the_default_install_serves_on_uvloop_and_httptools(tmp_path: Path) -> None:
    server = await HarnessProcess({"HARNESS_DATA_DIR": str(tmp_path)}).start()
    try:
        log = server.stderr()
    finally:
        server.close()
    assert "serving on the uvloop event loop with the httptools HTTP parser" in log
