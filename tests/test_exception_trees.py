"""Each exception module's docstring draws its error tree (as httpx's ``_exceptions.py`` does); these tests hold the
drawing to the code: every class of the tree drawn once, under its base, with the status or base class it notes.

A line of a tree is ``├── Name (note)  what it means`` (or ``Name, Other`` for siblings drawn together), nested by
four columns a level; a note is a status (``404``), a base class besides the drawn one (``ValueError``), or words."""

from __future__ import annotations

import importlib
import pkgutil
import re
from dataclasses import dataclass

import pytest

_LINE = re.compile(r"^((?:[│ ]   )*)[├└]── (\w+(?:, \w+)*)(?: \(([^)]*)\))?")


@dataclass(frozen=True)
class Drawn:
    names: tuple[str, ...]
    parent: str
    note: str | None


def drawn_tree(docstring: str, root: str) -> list[Drawn]:
    """The classes drawn under ``root`` in ``docstring``, each with the class it is drawn under."""
    lines = docstring.splitlines()
    start = next(index for index, line in enumerate(lines) if re.match(rf"^{root}\b", line))
    drawn: list[Drawn] = []
    parents = [root]
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        found = _LINE.match(line)
        if found is None:  # a description's second line
            continue
        depth = len(found[1]) // 4
        names = tuple(found[2].split(", "))
        drawn.append(Drawn(names, parents[depth], found[3]))
        del parents[depth + 1 :]
        parents.append(names[0])
    return drawn


def descendants(base: type[BaseException], package: str) -> dict[str, type[BaseException]]:
    """Every subclass of ``base`` that a module of ``package`` defines, once all of them are imported."""
    for module in pkgutil.walk_packages(importlib.import_module(package).__path__, f"{package}."):
        importlib.import_module(module.name)
    found: dict[str, type[BaseException]] = {}
    unseen = [base]
    while unseen:
        for sub in unseen.pop().__subclasses__():
            if sub.__module__.startswith(f"{package}."):
                found[sub.__name__] = sub
            unseen.append(sub)
    return found


TREES = [
    ("api.exceptions", "ApiError"),
    ("api.runs.errors", "RunsError"),
    ("api.a2a.errors", "A2AError"),
    ("agent.errors", "AgentError"),
]


@pytest.mark.parametrize(("module_name", "root"), TREES)
def test_the_tree_draws_every_class_once(module_name: str, root: str) -> None:
    module = importlib.import_module(module_name)
    drawn = [name for line in drawn_tree(module.__doc__ or "", root) for name in line.names]

    assert sorted(drawn) == sorted(descendants(getattr(module, root), module_name.partition(".")[0]))


@pytest.mark.parametrize(("module_name", "root"), TREES)
def test_each_class_is_drawn_under_its_base_with_what_it_notes(module_name: str, root: str) -> None:
    module = importlib.import_module(module_name)
    classes = {root: getattr(module, root)} | descendants(getattr(module, root), module_name.partition(".")[0])
    wrong = []
    for line in drawn_tree(module.__doc__ or "", root):
        for name in line.names:
            cls = classes[name]
            if line.parent not in [base.__name__ for base in cls.__bases__]:
                wrong.append(f"{name} is drawn under {line.parent}; its bases: {cls.__bases__}")
            for noted in (line.note or "").split(", "):
                if noted.isdigit() and getattr(cls, "status_code", None) != int(noted) and "," not in line.note:
                    wrong.append(f"{name} is drawn as {noted}; its status_code is {getattr(cls, 'status_code', None)}")
                if noted.isidentifier() and noted not in [each.__name__ for each in cls.__mro__]:
                    wrong.append(f"{name} is drawn as a {noted}; it is none")

    assert wrong == []


def test_a_tree_line_reads_as_its_names_base_and_note() -> None:
    docstring = """Errors.

Base
├── One (404)      one: a meaning
│                  that goes on
├── Two
│   └── Three, Four (ValueError)   three or four
└── Five (any 4xx)
"""

    assert drawn_tree(docstring, "Base") == [
        Drawn(("One",), "Base", "404"),
        Drawn(("Two",), "Base", None),
        Drawn(("Three", "Four"), "Two", "ValueError"),
        Drawn(("Five",), "Base", "any 4xx"),
    ]
