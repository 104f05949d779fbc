"""coverage.py: which folders a scope reaches, checked against the one matcher
(`scope.relevant`) path by path, on paths chosen to trip a shortcut: a folder named
like a file (`x.ts/`), siblings that sort inside a folder's run (`src-x`, `src.old`),
bracket characters, files at the top."""

from __future__ import annotations

import pytest

from git_aide.app.audit import Paths
from git_aide.app.coverage import Tree, parse_sizes
from git_aide.core import scope as scopes

PATHS = [
    "top.md", "Makefile", "src/a.ts", "src/b.py", "src/x.ts/inner.js", "src/deep/er/d.go",
    "src/deep/er/e.ts", "src/deep/f.md", "src/a[b]/g.py", "src/ui/h.tsx", "src/ui/i.css",
    "src-x/c.py", "src.old/f.py", "lib/util.py", "lib/go/k.go", "docs/readme.md",
    "docs/guide/intro.md",
]

SCOPES = [
    "**/*.go", "src/*.py", "src/**", "src", "src/", "src/**/*.{ts,js}", "*.md", "src/x.ts",
    "{src/deep,lib}/**", "src/a[[]b]/**", "lib/util.py", "nothing/**", "src/*/er/*.go",
    "**", "s*/**", "src/?.ts", "src/**/*.ts", "**/er/**", "*.py", "docs/**/*.md",
    "{src/ui,docs}/*.{tsx,md}", "Makefile", "src/[!a]*.py", "src/**/e.*",
]


def expected(c: scopes.Compiled) -> set[str]:
    """Every folder holding, at or below it, a path the scope matches."""
    out: set[str] = set()
    for p in PATHS:
        if scopes.relevant(c, p, False):
            folder = p.rpartition("/")[0]
            out.add(folder)
            while folder:
                folder = folder.rpartition("/")[0]
                out.add(folder)
    return out


@pytest.mark.parametrize("scope", SCOPES)
def test_a_scope_reaches_the_folders_above_every_file_it_matches(scope: str) -> None:
    tree = Tree(Paths(PATHS, None), dict.fromkeys(PATHS, 10))
    c = scopes.compile_scope(scope)
    reach = tree.reach(c, scope)
    got = {tree.folders[i] for i in tree.reached(reach)}
    assert got == expected(c)
    assert bool(reach) == bool(got)


def test_folders_keep_their_tree_in_one_run_and_add_up() -> None:
    tree = Tree(Paths(PATHS, None), dict.fromkeys(PATHS, 10))
    assert {tree.folders[i] for i in tree.below("src")} == {
        "src", "src/x.ts", "src/deep", "src/deep/er", "src/a[b]", "src/ui"}
    assert [tree.folders[i] for i in tree.above("src/deep/er")] == ["src/deep/er", "src/deep",
                                                                     "src", ""]
    assert tree.existing("src/gone/away") == "src"
    assert tree.existing("nowhere") == ""


def test_sizes_are_read_from_ls_tree_lines() -> None:
    out = (b"100644 blob 3b18e512dba79e4c8300dd08aeb37f8e728b8dad      12\tsrc/a b.py\0"
           b"160000 commit 3b18e512dba79e4c8300dd08aeb37f8e728b8dad       -\tvendor/lib\0")
    assert parse_sizes(out) == {"src/a b.py": 12, "vendor/lib": 0}


@pytest.mark.parametrize("scope", SCOPES)
def test_audit_finds_a_match_where_the_matcher_does(scope: str) -> None:
    """audit's `matches_any` (which tells an orphan) reads a glob's regex over a run of
    the sorted paths: it agrees with `relevant` path by path."""
    c = scopes.compile_scope(scope)
    assert Paths(PATHS, None).matches_any(c) == any(scopes.relevant(c, p, False)
                                                   for p in PATHS)
    assert not Paths([], None).matches_any(c)
