"""Scope rules (README, How recall and search rank), through `git aide recall` on real
repositories."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import aide, aide_ok, git, remember, uuids

from git_aide.core import scope as scopes

# (scope, query path, relevant) -- every row of the table, and more.
TABLE = [
    (None, "anything/at/all.py", True),                 # project-wide
    ("src/auth/**", "src/auth/middleware.ts", True),    # file under S
    ("src/auth/**", "src/auth/", True),                 # the directory S names
    ("src/components/**", "src/", True),                # S inside P (parent inheritance)
    ("src/auth/**", "src/db/store.ts", False),          # different subtree
    ("src/**/*.{ts,tsx}", "src/ui/button.tsx", True),   # braces
    ("src/**/*.{ts,tsx}", "src/ui/button.ts", True),
    ("src/**/*.{ts,tsx}", "src/ui/button.py", False),
    ("src/rules", "src/rules/a.ts", True),              # a bare directory
    ("src/rules/", "src/rules/deep/b.ts", True),
    ("src/rules", "src/rulesets/a.ts", False),
    ("src\\legacy\\**", "src/legacy/old.c", True),      # backslashes read as /
    ("**/*.py", "tools/x/run.py", True),
    ("packages/api/server/**", "packages/api/", True),
    ("packages/api/server/**", "packages/web/", False),
]


@pytest.mark.parametrize(("scope", "path", "relevant"), TABLE)
def test_relevance_rule(scope: str | None, path: str, relevant: bool) -> None:
    if scope is None:
        assert scopes.is_project_wide(scope)
        return
    c = scopes.compile_scope(scope)
    is_dir = path.endswith("/")
    assert scopes.relevant(c, path.rstrip("/"), is_dir) is relevant


def test_scope_table_through_recall(repo: Path) -> None:
    made = {}
    for i, (scope, _path, _rel) in enumerate(TABLE):
        args = ["--scope", scope] if scope else []
        # Distinct words (no memory supersedes another), and the project-wide one shares a
        # word with its path: a path recall takes only such project-wide memories.
        made[i] = remember(repo, f"memory {'anything' if scope is None else ''} "
                                 f"{chr(97 + i) * 3} {i}", *args)["uuid"]
    for i, (_scope, path, relevant) in enumerate(TABLE):
        got = uuids(aide_ok(repo, "recall", path, "--json", "--limit", "100"))
        assert (made[i] in got) is relevant, (TABLE[i], got)


def test_depth() -> None:
    assert scopes.depth("src/**") == 1
    assert scopes.depth("src/auth/**") == 2
    assert scopes.depth("**/*.py") == 1
    assert scopes.depth("src/rules/") == 2
    assert scopes.depth("**") == 0


@pytest.mark.parametrize(("min_depth", "returned"), [(1, True), (2, True), (3, False)])
def test_min_scope_depth(repo: Path, min_depth: int, returned: bool) -> None:
    u = remember(repo, "api routes are versioned", "--scope", "src/api/**")["uuid"]
    git(repo, "config", "aide.recall.minScopeDepth", str(min_depth))
    got = uuids(aide_ok(repo, "recall", "src/api/routes/a.ts", "--json"))
    assert (u in got) is returned
    # a directory query is not cut by depth
    assert u in uuids(aide_ok(repo, "recall", "src/", "--json"))


def test_query_path_relative_to_current_directory(repo: Path) -> None:
    u = remember(repo, "auth tokens rotate", "--scope", "src/auth/**")["uuid"]
    sub = repo / "src" / "auth"
    sub.mkdir(parents=True)
    assert u in uuids(aide_ok(sub, "recall", "middleware.ts", "--json"))
    assert u in uuids(aide_ok(sub, "recall", ".", "--json"))
    assert u not in uuids(aide_ok(sub, "recall", "../../src/db/x.ts", "--json"))


def test_query_path_outside_the_repository(repo: Path) -> None:
    r = aide(repo, "recall", "../elsewhere/file.py")
    assert r.returncode == 1
    assert "outside the repository" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("bad", ["", "/etc/**", "C:\\x\\**", "../up/**", "src/../../x", "   ",
                                 "a" * 501, "src/\0x"])
def test_invalid_scopes_are_refused(repo: Path, bad: str) -> None:
    if "\0" in bad:  # a NUL cannot pass through argv; check the rule directly
        assert scopes.check(bad)
        return
    r = aide(repo, "remember", "something", "--scope", bad)
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith("git-aide: error: ")
    assert "Traceback" not in r.stderr
    assert not list((repo / ".aide/memories/technical").glob("*.json"))


# (place, memory scope, kept by `list --scope place`): scopes_under
UNDER = [
    ("src/auth", "src/auth/**", True),                   # the folder itself
    ("src/auth/**", "src/auth/**", True),                # its /** is the folder too
    ("src/auth", "src/auth/login.py", True),             # a file in it
    ("src/auth", "src/auth/*.ts", True),                 # a glob placed in it
    ("src/auth", "src/authz/**", False),                 # a name it starts, not a folder
    ("src/auth", "src/**", False),                       # wider: not at or under
    ("src/auth", None, False),                           # project-wide: only `project`
    ("project", None, True),
    ("project", "project", True),
    ("project", "src/**", False),
    ("src/auth", "{src/auth/a.py,docs/a.md}", True),     # one alternative is enough
    ("src/*/api", "src/web/api/**", True),               # a glob place: what it matches
    ("src/*/api/**", "src/web/api/handlers.py", True),
    ("src/*/api", "src/web/**", False),
    ("src/**/*.py", "src/**/*.py", True),                # the same glob
    ("src/**/*.py", "src/a/b.py", True),
    ("*.py", "*.py", True),
    ("docs", "src/**/*.md", False),
    ("{docs,web}", "web/app.ts", True),
]


@pytest.mark.parametrize("place,scope,kept", UNDER)
def test_a_scope_lies_at_or_under_a_place(place: str, scope: str | None, kept: bool) -> None:
    assert scopes.under(place)(scope) is kept
