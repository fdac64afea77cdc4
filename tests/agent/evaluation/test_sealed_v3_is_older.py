"""The v3 sealed set was written before the agent was tuned for issue 40, and stays unread by the tuning.

Issue 40, item 4: the new sealed set (``support-sealed-v3.jsonl``) measures the agent honestly only if it
was written before any of the work on the rules, intents, actions, retrieval and stub, and never changed
after it. Git says so: the commit that first added the set descends from the commit it was written on
(``WRITTEN_ON``) with no commit touching those paths in between, and every commit touching them that is
not already an ancestor of the set's commit descends from it and is dated after it (by author and by
committer). A later change of the set's content on top of such a commit is a change made after tuning
began. A history rewritten so that the set lands after a tuning commit, a tuning branch started beside
the set and merged in, or backdated commits all fail here.

The checks need the full history: on a shallow clone, outside a git checkout or without git they skip
(CI runs on a full clone). The same checks run on small repositories built here, so a check that stopped
catching a bad history would fail too. Beside the history, none of the set's messages may be copied into
the tests, the code or the docs, where something could be tuned against it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from agent.evaluation.dataset import dataset_messages

ROOT = Path(__file__).parents[3]
DATASET = "agent/evaluation/datasets/support-sealed-v3.jsonl"
TUNED = ("agent/guardrails", "agent/nodes", "agent/knowledge", "agent/actions", "agent/llm/stub.py")
"""What issue 40 tunes: the input and output rules, the intent and action nodes, retrieval and its
corpus, the action registry and ledger, the stub model."""
WRITTEN_ON = "e6d464a0fd8629346895d9c5d7295d85945fcfee"
"""The commit the set was written on: the last before any issue-40 work (issue 34, items 1-3)."""

SEARCHED = ("tests", "agent", "bench", "examples", "api", "docs", "spa", "contracts")
SUFFIXES = (".py", ".json", ".jsonl", ".yaml", ".yml", ".md", ".ts", ".js", ".mjs", ".toml", ".txt")
SKIPPED = ("node_modules", "__pycache__", ".venv")


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False, encoding="utf-8"
    )
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def is_ancestor(repo: Path, older: str, newer: str) -> bool:
    done = subprocess.run(["git", "-C", str(repo), "merge-base", "--is-ancestor", older, newer], check=False)
    return done.returncode == 0


def commits(repo: Path, *revisions: str, paths: tuple[str, ...]) -> list[str]:
    """The commits reachable from the revisions that touch the paths, merges that bring a change included."""
    return git(repo, "rev-list", "--full-history", *revisions, "--", *paths).split()


def dates(repo: Path, commit: str) -> tuple[int, int]:
    author, committer = git(repo, "show", "-s", "--format=%at %ct", commit).split()
    return int(author), int(committer)


def resolve(repo: Path, revision: str) -> str | None:
    """The object a revision names (``commit``, ``commit:path``), or None when there is none."""
    try:
        return git(repo, "rev-parse", "--verify", "--quiet", revision).strip() or None
    except RuntimeError:
        return None


def history_problems(repo: Path, dataset: str, tuned: tuple[str, ...], written_on: str) -> list[str]:
    """Why the history of ``repo`` (its HEAD) does not show ``dataset`` written before the ``tuned`` paths
    changed (empty: it does)."""
    log = ("log", "--full-history", "--diff-filter=A", "--topo-order", "--reverse", "--format=%H", "HEAD")
    added = git(repo, *log, "--", dataset).split()
    if not added:
        return [f"{dataset} is in no commit of HEAD's history: commit it before anything is tuned"]
    first = added[0]  # the oldest commit that added it
    if resolve(repo, f"{written_on}^{{commit}}") is None:
        return [f"{written_on}, the commit the set was written on, is not in this repository: history was rewritten"]
    problems: list[str] = []
    if not is_ancestor(repo, written_on, first):
        problems.append(
            f"the set's first commit {first[:10]} does not descend from {written_on[:10]}, the commit it was written on"
        )
    else:
        for commit in commits(repo, first, f"^{written_on}", paths=tuned):
            problems.append(
                f"{commit[:10]} touches {', '.join(tuned)} and comes before the set's first commit {first[:10]} "
                f"(or is it): the set was written after tuning began"
            )
    first_dates = dates(repo, first)
    tuning = commits(repo, "HEAD", f"^{first}", paths=tuned)
    for commit in tuning:
        if not is_ancestor(repo, first, commit):
            problems.append(
                f"{commit[:10]} touches {', '.join(tuned)} but does not descend from the set's first commit "
                f"{first[:10]}: it was made beside the set, not after it (rebase that work onto the set)"
            )
        elif any(date < then for date, then in zip(dates(repo, commit), first_dates, strict=True)):
            problems.append(
                f"{commit[:10]} touches {', '.join(tuned)} and is dated before the set's first commit {first[:10]}"
            )
    first_blob = resolve(repo, f"{first}:{dataset}")
    for commit in commits(repo, "HEAD", f"^{first}", paths=(dataset,)):
        if resolve(repo, f"{commit}:{dataset}") == first_blob:
            continue  # a merge that brings the set in unchanged
        earlier = commits(repo, commit, f"^{first}", paths=tuned)
        if earlier:
            problems.append(
                f"{commit[:10]} changes {dataset} after {earlier[0][:10]} touched {', '.join(tuned)}: "
                "a sealed set is not edited once tuning has begun (write a new version)"
            )
    return problems


def skip_without_history(repo: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed: the set's history cannot be read")
    try:
        top = git(repo, "rev-parse", "--show-toplevel").strip()
        shallow = git(repo, "rev-parse", "--is-shallow-repository").strip()
    except RuntimeError:
        pytest.skip("not a git checkout: the set's history cannot be read")
    if Path(top).resolve() != repo.resolve():
        pytest.skip(f"the git repository here is {top}, not this project's checkout")
    if shallow == "true":
        pytest.skip("a shallow clone: the set's history needs the full one (git fetch --unshallow)")


def test_the_v3_sealed_set_was_written_before_any_tuning() -> None:
    skip_without_history(ROOT)

    problems = history_problems(ROOT, DATASET, TUNED, WRITTEN_ON)

    assert problems == [], "\n".join(problems)


def normalized(text: str) -> str:
    return " " + " ".join(re.findall(r"\w+", text.casefold())) + " "


def test_no_v3_message_is_copied_into_a_test_the_code_or_the_docs() -> None:
    dataset = ROOT / DATASET
    files: dict[Path, str] = {}
    for folder in SEARCHED:
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in SUFFIXES or any(part in SKIPPED for part in path.parts) or path == dataset:
                continue
            try:
                files[path] = normalized(path.read_text(encoding="utf-8"))
            except (UnicodeDecodeError, OSError):
                continue

    copied = {
        message: [str(path.relative_to(ROOT)) for path, text in files.items() if normalized(message) in text]
        for message in dataset_messages(dataset)
    }

    assert {message: found for message, found in copied.items() if found} == {}


# The checks on histories built for the purpose: good and bad orders of a set and the tuning.


class Repo:
    """A throwaway repository whose commits get the dates they are given."""

    def __init__(self, path: Path) -> None:
        self.path, self.clock = path, 1_800_000_000
        self.env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(path), "GIT_CONFIG_GLOBAL": os.devnull}
        self.run("init", "-q")
        self.run("config", "user.email", "eval@example.invalid")
        self.run("config", "user.name", "Eval")
        self.run("config", "commit.gpgsign", "false")

    def run(self, *args: str, date: int | None = None) -> str:
        env = dict(self.env)
        if date is not None:
            env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{date} +0000"
        done = subprocess.run(["git", "-C", str(self.path), *args], env=env, capture_output=True, text=True, check=True)
        return done.stdout.strip()

    def commit(self, path: str, text: str, *, at: int | None = None) -> str:
        self.clock += 60
        file = self.path / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")
        self.run("add", path)
        self.run("commit", "-q", "-m", f"change {path}", date=self.clock if at is None else at)
        return self.run("rev-parse", "HEAD")

    def merge(self, branch: str) -> str:
        self.clock += 60
        self.run("merge", "-q", "--no-ff", "-m", f"merge {branch}", branch, date=self.clock)
        return self.run("rev-parse", "HEAD")

    def problems(self, written_on: str) -> list[str]:
        return history_problems(self.path, "data/set.jsonl", ("rules",), written_on)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    made = Repo(tmp_path)
    made.commit("rules/a.py", "old rules\n")
    return made


def test_a_set_written_before_the_tuning_passes(repo: Repo) -> None:
    base = repo.commit("README", "base\n")
    repo.commit("data/set.jsonl", "cases\n")
    repo.commit("rules/a.py", "tuned rules\n")
    repo.commit("README", "unrelated\n")
    repo.commit("rules/a.py", "tuned again\n")

    assert repo.problems(base) == []


def test_a_tuning_branch_started_on_the_set_and_merged_passes(repo: Repo) -> None:
    base = repo.commit("README", "base\n")
    repo.commit("data/set.jsonl", "cases\n")
    main = repo.run("rev-parse", "--abbrev-ref", "HEAD")
    repo.run("checkout", "-q", "-b", "tuning")
    repo.commit("rules/a.py", "tuned rules\n")
    repo.run("checkout", "-q", main)
    repo.commit("README", "meanwhile\n")
    repo.merge("tuning")

    assert repo.problems(base) == []


def test_a_set_added_after_a_tuning_commit_fails(repo: Repo) -> None:
    base = repo.commit("README", "base\n")
    tuned = repo.commit("rules/a.py", "tuned rules\n")
    repo.commit("data/set.jsonl", "cases\n")

    problems = repo.problems(base)

    assert len(problems) == 1
    assert problems[0].startswith(tuned[:10])
    assert "before the set" in problems[0]


def test_a_set_committed_together_with_tuning_fails(repo: Repo) -> None:
    base = repo.commit("README", "base\n")
    (repo.path / "rules" / "a.py").write_text("tuned in the same commit\n", encoding="utf-8")
    repo.run("add", "rules/a.py")
    both = repo.commit("data/set.jsonl", "cases\n")

    assert [problem[:10] for problem in repo.problems(base)] == [both[:10]]


def test_a_history_rewritten_to_move_the_set_after_the_tuning_fails(repo: Repo) -> None:
    base = repo.commit("README", "base\n")
    written = repo.commit("data/set.jsonl", "cases\n")
    repo.commit("rules/a.py", "tuned rules\n")
    assert repo.problems(base) == []
    repo.run("rebase", "-q", "--onto", base, written)  # drop the set's commit, then add it again on top
    repo.commit("data/set.jsonl", "cases\n")

    assert any("before the set" in problem for problem in repo.problems(base))


def test_tuning_made_beside_the_set_and_merged_fails(repo: Repo) -> None:
    base = repo.commit("README", "base\n")
    main = repo.run("rev-parse", "--abbrev-ref", "HEAD")
    repo.run("checkout", "-q", "-b", "tuning")
    beside = repo.commit("rules/a.py", "tuned rules\n")
    repo.run("checkout", "-q", main)
    repo.commit("data/set.jsonl", "cases\n")
    repo.merge("tuning")

    problems = repo.problems(base)

    assert any(problem.startswith(beside[:10]) and "does not descend" in problem for problem in problems)


def test_a_tuning_commit_dated_before_the_set_fails(repo: Repo) -> None:
    base = repo.commit("README", "base\n")
    repo.commit("data/set.jsonl", "cases\n")
    backdated = repo.commit("rules/a.py", "tuned rules\n", at=1_700_000_000)

    problems = repo.problems(base)

    assert len(problems) == 1
    assert problems[0].startswith(backdated[:10])
    assert "dated before" in problems[0]


def test_a_set_edited_after_tuning_began_fails(repo: Repo) -> None:
    base = repo.commit("README", "base\n")
    repo.commit("data/set.jsonl", "cases\n")
    repo.commit("rules/a.py", "tuned rules\n")
    edit = repo.commit("data/set.jsonl", "cases, retouched after looking at the misses\n")

    problems = repo.problems(base)

    assert len(problems) == 1
    assert problems[0].startswith(edit[:10])
    assert "not edited" in problems[0]


def test_a_set_never_committed_or_written_on_an_unknown_commit_fails(repo: Repo) -> None:
    base = repo.commit("README", "base\n")

    assert "is in no commit" in repo.problems(base)[0]

    repo.commit("data/set.jsonl", "cases\n")
    assert "not in this repository" in repo.problems("0" * 40)[0]
