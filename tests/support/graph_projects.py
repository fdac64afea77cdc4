"""LangGraph projects written to disk for a test, and loaded without leaving a trace in the test process.

Loading a ``langgraph.json`` changes the process on purpose (variables set, folders on ``sys.path``, modules
imported): ``isolated_loading`` undoes all three after each test.
"""

from __future__ import annotations

import os
import sys
import textwrap
from typing import TYPE_CHECKING, Any

import msgspec

from agent import SupportRuns

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from pathlib import Path

    import pytest

    from agent import Agent

__all__ = ("isolated_loading", "support_of", "write_project")


def support_of(agent: Agent) -> dict[str, Any]:
    """What ``open_registry`` takes of an opened agent: its graph, its run hooks and its checkpointer."""
    return {"support": agent.graph, "support_hooks": SupportRuns(agent), "checkpointer": agent.stores.checkpointer}


def isolated_loading(monkeypatch: pytest.MonkeyPatch, *roots: Path) -> Iterator[None]:
    """For a fixture: ``os.environ`` and ``sys.path`` as they were after the test, and the modules imported from
    ``roots`` (the projects' folders) forgotten, so the next test imports its own."""
    monkeypatch.setattr(os, "environ", dict(os.environ))
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield
    folders = tuple(str(root) for root in roots)
    for name in set(sys.modules) - before:
        if str(getattr(sys.modules[name], "__file__", None) or "").startswith(folders):
            del sys.modules[name]


def write_project(folder: Path, files: Mapping[str, str | dict[str, object]]) -> Path:
    """Each file, dedented (a dict is written as JSON); ``folder / "langgraph.json"``."""
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, dict):
            path.write_bytes(msgspec.json.format(msgspec.json.encode(content)))
        else:
            path.write_text(textwrap.dedent(content).lstrip("\n"))
    return folder / "langgraph.json"
