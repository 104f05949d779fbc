"""The click-free parsing of the hot commands' plain forms answers as click does."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import aide, git, remember

from git_aide.cli.argv import parse

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


#: Both parsers read the hot commands' one declaration (cli/option_table.py) and call the same
#: function (commands.run): what is left to compare end to end is the error boundary of
#: each path (commands.guarded, main.run) and the early git questions of the fast one.
ARGVS = [
    ["recall", "src/auth/x.ts", "--json"], ["search", "tokens", "--rev", "HEAD", "--limit", "1"],
    ["recall", "--rev", "nope"], ["recall", "--cached", "--rev", "HEAD"],
    ["recall", "../outside"], ["search", "x", "--cached", "--rev", "HEAD"],
    ["diff", "nope"], ["log", "--uuid", "nope", "--json"],
]


@pytest.mark.parametrize("argv", ARGVS, ids=[" ".join(a) for a in ARGVS])
def test_same_answer_with_and_without_click(stocked: Path, argv: list[str]) -> None:
    fast = aide(stocked, *argv)
    slow = aide(stocked, *argv, env=CLICK)
    assert (fast.returncode, fast.stdout, fast.stderr) == \
        (slow.returncode, slow.stdout, slow.stderr)


PLAIN = [
    ["recall", "src/", "--limit", "2", "--json"], ["recall", "--limit=1", "-q", "pnpm"],
    ["recall", "--layer", "guidelines", "--layer", "preferences", "--tag", "auth", "-"],
    ["recall", "--contributor", "Ada Tester", "--staged", "--", "--odd"],
    ["search", "--rev=v1", "words here", "--layer", "technical"], ["search", "--", "-x"],
    ["diff", "A...B", "--stat", "--exit-code", "--", "src/"],
    ["diff", "--cached", "--format", "markdown"],
    ["log", "--all", "--reverse", "-n", "3", "--uuid", "1a2b", "--json", "--", "a", "b"],
]


@pytest.mark.parametrize("argv", PLAIN, ids=[" ".join(a) for a in PLAIN])
def test_both_parsers_read_the_same_keywords(argv: list[str]) -> None:
    """What the fast parser reads is what click reads (click fills in the defaults)."""
    from git_aide.cli.main import main

    parsed = parse(argv)
    assert parsed is not None
    command, fast = parsed
    ctx = main.commands[command].make_context(command, argv[1:])
    slow = {k: list(v) if isinstance(v, tuple) else v for k, v in ctx.params.items()}
    if "paths" in ctx.meta:
        slow["paths"] = ctx.meta["paths"]
    assert {k: slow[k] for k in fast} == fast
    assert all(v in (None, False, [], "text") for k, v in slow.items() if k not in fast)


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
