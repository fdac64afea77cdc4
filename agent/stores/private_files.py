"""The data directory and its files are the service's alone: directories 0700, files 0600.

The stores hold conversations, decisions and the ledger; the umask of whoever starts ``harness serve``
(commonly 022) would leave them readable by every account on the machine. SQLite creates a database's
``-wal`` and ``-shm`` files with the mode of the database file, so creating that file 0600 first covers
them too. A directory or file found with a looser mode is tightened, with a warning: it was readable until
now, which its operator may want to know.
"""

from __future__ import annotations

import logging
import os
import stat
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

__all__ = (
    "DIRECTORY_MODE",
    "FILE_MODE",
    "private_directory",
    "private_sqlite_file",
    "private_sqlite_files",
    "write_private",
)

DIRECTORY_MODE = 0o700
FILE_MODE = 0o600
_SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")

logger = logging.getLogger(__name__)


def private_directory(path: Path) -> Path:
    """``path`` as a directory only its owner may enter: created 0700, or tightened to it."""
    path.mkdir(mode=DIRECTORY_MODE, parents=True, exist_ok=True)
    _tighten(path, DIRECTORY_MODE)
    return path


def private_sqlite_file(path: Path) -> Path:
    """Make ``path`` (a SQLite database) 0600 in a private directory before SQLite opens it, so that its
    journal files are created 0600 as well; existing ones are tightened."""
    private_directory(path.parent)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    except FileExistsError:
        _tighten(path, FILE_MODE)
    for suffix in _SQLITE_COMPANIONS:
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            _tighten(companion, FILE_MODE)
    return path


def private_sqlite_files(directory: Path, *names: str) -> None:
    """``private_sqlite_file`` for each of ``names`` in ``directory``."""
    for name in names:
        private_sqlite_file(directory / name)


def write_private(path: Path, content: bytes) -> None:
    """Write ``content`` to ``path``, a file only its owner may read (0600 from its first byte)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    with os.fdopen(descriptor, "wb") as file:
        _tighten(path, FILE_MODE)
        file.write(content)


def _tighten(path: Path, mode: int) -> None:
    current = stat.S_IMODE(path.stat().st_mode)
    if current & ~mode == 0:
        return
    try:
        path.chmod(current & mode)
    except OSError as exc:
        logger.warning("%s is readable by others (mode %o) and could not be made %o: %s", path, current, mode, exc)
        return
    logger.warning("%s was readable by others (mode %o); it is now %o", path, current, current & mode)
