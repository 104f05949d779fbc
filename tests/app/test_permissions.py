"""A user without write access (issue 36, item 13): a folder git-aide cannot write is named
in one line, at once, and nothing is left half done.

Run as a user the permission bits apply to (helpers.unprivileged: root drops its power
over them in the child; the test is skipped, saying why, where that cannot be done).
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

from helpers import (
    CACHE,
    MEM,
    aide_ok,
    aide_unprivileged,
    error_line,
    git,
    make_repo,
    read_only,
    remember,
    run_unprivileged,
    write_memory,
)

from git_aide.core import memory


def memory_files(repo: Path) -> set[str]:
    """Every file under the memories folder (hidden ones too: a left temporary file)."""
    return {str(p.relative_to(repo)) for p in (repo / MEM).rglob("*") if p.is_file()}


def untracked(repo: Path) -> str:
    return git(repo, "status", "--porcelain", "--untracked-files=all", "--", MEM)


# -- a memory folder that cannot be written ---------------------------------------------

def test_a_read_only_layer_folder_is_named(repo: Path) -> None:
    remember(repo, "the first memory")
    before = memory_files(repo)
    with read_only(repo / MEM / "technical"):
        r = aide_unprivileged(repo, "remember", "a second memory")
    line = error_line(r)
    assert "internal error" not in line
    assert "cannot write .aide/memories/technical/: permission denied" in line
    assert "nothing was remembered" in line
    assert memory_files(repo) == before


def test_a_missing_layer_folder_under_a_read_only_one_names_the_parent(repo: Path) -> None:
    shutil.rmtree(repo / MEM / "guidelines")
    with read_only(repo / MEM):
        r = aide_unprivileged(repo, "remember", "a guideline", "--layer", "guidelines")
    assert "cannot write .aide/memories/: permission denied" in error_line(r)
    assert not (repo / MEM / "guidelines").exists()


def test_update_into_a_read_only_layer_changes_nothing(repo: Path) -> None:
    doc = remember(repo, "moves to guidelines")
    with read_only(repo / MEM / "guidelines"):
        r = aide_unprivileged(repo, "update", doc["uuid"], "--layer", "guidelines")
    assert "cannot write .aide/memories/guidelines/: permission denied" in error_line(r)
    assert (repo / doc["path"]).is_file()
    assert not list((repo / MEM / "guidelines").glob("*.json"))


def test_forget_is_all_or_nothing_with_a_read_only_folder(repo: Path) -> None:
    kept = remember(repo, "a technical memory")
    other = remember(repo, "a guideline memory", "--layer", "guidelines")
    with read_only(repo / MEM / "guidelines"):
        r = aide_unprivileged(repo, "forget", kept["uuid"], other["uuid"])
    assert "cannot write .aide/memories/guidelines/: permission denied" in error_line(r)
    assert (repo / kept["path"]).is_file() and (repo / other["path"]).is_file()


# -- a git folder that cannot be written ---------------------------------------------------

def test_a_read_only_git_folder_fails_at_once_and_leaves_nothing(repo: Path) -> None:
    remember(repo, "the first memory")  # the write lock's file exists from now on
    before = memory_files(repo)
    status = untracked(repo)
    started = time.monotonic()
    with read_only(repo / ".git"):
        r = aide_unprivileged(repo, "remember", "a memory git cannot stage")
    took = time.monotonic() - started
    line = error_line(r)
    # Not the index-lock timeout (10 s) for a lock nobody holds, nor another git's fault.
    assert took < 5, took
    assert "locked by another git process" not in line
    assert f"cannot write {repo / '.git'}: permission denied" in line
    assert "nothing was remembered" in line
    assert memory_files(repo) == before and untracked(repo) == status


def test_a_read_only_git_folder_still_takes_no_stage(repo: Path) -> None:
    remember(repo, "the first memory")
    with read_only(repo / ".git"):
        r = aide_unprivileged(repo, "remember", "written, not staged", "--no-stage", "--json")
    assert r.returncode == 0, r.stderr
    assert (repo / r.json()["path"]).is_file()


def test_update_and_forget_with_a_read_only_git_folder_change_nothing(repo: Path) -> None:
    doc = remember(repo, "stays as it is")
    text = (repo / doc["path"]).read_bytes()
    with read_only(repo / ".git"):
        upd = aide_unprivileged(repo, "update", doc["uuid"], "--what", "changed")
        fgt = aide_unprivileged(repo, "forget", doc["uuid"])
    assert f"cannot write {repo / '.git'}: permission denied" in error_line(upd)
    assert f"cannot write {repo / '.git'}: permission denied" in error_line(fgt)
    assert (repo / doc["path"]).read_bytes() == text


def test_staging_tells_an_unwritable_index_folder_from_a_held_lock(repo: Path) -> None:
    """The git boundary itself (a write that passed its checks a moment before the git
    folder became read-only): git cannot make index.lock, and nobody holds it."""
    rec = write_memory(repo, "written before the folder turned read-only")
    path = memory.relpath(rec)
    script = ("import sys, time\n"
              "from git_aide.gitio.repo import open_repo\n"
              "start = time.monotonic()\n"
              "try:\n"
              "    print('staged', open_repo().stage(add=[sys.argv[1]], remove=[]))\n"
              "except Exception as e:\n"
              "    print(type(e).__name__, e)\n"
              "print(round(time.monotonic() - start, 1))\n")
    with read_only(repo / ".git"):
        r = run_unprivileged(repo, [sys.executable, "-c", script, path])
    assert r.returncode == 0, r.stderr
    said, took = r.stdout.splitlines()
    assert said == f"Unwritable cannot write {repo / '.git'}: permission denied"
    assert float(took) < 5


# -- a cache that cannot be written --------------------------------------------------------

def test_an_unwritable_cache_is_said_once_and_searched_from_the_files(repo: Path) -> None:
    for i in range(3):
        remember(repo, f"zebra memory number {i}")
    aide_ok(repo, "search", "zebra")  # the index is built, and held in the cache
    remember(repo, "a zebra memory the index lacks")
    with read_only(repo / ".git" / "aide", tree=True):
        runs = [aide_unprivileged(repo, "search", "zebra", "--json") for _ in range(2)]
    want = aide_ok(repo, "search", "zebra", "--json").json()
    assert len(want["memories"]) == 4
    for r in runs:
        assert r.returncode == 0, r.stderr
        assert r.json() == want
        lines = r.stderr.splitlines()
        assert len(lines) == 1, r.stderr
        assert "damaged" not in lines[0] and "rebuilt" not in lines[0]
        assert "cache cannot be written" in lines[0]
        assert f"{repo / CACHE}" in lines[0]


def test_no_cache_and_a_read_only_git_folder_searches_from_the_files(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    for i in range(3):
        remember(repo, f"zebra memory number {i}")
    shutil.rmtree(repo / ".git" / "aide")
    with read_only(repo / ".git"):
        r = aide_unprivileged(repo, "search", "zebra", "--json")
    assert r.returncode == 0, r.stderr
    assert len(r.json()["memories"]) == 3
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and "damaged" not in lines[0], r.stderr
    assert f"cache cannot be written ({repo / '.git'}: permission denied)" in lines[0]


def test_import_with_a_read_only_git_folder_writes_nothing(repo: Path) -> None:
    (repo / "AGENTS.md").write_text("# Rules\n\n- Review every migration twice.\n")
    before = sorted(p.name for p in (repo / MEM).rglob("*.json"))
    with read_only(repo / ".git"):
        r = aide_unprivileged(repo, "import", "AGENTS.md")
    assert r.returncode == 1, r.stderr
    assert "permission denied" in r.stderr and "nothing was imported" in r.stderr
    assert sorted(p.name for p in (repo / MEM).rglob("*.json")) == before
