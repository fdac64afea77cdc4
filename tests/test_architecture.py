"""The arrows between the packages, checked on the code itself.

``make lint`` runs import-linter on pyproject's contracts (contracts <- agent <- api; no cycle between the
service's packages and modules); these tests run the same contracts under pytest, and hold the service to
the agent's public entries.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

REPOSITORY = Path(__file__).resolve().parent.parent
AGENT_ENTRIES = frozenset(
    {
        "agent",
        "agent.evaluation",
        "agent.graphs",
        "agent.guardrails",
        "agent.knowledge",
        "agent.llm",
        "agent.stores",
        "agent.stores.postgres",  # the shared stores (the `cluster` extra), imported only when configured
        "agent.stores.reseal",  # `harness rotate-key`
    }
)
"""What of the agent the service may import: the package and its public subpackages (agent/__init__.py)."""


def test_the_import_contracts_hold() -> None:
    result = subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports"), "--no-cache"],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "BROKEN" not in result.stdout


def test_the_service_reaches_the_agent_only_through_its_public_entries() -> None:
    graph = grimp.build_graph("api", "agent", "contracts", cache_dir=None)
    reached = {
        (importer, imported)
        for importer in graph.modules
        if importer == "api" or importer.startswith("api.")
        for imported in graph.find_modules_directly_imported_by(importer)
        if imported.split(".")[0] == "agent" and imported not in AGENT_ENTRIES
    }
    assert not reached, "the service imports the agent's internal modules:\n" + "\n".join(
        f"{importer} -> {imported}" for importer, imported in sorted(reached)
    )


def test_an_upward_import_is_caught() -> None:
    graph = grimp.build_graph("api", "agent", "contracts", cache_dir=None)
    assert graph.find_illegal_dependencies_for_layers(layers=("api", "agent", "contracts")) == set()
    assert graph.find_illegal_dependencies_for_layers(layers=("contracts", "agent", "api")) != set(), (
        "the layers check sees the real imports (api imports the agent)"
    )
