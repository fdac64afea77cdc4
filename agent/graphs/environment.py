"""Applies a ``langgraph.json``'s ``env`` and ``dependencies`` to this process, and says what it left out.

``env`` never overrides a variable the process already has: the environment the service was started with is
the operator's deliberate choice (a secret injected by the orchestrator, a ``HARNESS_*`` setting of this
deployment), while a ``.env`` file travels with the project, so the process wins, as with python-dotenv's
default and ``docker run --env-file``. The log names the variables set and kept, never a value.

Local dependencies are appended to ``sys.path``, after the service's own paths and installed packages, so a
project's module can never shadow one the service runs on; package dependencies are not installed (this
service does not change its own environment at start), only reported with whether they are installed.
"""

from __future__ import annotations

import importlib.metadata
import logging
import os
import re
import sys
from typing import TYPE_CHECKING

from dotenv import dotenv_values

from agent.graphs.config import KNOWN_IGNORED_KEYS

if TYPE_CHECKING:
    from collections.abc import MutableMapping
    from pathlib import Path

    from agent.graphs.config import GraphsConfig

__all__ = ("apply_graphs_config",)

logger = logging.getLogger(__name__)

_DISTRIBUTION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_PACKAGING_FILES = ("pyproject.toml", "setup.py", "requirements.txt")


def apply_graphs_config(
    config: GraphsConfig, *, environ: MutableMapping[str, str] | None = None, path: list[str] | None = None
) -> None:
    """Set ``env`` (without overriding), put local dependencies on ``path`` (``sys.path``), and log one line for
    each of: the variables, the packages left to the environment, the keys ignored."""
    environ = os.environ if environ is None else environ
    path = sys.path if path is None else path
    name = config.path.name
    variables = dict(config.env)
    if config.env_file is not None:
        variables = {key: value for key, value in dotenv_values(config.env_file).items() if value is not None}
    kept = sorted(key for key in variables if key in environ)
    set_now = sorted(key for key in variables if key not in environ)
    for key in set_now:
        environ[key] = variables[key]
    if variables:
        logger.info(
            "%s env: set %s%s",
            name,
            ", ".join(set_now) or "nothing",
            f"; kept the environment's own {', '.join(kept)}" if kept else "",
        )
    for folder in config.local_dependencies:
        if str(folder) not in path:
            path.append(str(folder))
    left = [f"{spec} ({_installed(spec)})" for spec in config.other_dependencies]
    left += [
        f"what {_shown(folder, config.folder)} declares in {packaging} (its folder is on sys.path)"
        for folder in config.local_dependencies
        for packaging in _PACKAGING_FILES
        if (folder / packaging).is_file()
    ]
    if left:
        logger.warning(
            "%s dependencies this service does not install (it runs in its own environment): %s",
            name,
            "; ".join(left),
        )
    if config.ignored_keys:
        known = [key for key in config.ignored_keys if key in KNOWN_IGNORED_KEYS]
        unknown = [key for key in config.ignored_keys if key not in KNOWN_IGNORED_KEYS]
        logger.warning(
            "%s keys ignored: %s",
            name,
            "; ".join(
                part
                for part in (
                    f"{', '.join(known)} (not used by this service)" if known else "",
                    f"{', '.join(unknown)} (unknown)" if unknown else "",
                )
                if part
            ),
        )


def _shown(folder: Path, base: Path) -> str:
    if not folder.is_relative_to(base):
        return str(folder)
    relative = folder.relative_to(base).as_posix()
    return "." if relative == "." else f"./{relative}"


def _installed(spec: str) -> str:
    found = _DISTRIBUTION.match(spec)
    if found is None or "://" in spec or spec.startswith("git+"):
        return "not checked"
    try:
        return f"installed {importlib.metadata.version(found.group())}"
    except importlib.metadata.PackageNotFoundError:
        return "missing"
