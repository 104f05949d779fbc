"""`git aide map`: the folders of the code with the memories that reach each, which are
always-on, stale or orphaned, and where much code has no memory; from a folder, at a
revision, as JSON and as a tree."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import aide, aide_ok, code_file, commit, git, remember, write

from git_aide.core import memory


def backdate(repo: Path, doc: dict[str, Any]) -> None:
    """Make a memory look written long ago, its file kept canonical."""
    path = repo / doc["path"]
    record = json.loads(path.read_text())
    record["created_at"] = record["updated_at"] = "2020-01-01T00:00:00.000Z"
    path.write_bytes(memory.canonical(record))


@pytest.fixture
def team(repo: Path) -> tuple[Path, dict[str, dict[str, Any]]]:
    """A repository whose memories say something about each folder."""
    for rel in ("src/auth/login.ts", "src/auth/tokens.ts", "src/db/query.py",
                "src/db/schema.py", "docs/guide.md"):
        code_file(repo, rel)
    write(repo, "vendor/big.js", "x" * 50_000)  # much code, no memory
    docs = {
        "auth": remember(repo, "Tokens rotate hourly", "--layer", "area_context",
                         "--scope", "src/auth/**", "--priority", "always"),
        "python": remember(repo, "Python code is typed", "--scope", "**/*.py"),
        "wide": remember(repo, "Commit messages say why", "--layer", "guidelines"),
        "old": remember(repo, "The old module is frozen", "--layer", "area_context",
                        "--scope", "src/old/**"),
        "db": remember(repo, "Queries go through the pool", "--layer", "area_context",
                       "--scope", "src/db/**"),
    }
    backdate(repo, docs["db"])
    commit(repo, "code and memories")
    (repo / "src/db/query.py").write_text("changed\n")
    commit(repo, "the pool changed")
    git(repo, "config", "aide.audit.churnCommits", "1")
    return repo, docs


def folders(node: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every folder of a `map --json` tree, by path."""
    out = {node["path"]: node}
    for kid in node.get("children", []):
        out.update(folders(kid))
    return out


def test_each_folder_counts_the_memories_that_reach_it(team: tuple[Path, Any]) -> None:
    repo, _docs = team
    doc = aide_ok(repo, "map", "--json").json()
    assert doc["source"]["kind"] == "worktree" and doc["depth"] == 2
    by = folders(doc["map"])
    counts = {p: (f["memories"], f["always"], f["stale"], f["orphaned"], f["here"])
              for p, f in by.items()}
    assert counts == {
        # every memory; the project-wide one and `**/*.py` are about the top folder
        "": (5, 1, 1, 1, 2),
        # auth, python (its .py files), old (orphaned: placed where src/old would be), db
        "src": (4, 1, 1, 1, 1),
        "src/auth": (1, 1, 0, 0, 1),
        "src/db": (2, 0, 1, 0, 1),
        "docs": (0, 0, 0, 0, 0),
        "vendor": (0, 0, 0, 0, 0),
    }
    assert by["vendor"]["uncovered"] and not by["docs"]["uncovered"]
    assert by["vendor"]["bytes"] == 50_000 and by["src/db"]["files"] == 2
    # The top folder holds what `init` wrote there too (.gitattributes, .gitignore).
    top = [p for p in git(repo, "ls-files").split() if "/" not in p]
    assert top and by[""]["files"] == 6 + len(top)
    assert by[""]["bytes"] == sum(by[p]["bytes"] for p in ("src", "docs", "vendor")) + sum(
        (repo / p).stat().st_size for p in top)


def test_from_a_folder_at_a_depth_and_a_revision(team: tuple[Path, Any]) -> None:
    repo, docs = team
    doc = aide_ok(repo, "map", "src", "--json").json()
    assert doc["folder"] == "src"
    assert (doc["map"]["path"], doc["map"]["memories"]) == ("src", 4)  # not the wide one
    sub = aide_ok(repo, "map", "--json", "--depth", "0", cwd_arg(repo, "src")).json()
    assert "children" not in sub["map"] and sub["map"]["subfolders"] == 2
    # At the first commit nothing had churned yet: nothing stale.
    first = aide_ok(repo, "map", "--rev", "HEAD~1", "--json").json()["map"]
    assert (first["memories"], first["stale"]) == (5, 0)
    git(repo, "rm", "-q", "-r", "src/auth")
    commit(repo, "auth is gone")
    now = folders(aide_ok(repo, "map", "--json").json()["map"])
    assert "src/auth" not in now and now["src"]["orphaned"] == 2
    assert folders(aide_ok(repo, "map", "--json", "--rev", "HEAD~1").json()["map"])[
        "src/auth"]["always"] == 1
    assert docs["auth"]["uuid"]


def cwd_arg(repo: Path, folder: str) -> str:
    """A folder as the command line gives it, from the repository's top."""
    return str(repo / folder)


@pytest.mark.quick
def test_the_tree_in_text_marks_what_a_lead_looks_for(team: tuple[Path, Any]) -> None:
    repo, _docs = team
    out = aide_ok(repo, "map").stdout.splitlines()
    assert out[0].startswith("./  5 memories (1 always-on, 1 stale, 1 orphaned)  ")
    assert "├── src/  4 memories (1 always-on, 1 stale, 1 orphaned)  4 files" in "\n".join(out)
    assert any(line.startswith("│   ├── auth/  1 memory (1 always-on)  2 files")
               for line in out)
    [vendor] = [line for line in out if "vendor/" in line]
    assert vendor.startswith("└── vendor/  no memory  1 file, 48.8 KB  <- ")
    assert vendor.endswith("% of the code, no memory")
    # Little code and no memory: said, not marked.
    [docs] = [line for line in out if "docs/" in line]
    assert docs.startswith("├── docs/  no memory  1 file, ") and docs.endswith(" B")
    top = aide_ok(repo, "map", "--depth", "0").stdout.splitlines()
    assert len(top) == 2 and top[1] == "5 more folders below (--depth 1 shows the next level)"
    assert aide_ok(repo, "map", "--all").stdout.count("\n") == 6


def test_bad_folders_and_options_are_one_line_errors(team: tuple[Path, Any]) -> None:
    repo, _docs = team
    r = aide(repo, "map", "src/auth/login.ts")
    assert r.returncode == 1 and r.stderr == (
        "git-aide: error: src/auth/login.ts: a file; map shows folders (give its folder)\n")
    r = aide(repo, "map", "nowhere")
    assert r.returncode == 1 and "nowhere: no folder of the code has this path" in r.stderr
    r = aide(repo, "map", "--json", "--html", "x.html")
    assert r.returncode == 2 and "cannot be used together" in r.stderr
    r = aide(repo, "map", "--rev", "no-such-rev")
    assert r.returncode == 1 and "names no commit" in r.stderr
    assert not (repo / "x.html").exists()
    r = aide(repo, "map", "--html", str(repo / "src"))
    assert r.returncode == 1 and r.stderr == (
        f"git-aide: error: cannot write {repo / 'src'}: Is a directory\n")


def test_an_empty_repository_has_a_map_of_nothing(tmp_path: Path) -> None:
    from helpers import make_repo

    empty = make_repo(tmp_path / "empty")
    doc = aide_ok(empty, "map", "--json").json()["map"]
    assert (doc["path"], doc["memories"], doc["children"]) == ("", 0, [])
    remember(empty, "not committed yet")
    assert aide_ok(empty, "map", "--json").json()["map"]["memories"] == 1
    assert aide_ok(empty, "map").stdout.startswith("./  1 memory  ")


def test_on_a_terminal_the_tree_is_drawn_in_colour(team: tuple[Path, Any]) -> None:
    import re

    from helpers import AIDE, BASE_ENV, on_tty

    repo, _docs = team
    code_file(repo, "src/\x1b[31mred/a.ts")  # a folder's name is shown as text, not codes
    status, out, err = on_tty(repo, [*AIDE, "map"], {**BASE_ENV, "GIT_PAGER": "cat",
                                                     "COLUMNS": "160"})
    assert status == 0, err
    assert "\x1b[" in out  # coloured
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert "├── src/" in plain and "│   ├── auth/" in plain
    assert re.search(r"vendor/  no memory  1 file, 48\.8 KB  <- \d+% of the code, no memory",
                     plain)
    assert "\x1b[31mred" not in out and "\\u001b[31mred/" in plain
