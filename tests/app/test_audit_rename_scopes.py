"""`audit --fix` after renames to names holding glob characters, and moves that no scope
can follow without taking in other code (issue 19, item 17).

A rewritten scope must match the files the old one matched, where they are now, and
nothing that was already there beside them; when no scope does, audit says so and
`--fix` leaves the memory alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import aide_ok, code_file, commit, git, remember


def findings(repo: Path) -> dict[str, dict[str, Any]]:
    """uuid -> its `moved` finding."""
    return {f["uuid"]: f for f in aide_ok(repo, "audit", "--json").json()["findings"]
            if f["kind"] == "moved"}


def recalled(repo: Path, path: str) -> set[str]:
    """The memories whose scope matches `path` (not those that merely name it)."""
    return {m["uuid"] for m in aide_ok(repo, "recall", path, "--json").json()["memories"]
            if m["matched_scope"] is not None}


def scope_of(repo: Path, doc: dict[str, Any]) -> str:
    return json.loads((repo / doc["path"]).read_text())["scope"]


def test_folder_renamed_to_a_name_with_a_star(repo: Path) -> None:
    for name in ("x.py", "y.py"):
        code_file(repo, f"src/a/{name}")
    code_file(repo, "src/abc/k.py")
    doc = remember(repo, "the a folder is typed strictly", "--layer", "area_context",
                   "--scope", "src/a/**")
    commit(repo, "code")
    git(repo, "mv", "src/a", "src/a*")
    commit(repo, "rename")

    f = findings(repo)[doc["uuid"]]
    assert f["suggestion"] == {"scope": "src/a[*]/**"}
    fixed = aide_ok(repo, "audit", "--fix").stdout
    assert f"fixed {doc['uuid'][:8]}: scope src/a/** -> src/a[*]/** (staged)" in fixed
    assert scope_of(repo, doc) == "src/a[*]/**"
    assert doc["uuid"] in recalled(repo, "src/a*/x.py")
    assert doc["uuid"] not in recalled(repo, "src/abc/k.py")
    assert findings(repo) == {}

    # The escaped scope names the folder literally, so it follows the next rename too.
    commit(repo, "fix the scope")
    git(repo, "mv", "src/a*", "src/b")
    commit(repo, "rename again")
    assert findings(repo)[doc["uuid"]]["suggestion"] == {"scope": "src/b/**"}


#: (new folder name, folders beside it that the name would match read as a glob)
NAMES = [
    ("a?", ["ab"]),
    ("a[b]", ["ab"]),
    ("[!a]x", ["bx"]),
    ("{x,y}", ["x", "y"]),
    ("**", ["other"]),
    ("q{r}", ["qr"]),
    ("a]", []),
    ("!a", []),
    ("a,b", ["a"]),
    ("with space", []),
    ("ünïcode ✓", []),
]


def test_glob_characters_in_renamed_folder_names_are_escaped(repo: Path) -> None:
    docs = []
    for i, (_name, beside) in enumerate(NAMES):
        code_file(repo, f"p{i}/a/m.py")
        code_file(repo, f"p{i}/a/n.py")
        for other in beside:
            code_file(repo, f"p{i}/{other}/k.py")
        docs.append(remember(repo, f"folder number {i} keeps its own conventions",
                             "--layer", "area_context", "--scope", f"p{i}/a/**"))
    commit(repo, "code")
    for i, (name, _beside) in enumerate(NAMES):
        git(repo, "mv", f"p{i}/a", f"p{i}/{name}")
    commit(repo, "rename them all")

    got = findings(repo)
    assert all(got[d["uuid"]]["suggestion"] for d in docs), got
    aide_ok(repo, "audit", "--fix")
    for i, ((name, beside), doc) in enumerate(zip(NAMES, docs, strict=True)):
        for moved in ("m.py", "n.py"):
            assert doc["uuid"] in recalled(repo, f"p{i}/{name}/{moved}"), (name, scope_of(
                repo, doc))
        for other in beside:
            assert doc["uuid"] not in recalled(repo, f"p{i}/{other}/k.py"), (
                name, scope_of(repo, doc))
    assert findings(repo) == {}


def test_a_backslash_in_a_folder_name_is_reported_not_guessed(repo: Path) -> None:
    code_file(repo, "src/a/x.py")
    code_file(repo, "src/a/y.py")
    doc = remember(repo, "a keeps its tests beside it", "--layer", "area_context",
                   "--scope", "src/a/**")
    commit(repo, "code")
    git(repo, "mv", "src/a", "src/a\\b")  # a scope reads a backslash as `/`
    commit(repo, "rename")
    f = findings(repo)[doc["uuid"]]
    assert f["suggestion"] is None
    assert "no rewrite of scope src/a/** matches them and nothing else" in f["message"]
    before = (repo / doc["path"]).read_bytes()
    out = aide_ok(repo, "audit", "--fix").stdout
    assert "fixed" not in out and "update " + doc["uuid"][:8] + " --scope" in out
    assert (repo / doc["path"]).read_bytes() == before


@pytest.mark.parametrize("scope", ["src/a/**", "src/a/*.py"])
def test_files_moved_into_the_top_folder_do_not_widen_the_scope(repo: Path,
                                                                scope: str) -> None:
    code_file(repo, "src/a/x.py")
    code_file(repo, "src/a/y.py")
    code_file(repo, "src/b/z.py")
    code_file(repo, "README.md")
    doc = remember(repo, "the a folder is generated", "--layer", "area_context",
                   "--scope", scope)
    commit(repo, "code")
    git(repo, "mv", "src/a/x.py", "src/a/y.py", ".")
    commit(repo, "flatten")

    f = findings(repo)[doc["uuid"]]
    assert f["suggestion"] is None
    assert f["message"].startswith("2 files it matched moved from src/a to the top folder")
    before = (repo / doc["path"]).read_bytes()
    aide_ok(repo, "audit", "--fix")
    assert (repo / doc["path"]).read_bytes() == before
    assert doc["uuid"] not in recalled(repo, "src/b/z.py")


def test_a_folder_moved_into_the_top_folder_keeps_its_name(repo: Path) -> None:
    code_file(repo, "src/a/sub/x.py")
    code_file(repo, "src/a/sub/y.py")
    code_file(repo, "lib/z.py")
    doc = remember(repo, "sub is vendored", "--layer", "area_context",
                   "--scope", "src/a/sub/**")
    commit(repo, "code")
    git(repo, "mv", "src/a/sub", "sub")
    commit(repo, "hoist")
    assert findings(repo)[doc["uuid"]]["suggestion"] == {"scope": "sub/**"}


def test_files_moved_up_beside_other_code_are_reported(repo: Path) -> None:
    code_file(repo, "src/a/x.py")
    code_file(repo, "src/a/y.py")
    code_file(repo, "src/other.py")
    doc = remember(repo, "x and y are hand-tuned", "--layer", "area_context",
                   "--scope", "src/a/**")
    commit(repo, "code")
    git(repo, "mv", "src/a/x.py", "src/a/y.py", "src")
    commit(repo, "up one level")
    # `src/**` would take in src/other.py, which the memory was never about.
    f = findings(repo)[doc["uuid"]]
    assert f["suggestion"] is None and "from src/a to src" in f["message"]


def test_a_file_renamed_to_a_name_with_glob_characters(repo: Path) -> None:
    code_file(repo, "src/util.py")
    code_file(repo, "lib/uXtil.py")
    code_file(repo, "util.py")
    deep = remember(repo, "util has no imports", "--layer", "area_context",
                    "--scope", "src/util.py")
    top = remember(repo, "util is the public face", "--layer", "area_context",
                   "--scope", "lib/uXtil.py")
    commit(repo, "code")
    git(repo, "mv", "src/util.py", "lib/u*til.py")
    git(repo, "mv", "lib/uXtil.py", "ut?l.py")
    commit(repo, "rename")
    got = findings(repo)
    assert got[deep["uuid"]]["suggestion"] == {"scope": "lib/u[*]til.py"}
    assert got[top["uuid"]]["suggestion"] == {"scope": "ut[?]l.py"}
    aide_ok(repo, "audit", "--fix")
    assert deep["uuid"] in recalled(repo, "lib/u*til.py")
    assert top["uuid"] in recalled(repo, "ut?l.py")
    assert not {deep["uuid"], top["uuid"]} & recalled(repo, "util.py")


def test_brace_alternatives_moved_to_names_with_glob_characters(repo: Path) -> None:
    code_file(repo, "src/a/x.ts")
    code_file(repo, "docs/k.md")
    code_file(repo, "docs/l.md")
    code_file(repo, "code/a/decoy.ts")
    doc = remember(repo, "x and the docs change together", "--layer", "area_context",
                   "--scope", "{src/a,docs}/**")
    commit(repo, "code")
    git(repo, "mv", "src", "co*de")
    git(repo, "mv", "docs", "doc,s")
    commit(repo, "move both")
    f = findings(repo)[doc["uuid"]]
    assert f["suggestion"] == {"scope": "{co[*]de/a/**,doc[,]s/**}"}
    aide_ok(repo, "audit", "--fix")
    assert doc["uuid"] in recalled(repo, "co*de/a/x.ts")
    assert doc["uuid"] in recalled(repo, "doc,s/k.md")
    assert doc["uuid"] not in recalled(repo, "code/a/decoy.ts")
    assert findings(repo) == {}


def test_scopes_with_bracketed_glob_characters_match_them_literally(repo: Path) -> None:
    star = remember(repo, "the star folder is generated", "--layer", "area_context",
                    "--scope", "src/a[*]/**")
    bracket = remember(repo, "the bracket folder is vendored", "--layer", "area_context",
                       "--scope", "src/x[]]y/**")
    for path in ("src/a*/f.py", "src/a[b]/f.py", "src/x]y/f.py", "src/x/f.py"):
        code_file(repo, path)
    assert recalled(repo, "src/a*/f.py") == {star["uuid"]}
    assert recalled(repo, "src/a[b]/f.py") == set()
    assert recalled(repo, "src/x]y/f.py") == {bracket["uuid"]}
    assert recalled(repo, "src/x/f.py") == set()
