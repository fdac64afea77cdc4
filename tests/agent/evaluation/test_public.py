from __future__ import annotations

import importlib
import pkgutil

import pytest

import agent.evaluation


def modules() -> list[str]:
    return [
        "agent.evaluation",
        *(f"agent.evaluation.{m.name}" for m in pkgutil.iter_modules(agent.evaluation.__path__)),
    ]


@pytest.mark.parametrize("name", modules())
def test_every_module_exports_a_sorted_complete_all(name: str) -> None:
    module = importlib.import_module(name)

    exported = list(module.__all__)

    assert exported == sorted(exported, key=lambda n: (not n.isupper(), not n[0].isupper(), n))
    assert all(hasattr(module, item) for item in exported)
