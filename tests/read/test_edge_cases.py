"""Inputs and states at the edges: damaged caches, odd text, odd revisions, odd env."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

from helpers import AIDE, BASE_ENV, CACHE, aide, aide_ok, git, remember, uuids

from git_aide.core import memory

STAMP = "2024-01-01T00:00:00.000Z"


def write_raw(repo: Path, uuid: str, text: str) -> Path:
    path = repo / ".aide/memories/technical" / f"{uuid}.json"
    path.write_text(text, encoding="utf-8")
    return path


def test_lost_record_packs_keep_untracked_and_personal_memories(repo: Path) -> None:
    mine = remember(repo, "my preference", "--personal")["uuid"]
    wip = remember(repo, "work in progress", "--no-stage")["uuid"]
    git(repo, "commit", "-qm", "c", "--allow-empty")
    time.sleep(2.2)  # old enough for the stat table to keep them
    aide_ok(repo, "list")
    shutil.rmtree(repo / CACHE / "packs", ignore_errors=True)  # (few files: maybe none)
    shutil.rmtree(repo / CACHE / "views", ignore_errors=True)
    for _ in range(2):
        r = aide_ok(repo, "list", "--json")
        assert set(uuids(r)) == {mine, wip}
        assert "skipped" not in r.stderr
    aide_ok(repo, "forget", mine)


def test_lone_surrogate_is_skipped_not_a_crash(repo: Path) -> None:
    good = remember(repo, "a fine memory about src")["uuid"]  # shares a word with src/a.py
    uuid = "77777777-7777-4777-8777-777777777777"
    head = json.dumps({"uuid": uuid, "layer": "technical", "contributor": "c",
                       "created_at": STAMP, "updated_at": STAMP})[:-1]
    write_raw(repo, uuid, head + ', "what": "\\ud800 x"}')
    for args in (["list", "--json"], ["recall", "src/a.py", "--json"], ["search", "fine",
                                                                      "--json"]):
        r = aide(repo, *args)
        assert r.returncode == 0, r.stderr
        assert uuids(r) == [good]
        assert "lone surrogate" in r.stderr
    r = aide(repo, "validate")
    assert r.returncode == 1 and uuid in r.stdout


def test_invalid_utf8_on_the_command_line_is_refused(repo: Path) -> None:
    proc = subprocess.run([*AIDE, "remember", b"bad \xff text"], cwd=repo, env=BASE_ENV,
                          capture_output=True)
    assert proc.returncode == 2  # a usage error, like every argument that is not UTF-8
    assert b"UTF-8" in proc.stderr and b"Traceback" not in proc.stderr
    assert not list((repo / ".aide/memories/technical").glob("*.json"))


def test_numbers_that_would_be_infinite_are_refused(repo: Path) -> None:
    uuid = "88888888-8888-4888-8888-888888888888"
    write_raw(repo, uuid, json.dumps({
        "uuid": uuid, "layer": "technical", "what": "big", "contributor": "c",
        "created_at": STAMP, "updated_at": STAMP})[:-1] + ', "id": 1e400}')
    r = aide_ok(repo, "list", "--json")
    assert uuids(r) == [] and "too large" in r.stderr
    assert aide(repo, "validate").returncode == 1


def test_timestamps_and_uuids_with_a_trailing_newline_are_invalid() -> None:
    assert not memory.TIME_RE.match(STAMP + "\n")
    assert not memory.UUID_RE.match("77777777-7777-4777-8777-777777777777\n")
    assert not memory.TIME_RE.match("２０２４-01-01T00:00:00.000Z")


def test_relative_git_dir_and_work_tree_from_a_subdirectory(repo: Path) -> None:
    sub = repo / "sub"
    sub.mkdir()
    env = {"GIT_DIR": "../.git", "GIT_WORK_TREE": ".."}
    doc = aide_ok(sub, "remember", "through relative variables", "--json", env=env).json()
    assert doc["staged"] is True
    assert doc["path"] in git(repo, "diff", "--cached", "--name-only")
    assert uuids(aide_ok(sub, "recall", "--cached", "--json", env=env)) == [doc["uuid"]]
    git(repo, "commit", "-qm", "one")
    r = aide_ok(sub, "forget", doc["uuid"], "--json", env=env).json()
    assert r["staged"] is True
    assert f"D  {doc['path']}" in git(repo, "status", "--porcelain")


def test_recall_does_not_wait_for_a_remember_that_waits_for_the_index(repo: Path) -> None:
    remember(repo, "already here")
    git(repo, "config", "aide.indexLockTimeout", "20")
    lock = repo / ".git" / "index.lock"
    lock.write_text("")
    writer = subprocess.Popen([*AIDE, "remember", "waiting to be staged", "--json"], cwd=repo,
                              env=BASE_ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        time.sleep(1.0)
        aide_ok(repo, "recall", "src/a.py")
        aide_ok(repo, "recall", "src/a.py", "--json")
        assert writer.poll() is None  # the recalls finished while it still waits
    finally:
        lock.unlink()
        writer.communicate(timeout=60)
    assert writer.returncode == 0


def test_odd_revisions(repo: Path) -> None:
    u = remember(repo, "found by message")["uuid"]
    git(repo, "commit", "-qm", "the special commit")
    assert uuids(aide_ok(repo, "recall", "--rev", ":/special", "--json")) == [u]
    for rev in ("@{u}", "HEAD^{tree}", "main~7", "-h", "a\nb"):
        r = aide(repo, "recall", "--rev", rev)
        assert r.returncode == 1, (rev, r.stderr)
        assert "names no commit" in r.stderr


def test_damage_inside_a_view_is_noticed_and_repaired(repo: Path) -> None:
    made = {remember(repo, f"memory {i}", "--scope", f"src/m{i}/**")["uuid"]
            for i in range(6)}
    made.add(remember(repo, "project-wide memory for src")["uuid"])  # shares "src" with the path
    time.sleep(2.2)  # views are kept once the index is old enough to trust its stat
    aide_ok(repo, "list")
    views = list((repo / CACHE / "views").glob("worktree-*"))
    assert views
    for view in views:  # keep the header, spoil the body
        data = bytearray(view.read_bytes())
        size = int.from_bytes(data[:8], "little")
        for i in range(8 + size, len(data), 7):
            data[i] ^= 0x5A
        view.write_bytes(bytes(data))
    for args in (["list", "--json"], ["recall", "src/m3/x.py", "--json"]):
        r = aide(repo, *args)
        assert r.returncode == 0, r.stderr
        assert "Traceback" not in r.stderr
        got = set(uuids(r))
        assert got == made if args[0] == "list" else len(got) == 2
    r = aide_ok(repo, "show", sorted(made)[0], "--json")
    assert r.json()["memory"]["uuid"] == sorted(made)[0]


def test_literal_pathspecs_do_not_hide_untracked_memories(repo: Path) -> None:
    staged = remember(repo, "staged one")["uuid"]
    loose = remember(repo, "untracked one", "--no-stage")["uuid"]
    mine = remember(repo, "personal one", "--personal")["uuid"]
    for var in ("GIT_LITERAL_PATHSPECS", "GIT_ICASE_PATHSPECS", "GIT_NOGLOB_PATHSPECS"):
        got = set(uuids(aide_ok(repo, "recall", "--json", env={var: "1"})))
        assert got == {staged, loose, mine}, var


def test_a_symlinked_memories_folder_is_said_not_silently_empty(repo: Path,
                                                                 tmp_path: Path) -> None:
    elsewhere = tmp_path / "store"
    shutil.move(str(repo / ".aide" / "memories"), str(elsewhere))
    (repo / ".aide" / "memories").symlink_to(elsewhere)
    r = aide_ok(repo, "recall", "--json")
    assert "symbolic link" in r.stderr


def test_fast_path_takes_only_ascii_digits_as_a_limit(repo: Path) -> None:
    for value in ("²", "①", "٣"):  # int() refuses the first two and takes the third
        r = aide(repo, "recall", "--limit", value)
        slow = aide(repo, "recall", "--limit", value, env={"GIT_AIDE_NO_FASTPATH": "1"})
        assert (r.returncode, r.stdout, r.stderr) == (slow.returncode, slow.stdout, slow.stderr)
        assert "Traceback" not in r.stderr
    assert aide(repo, "recall", "--limit", "²").returncode == 2


def test_many_first_searches_at_once(repo: Path) -> None:
    made = {remember(repo, f"concurrent number {i}")["uuid"] for i in range(30)}
    for _round in range(3):
        shutil.rmtree(repo / ".git" / "aide", ignore_errors=True)
        procs = [subprocess.Popen([*AIDE, "search", "concurrent", "--json", "--limit", "50"],
                                  cwd=repo, env=BASE_ENV, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(6)]
        for p in procs:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, err
            assert err == "", err  # nothing was damaged: no notice
            assert {m["uuid"] for m in json.loads(out)["memories"]} == made


def test_a_first_read_of_many_takes_the_files_and_never_waits_on_one(repo: Path) -> None:
    """A first index of many memories reads them from the working tree's files, and a file
    that is a FIFO or a link to an endless device is read from git instead: the
    command ends and every memory of the index and HEAD is indexed."""
    import os

    from helpers import commit_memories, put, valid_record

    recs = [valid_record(what=f"kiwi note {i}") for i in range(300)]
    paths = [put(repo, rec) for rec in recs]
    commit_memories(repo, "many")
    (repo / paths[0]).unlink()
    os.mkfifo(repo / paths[0])
    (repo / paths[1]).unlink()
    (repo / paths[1]).symlink_to("/dev/zero")
    shutil.rmtree(repo / CACHE, ignore_errors=True)
    proc = subprocess.run([*AIDE, "index"], cwd=repo, capture_output=True, text=True,
                          env=BASE_ENV, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Indexed 300 new memories; 300 in the cache"), proc.stdout
    found = aide_ok(repo, "search", "kiwi", "--cached", "--limit", "1000", "--json")
    assert len(uuids(found)) == 300
