"""`git aide resolve` (README, Teams: clone, init, pull, merge): modify/delete, and clones
without the driver."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import aide, aide_ok, git, make_repo, pull, stamp, team, unmerged, write_lock
from helpers import commit_memories as commit
from helpers import merge_record as record
from helpers import read_record as read
from helpers import write_record as write

from git_aide.core import memory
from git_aide.core.merge import merge_bytes

PATH = memory.relpath(record())


def date(day: int) -> str:
    """A commit date in January 2024 (noon UTC), for GIT_COMMITTER_DATE."""
    return f"2024-01-{day:02d}T12:00:00Z"


def _branches(tmp_path: Path, update_day: int, delete_day: int) -> Path:
    """main has the memory; `upd` updates it on `update_day`; `del` deletes it on `delete_day`."""
    repo = make_repo(tmp_path / "r")
    write(repo, record())
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base", env={"GIT_COMMITTER_DATE": date(1)})
    git(repo, "checkout", "-q", "-b", "upd")
    write(repo, record(what="updated", updated_at=stamp(update_day)))
    commit(repo, "update it", date=date(update_day))
    git(repo, "checkout", "-q", "-b", "del", "main")
    git(repo, "rm", "-q", PATH)
    commit(repo, "forget it", date=date(delete_day))
    return repo


@pytest.mark.parametrize("into", ["upd", "del"])
@pytest.mark.parametrize("newer", ["update", "deletion"])
def test_modify_delete_the_later_event_wins(tmp_path: Path, newer: str, into: str) -> None:
    update_day, delete_day = (20, 10) if newer == "update" else (10, 20)
    repo = _branches(tmp_path, update_day, delete_day)
    git(repo, "checkout", "-q", into)
    other = "del" if into == "upd" else "upd"
    git(repo, "merge", "-q", other, check=False)
    assert PATH in unmerged(repo)

    dry = aide_ok(repo, "resolve", "--dry-run")
    assert ("would keep" if newer == "update" else "would delete") in dry.stdout
    assert PATH in unmerged(repo)  # --dry-run changed nothing

    done = aide_ok(repo, "resolve")
    assert PATH in done.stdout and unmerged(repo) == ""
    if newer == "update":
        assert done.stdout.startswith("kept ")
        assert read(repo)["what"] == "updated"
        assert git(repo, "ls-files", "--", PATH).strip() == PATH
    else:
        assert done.stdout.startswith("deleted ")
        assert not (repo / PATH).exists()
        assert git(repo, "ls-files", "--", PATH) == ""
    git(repo, "commit", "-q", "--no-edit")
    assert aide_ok(repo, "resolve").stdout.startswith("no unmerged memories")


@pytest.mark.parametrize("newer", ["update", "deletion"])
def test_modify_delete_in_a_rebase(tmp_path: Path, newer: str) -> None:
    update_day, delete_day = (20, 10) if newer == "update" else (10, 20)
    _origin, a, b = team(tmp_path, record())
    git(a, "rm", "-q", PATH)
    commit(a, "a forgets it", date=date(delete_day))
    git(a, "push", "-q")
    write(b, record(what="b's update", updated_at=stamp(update_day)))
    commit(b, "b updates it", date=date(update_day))
    assert pull(b, "--rebase", check=False).returncode != 0
    out = aide_ok(b, "resolve").stdout
    assert out.startswith("kept " if newer == "update" else "deleted "), out
    git(b, "-c", "core.editor=true", "rebase", "--continue")
    assert (b / PATH).exists() == (newer == "update")


@pytest.mark.quick
def test_modify_delete_in_a_cherry_pick(tmp_path: Path) -> None:
    repo = _branches(tmp_path, update_day=20, delete_day=10)
    git(repo, "checkout", "-q", "del")
    git(repo, "cherry-pick", "upd", check=False)
    assert PATH in unmerged(repo)
    assert aide_ok(repo, "resolve").stdout.startswith("kept ")
    assert read(repo)["what"] == "updated" and unmerged(repo) == ""


@pytest.mark.parametrize("how", ["never ran init", "init --uninstall"])
def test_a_clone_without_the_driver_gets_text_conflicts_that_resolve_settles(
        tmp_path: Path, how: str) -> None:
    base = record(tags=["x", "y"])
    _origin, a, b = team(tmp_path, base, init_b=how != "never ran init")
    if how == "init --uninstall":
        # Not `git config --unset merge.aide.driver` alone: with merge.aide.name still
        # set, git dies ("custom merge driver aide lacks command line").
        aide_ok(b, "init", "--uninstall")
        assert "merge.aide" not in git(b, "config", "--local", "--list")
    theirs = write(a, record(what="a's text", tags=["x", "y", "a"], updated_at=stamp(3)))
    commit(a, "a")
    git(a, "push", "-q")
    ours = write(b, record(why="b's reason", tags=["y"], updated_at=stamp(4)))
    commit(b, "b")
    assert pull(b, check=False).returncode != 0
    assert b"<<<<<<<" in (b / PATH).read_bytes() and PATH in unmerged(b)
    out = aide_ok(b, "resolve").stdout
    assert out.startswith(f"merged {PATH}")
    got = read(b)
    assert (got["what"], got["why"], got["tags"]) == ("a's text", "b's reason", ["y", "a"])
    assert unmerged(b) == ""
    # The driver, had it run, would have written the same bytes.
    assert (b / PATH).read_bytes() == merge_bytes(
        memory.canonical(base), ours.read_bytes(), theirs.read_bytes())
    git(b, "commit", "-q", "--no-edit")


def test_what_resolve_cannot_settle_is_left_with_a_line(tmp_path: Path) -> None:
    _origin, a, b = team(tmp_path, record())
    (a / PATH).write_text("not json at all\n")
    commit(a, "a breaks it")
    git(a, "push", "-q")
    write(b, record(what="b", updated_at=stamp(5)))
    commit(b, "b")
    assert pull(b, check=False).returncode != 0
    before = (b / PATH).read_bytes()
    r = aide(b, "resolve")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert f"left {PATH}: cannot merge: ours is not valid JSON" in r.stdout or \
        f"left {PATH}: cannot merge: theirs is not valid JSON" in r.stdout
    assert r.stderr.startswith("git-aide: error: 1 memory path(s) left unmerged")
    assert (b / PATH).read_bytes() == before and PATH in unmerged(b)


def test_a_hand_resolution_is_never_overwritten(tmp_path: Path) -> None:
    _origin, a, b = team(tmp_path, record(), init_b=False)
    write(a, record(what="a", updated_at=stamp(3)))
    commit(a, "a")
    git(a, "push", "-q")
    write(b, record(what="b", updated_at=stamp(4)))
    commit(b, "b")
    assert pull(b, check=False).returncode != 0
    mine = write(b, record(what="my own resolution", updated_at=stamp(6))).read_bytes()
    r = aide(b, "resolve")
    assert r.returncode == 1 and "edited by hand" in r.stdout
    assert (b / PATH).read_bytes() == mine and PATH in unmerged(b)


def test_nothing_to_resolve(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    assert aide_ok(repo, "resolve").stdout.startswith("no unmerged memories")


def test_resolve_never_writes_through_a_symlinked_layer_folder(tmp_path: Path) -> None:
    _origin, a, b = team(tmp_path, record(tags=["x"]), init_b=False)
    write(a, record(what="a's text", updated_at=stamp(3)))
    commit(a, "a")
    git(a, "push", "-q")
    write(b, record(why="b's reason", updated_at=stamp(4)))
    commit(b, "b")
    assert pull(b, check=False).returncode != 0 and PATH in unmerged(b)
    # The layer folder turned into a link out of the repository while the merge stopped.
    outside = tmp_path / "outside"
    (b / PATH).parent.rename(outside)
    (b / PATH).parent.symlink_to(outside)
    before = {p.name: p.read_bytes() for p in outside.iterdir()}
    r = aide(b, "resolve")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and ".aide/memories/technical" in lines[0] and \
        "symbolic link" in lines[0]
    assert {p.name: p.read_bytes() for p in outside.iterdir()} == before
    assert PATH in unmerged(b)


def test_resolve_waits_for_the_write_lock(tmp_path: Path) -> None:
    _origin, a, b = team(tmp_path, record(), init_b=False)
    write(a, record(what="a's text", updated_at=stamp(3)))
    commit(a, "a")
    git(a, "push", "-q")
    write(b, record(why="b's reason", updated_at=stamp(4)))
    commit(b, "b")
    assert pull(b, check=False).returncode != 0
    git(b, "config", "aide.writeLockTimeout", "0.5")
    before = (b / PATH).read_bytes()
    with write_lock(b):
        r = aide(b, "resolve")
        assert r.returncode == 1 and "write lock" in r.stderr
        assert (b / PATH).read_bytes() == before and PATH in unmerged(b)
    assert aide_ok(b, "resolve").stdout.startswith(f"merged {PATH}")
