"""The click-free parsing of plain `recall` and `search` answers exactly as click does."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import aide, git, remember

from git_aide.cli.fastpath import parse

CLICK = {"GIT_AIDE_NO_FASTPATH": "1"}


@pytest.fixture
def stocked(repo: Path) -> Path:
    remember(repo, "tokens rotate hourly", "--scope", "src/auth/**", "--tag", "auth")
    remember(repo, "billing is event-sourced", "--layer", "area_context", "--scope",
             "src/billing/**", "--why", "audit")
    remember(repo, "use pnpm", "--layer", "preferences", "--tag", "tooling")
    remember(repo, "review every migration", "--layer", "guidelines")
    git(repo, "commit", "-qm", "memories")
    remember(repo, "staged only: graphql 404s", "--tag", "api")
    (repo / "src" / "auth").mkdir(parents=True)
    return repo


ARGVS = [
    ["recall"], ["recall", "--json"], ["recall", "src/auth/x.ts", "--json"],
    ["recall", "src/", "--limit", "2", "--json"], ["recall", "--limit=1", "--json"],
    ["recall", "--layer", "guidelines", "--layer", "preferences", "--json"],
    ["recall", "--tag", "auth", "--json"], ["recall", "--contributor", "Ada Tester", "--json"],
    ["recall", "--rev", "HEAD", "src/auth/", "--json"], ["recall", "--cached", "--json"],
    ["recall", "--staged", "src/billing/a.ts"], ["recall", "-q", "pnpm", "--json"],
    ["recall", "--query", "billing audit", "src/", "--json"], ["recall", "--", "src/auth/x.ts"],
    ["search", "pnpm", "--json"], ["search", "migration"], ["search", "auth", "--layer",
                                                             "technical", "--json"],
    ["search", "eterizat", "--json"], ["search", "tokens", "--rev", "HEAD", "--limit", "1"],
    ["recall", "--rev", "nope"], ["recall", "--cached", "--rev", "HEAD"],
    ["recall", "../outside"], ["search", "x", "--cached", "--rev", "HEAD"],
]


@pytest.mark.parametrize("argv", ARGVS, ids=[" ".join(a) for a in ARGVS])
def test_same_answer_with_and_without_click(stocked: Path, argv: list[str]) -> None:
    fast = aide(stocked, *argv)
    slow = aide(stocked, *argv, env=CLICK)
    assert (fast.returncode, fast.stdout, fast.stderr) == \
        (slow.returncode, slow.stdout, slow.stderr)


def test_same_answer_from_a_subdirectory(stocked: Path) -> None:
    sub = stocked / "src" / "auth"
    for argv in (["recall", "x.ts", "--json"], ["recall", ".", "--json"]):
        fast = aide(sub, *argv)
        assert fast.returncode == 0
        assert fast.stdout == aide(sub, *argv, env=CLICK).stdout


@pytest.mark.parametrize("argv", [
    ["recall", "-h"], ["recall", "--help"], ["recall", "--limit"], ["recall", "--limit", "x"],
    ["recall", "--layer", "nope"], ["recall", "--frobnicate"], ["search"],
    ["search", "a", "b"], ["recall", "--json=yes"], ["list"], ["remember", "x"],
])
def test_anything_unusual_goes_to_click(argv: list[str]) -> None:
    assert parse(argv) is None


def test_plain_forms_are_taken(tmp_path: Path) -> None:
    assert parse(["recall", "a.py", "--json", "--limit", "3", "--layer", "technical"]) == (
        "recall", {"paths": ["a.py"], "as_json": True, "limit": 3, "layers": ["technical"]})
    assert parse(["search", "--rev=v1", "words here"]) == (
        "search", {"rev": "v1", "query": "words here"})


def test_errors_match_click_outside_a_repository(tmp_path: Path) -> None:
    env = {"GIT_CEILING_DIRECTORIES": str(tmp_path.parent)}
    fast = aide(tmp_path, "recall", "x.py", env=env)
    slow = aide(tmp_path, "recall", "x.py", env={**env, **CLICK})
    assert fast.returncode == slow.returncode == 128
    assert fast.stderr == slow.stderr
