"""A repository whose path holds a newline, a carriage return, a tab or a space (issue 36,
item 2): git-aide finds it, `init` leaves git working, the commands and the hooks work
there, and so does the merge driver in a linked worktree.

git answers `rev-parse`'s questions one a line and has no -z for them; a path with a
newline in it once made `init` take `.git/index` for the working tree and leave
`.git/index/` a folder, after which every git command failed. Real git, real folders.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from helpers import (
    AIDE,
    BASE_ENV,
    CACHE,
    aide,
    aide_ok,
    clone,
    git,
    make_repo,
    put,
    remember,
    stamp,
    team,
    uuids,
)
from helpers import commit_memories as commit
from helpers import merge_record as record
from helpers import valid_record as valid
from helpers import write_record as write

from git_aide.gitio import repo as gitio_repo

#: Folder names that once broke git-aide (a newline; str.splitlines also splits at a
#: carriage return, U+001C and U+2028), and two that must go on working.
ODD = ["repo\nwith-newline", "ends-in-a-newline\n", "repo\rwith-cr", "repo\x1cwith-fs",
       "repo\u2028with-ls", "repo with space", "repo\twith-tab"]
#: The ones the slower tests take.
FEW = ["repo\nwith-newline", "repo\x1cwith-fs", "repo\twith-tab"]


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """git, with git-aide on its PATH (hooks, the merge driver), whatever its status."""
    env = {**BASE_ENV, "PATH": os.path.dirname(AIDE[0]) + os.pathsep + BASE_ENV["PATH"]}
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env)


@pytest.mark.parametrize("name", ODD)
def test_init_leaves_git_working(tmp_path: Path, name: str) -> None:
    repo = make_repo(tmp_path / name, init=False)
    aide_ok(repo, "init", "--no-hooks")
    assert not (repo / ".git" / "index").is_dir()
    assert run(repo, "status").returncode == 0
    assert (repo / ".gitattributes").is_file() and (repo / ".aide" / "memories").is_dir()
    assert git(repo, "config", "merge.aide.driver").startswith("git-aide merge-driver")
    assert os.listdir(tmp_path) == [name]  # nothing written beside the repository


@pytest.mark.parametrize("name", FEW)
def test_a_clone_remembers_lists_recalls_and_searches(tmp_path: Path, name: str) -> None:
    origin = make_repo(tmp_path / "origin")
    first = remember(origin, "the first memory", "--scope", "src/**")["uuid"]
    git(origin, "commit", "-q", "-m", "one")
    repo = clone(origin, tmp_path / name)
    second = remember(repo, "the second memory", "--scope", "src/**")["uuid"]
    assert set(uuids(aide_ok(repo, "list", "--json"))) == {first, second}
    assert set(uuids(aide_ok(repo, "recall", "src/a.py", "--json"))) == {first, second}
    slow = aide_ok(repo, "recall", "src/a.py", "--json", env={"GIT_AIDE_NO_FASTPATH": "1"})
    assert set(uuids(slow)) == {first, second}
    assert set(uuids(aide_ok(repo, "search", "memory", "--json"))) == {first, second}
    # From a folder whose name holds a newline too: paths are read relative to it.
    sub = repo / "sub\nfolder"
    sub.mkdir()
    assert set(uuids(aide_ok(sub, "recall", "../src/a.py", "--json"))) == {first, second}
    assert uuids(aide_ok(sub, "recall", "a.py", "--json")) == []
    git(repo, "commit", "-q", "-m", "two")
    assert set(uuids(aide_ok(repo, "recall", "--rev", "HEAD", "src/", "--json"))) == \
        {first, second}


def test_a_bare_repository_and_git_dir_at_such_a_path(tmp_path: Path) -> None:
    origin = make_repo(tmp_path / "origin")
    first = remember(origin, "the first memory", "--scope", "src/**")["uuid"]
    git(origin, "commit", "-q", "-m", "one")
    bare = tmp_path / "bare\nclone.git"
    git(tmp_path, "clone", "-q", "--bare", str(origin), str(bare))
    assert uuids(aide_ok(bare, "recall", "--rev", "HEAD", "src/a.py", "--json")) == [first]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = aide_ok(elsewhere, "recall", "--rev", "main", "src/a.py", "--json",
                env={"GIT_DIR": str(bare)})
    assert uuids(r) == [first]
    r = aide(bare, "list")
    assert r.returncode != 0 and "bare" in r.stderr and "Traceback" not in r.stderr


def test_open_repo_reads_every_answer_of_a_linked_worktree(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    main = make_repo(tmp_path / "main\nrepo", init=False)
    git(main, "commit", "-q", "--allow-empty", "-m", "base")
    linked = tmp_path / "linked\n\nworktree\n"
    git(main, "worktree", "add", "-q", str(linked), "-b", "side")
    sub = linked / "a\nb"
    sub.mkdir()
    for key, value in BASE_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(sub)
    got = gitio_repo.open_repo()
    assert got.worktree == str(linked)
    assert got.prefix == "a\nb"
    assert got.common_dir == str(main / ".git")
    assert got.git_dir.startswith(str(main / ".git" / "worktrees")) and os.path.isdir(got.git_dir)
    assert got.index_file == os.path.join(got.git_dir, "index")


def test_an_ordinary_path_is_read_from_one_git_process(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The start-up budget: the one `rev-parse` of every command, asked again one question
    a process only when its answer is ambiguous."""
    def asked_again() -> None:
        raise AssertionError("rev-parse asked again for an ordinary path")

    monkeypatch.setattr(gitio_repo, "_where_one_by_one", asked_again)
    for key, value in BASE_ENV.items():
        monkeypatch.setenv(key, value)
    (repo / "src").mkdir()
    monkeypatch.chdir(repo / "src")
    got = gitio_repo.open_repo()
    assert (got.worktree, got.prefix) == (str(repo), "src")
    monkeypatch.chdir(repo / ".git")
    assert gitio_repo.open_repo().worktree is None


@pytest.mark.parametrize("name", FEW)
def test_the_hooks_run_there(tmp_path: Path, name: str) -> None:
    repo = make_repo(tmp_path / name, hooks=True)
    assert (repo / ".git" / "hooks" / "pre-commit").is_file()
    remember(repo, "use pnpm")
    assert run(repo, "commit", "-q", "-m", "one").returncode == 0
    bad = put(repo, valid(what=""))
    git(repo, "add", bad)
    refused = run(repo, "commit", "-q", "-m", "broken")
    assert refused.returncode == 1 and f"{bad}: what: empty" in refused.stderr
    git(repo, "rm", "-q", "--cached", bad)
    # post-checkout brings the cache back
    cache = repo / CACHE
    subprocess.run(["rm", "-rf", str(cache)], check=True)
    assert run(repo, "checkout", "-q", "-b", "other").returncode == 0
    assert cache.is_dir()


def test_the_merge_driver_names_the_sides_of_a_rebase_in_a_linked_worktree(
        tmp_path: Path) -> None:
    """The driver reads where the git directory is (a rebase's state is there) from
    `rev-parse --git-dir`: absolute in a linked worktree, with the newline of its path."""
    folder = tmp_path / "team\nfolder"
    folder.mkdir()
    _origin, a, b = team(folder, record(tags=["x"]))
    write(a, record(what="upstream's text", tags=["x"], updated_at=stamp(9)))
    commit(a, "a edits it")
    git(a, "push", "-q")
    linked = b.parent / "b's\nworktree"
    git(b, "worktree", "add", "-q", str(linked), "-b", "mine")
    write(linked, record(what="my text", tags=["x"], updated_at=stamp(4)))
    commit(linked, "b edits it")
    mine = git(linked, "rev-parse", "--short=7", "HEAD").strip()
    git(linked, "fetch", "-q")
    proc = run(linked, "rebase", "origin/main")
    assert proc.returncode == 0, proc.stderr
    assert f"kept upstream (newer), dropped yours (commit {mine})" in proc.stderr, proc.stderr


def test_a_hooks_path_that_ends_in_a_space_is_the_one_used(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", init=False)
    git(repo, "config", "core.hooksPath", "tools/hooks ")
    aide_ok(repo, "init")
    assert (repo / "tools" / "hooks " / "pre-commit").is_file()
    assert not (repo / "tools" / "hooks").exists()
    bad = put(repo, valid(what=""))
    git(repo, "add", bad)
    assert run(repo, "commit", "-q", "-m", "broken").returncode == 1
