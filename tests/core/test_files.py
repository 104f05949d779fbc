"""core/files (the one atomic write and the one lock) and cache/codec (the one framing),
held to their promises with real files and real processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from zlib import crc32

import pytest

from git_aide.cache import codec
from git_aide.cache.disk import FORMAT, OUTDATED
from git_aide.cache.folder import Cache
from git_aide.core import files

#: A process that takes the lock on argv[1], says so, waits argv[2] seconds, then
#: (argv[3] == "unlink") removes the lock file before it lets go.
HOLDER = (
    "import fcntl, os, sys, time\n"
    "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)\n"
    "fcntl.flock(fd, fcntl.LOCK_EX)\n"
    "print('held', flush=True)\n"
    "time.sleep(float(sys.argv[2]))\n"
    "if sys.argv[3] == 'unlink':\n"
    "    os.unlink(sys.argv[1])\n")

#: A process that says whether the lock on argv[1] is free right now.
PROBE = (
    "import fcntl, os, sys\n"
    "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)\n"
    "try:\n"
    "    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
    "    print('free')\n"
    "except BlockingIOError:\n"
    "    print('busy')\n")


def hold(path: Path, seconds: float, then: str = "") -> subprocess.Popen[str]:
    """Another process holding the lock on `path` (started, and holding, on return)."""
    p = subprocess.Popen([sys.executable, "-c", HOLDER, str(path), str(seconds), then],
                         stdout=subprocess.PIPE, text=True)
    assert p.stdout is not None and p.stdout.readline().strip() == "held"
    return p


def probe(path: Path) -> str:
    """'free' or 'busy': what another process finds the lock on `path` to be."""
    return subprocess.run([sys.executable, "-c", PROBE, str(path)], capture_output=True,
                          text=True, check=True).stdout.strip()


# -- write_atomic ------------------------------------------------------------------------

def test_write_atomic_makes_the_folder_and_replaces_the_file(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "file"
    files.write_atomic(str(path), b"one")
    files.write_atomic(str(path), [b"t", b"wo"], sync=False)
    assert path.read_bytes() == b"two"
    assert sorted(p.name for p in path.parent.iterdir()) == ["file"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "file"
    path.write_bytes(b"old")

    def chunks() -> Iterator[bytes]:
        yield b"half of the new"
        raise OSError("the disk is full")

    with pytest.raises(OSError, match="full"):
        files.write_atomic(str(path), chunks())
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["file"]


# -- lock --------------------------------------------------------------------------------

def test_a_holder_that_keeps_the_lock_past_the_wait_raises_lock_busy(tmp_path: Path) -> None:
    path = tmp_path / "lock"
    holder = hold(path, 30)
    try:
        started = time.monotonic()
        with pytest.raises(files.LockBusy), files.lock(str(path), wait=0.5):
            pass
        assert time.monotonic() - started < 10
    finally:
        holder.kill()
        holder.wait()
    with files.lock(str(path), wait=0.5):
        assert probe(path) == "busy"
    assert probe(path) == "free"


def test_a_lock_file_removed_while_waiting_is_not_the_one_held(tmp_path: Path) -> None:
    # The holder removes the lock file before it lets go: the waiter's lock on the old
    # file would exclude nobody, so it must lock the file now at the path.
    path = tmp_path / "lock"
    for wait in (None, 20.0):
        holder = hold(path, 0.3, "unlink")
        with files.lock(str(path), wait=wait):
            holder.wait()
            assert path.exists() and probe(path) == "busy"


def test_a_lock_that_cannot_be_made_says_which_fix(tmp_path: Path) -> None:
    with pytest.raises(files.LockFailed) as e, files.lock(str(tmp_path / "no" / "lock")):
        pass
    assert e.value.folder


def test_the_cache_does_without_a_lock_it_cannot_take(tmp_path: Path) -> None:
    root = tmp_path / "aide" / "cpython"
    root.mkdir(parents=True)
    root.chmod(0o500)
    try:
        if os.access(root, os.W_OK):
            pytest.skip("this user writes in read-only folders")
        ran = []
        with Cache(str(root)).lock("stats.lock"):
            ran.append(True)
        assert ran == [True] and not (root / "stats.lock").exists()
    finally:
        root.chmod(0o700)


# -- codec -------------------------------------------------------------------------------

def test_a_whole_file_of_another_format_is_outdated_a_changed_one_damaged() -> None:
    head = b"the head"
    data = codec.frame("cache", FORMAT, head) + b"body"
    assert codec.unframe("cache", FORMAT, data) == (head, len(data) - 4)
    with pytest.raises(codec.Outdated):
        codec.unframe("cache", FORMAT + 1, data)
    with pytest.raises(codec.Outdated):
        codec.unframe("cache", FORMAT, b"git-aide-cache\0\3" + bytes(8))  # before framing
    for at in range(len(data) - 4):  # the lead, the length, the checksum, the head
        changed = bytearray(data)
        changed[at] ^= 0x21
        with pytest.raises(ValueError) as e:
            codec.unframe("cache", FORMAT, bytes(changed))
        assert e.type is ValueError, at  # damaged, never taken for another version's
    with pytest.raises(ValueError):
        codec.unframe("view", FORMAT, data)  # another kind of file


def test_a_cache_file_of_another_python_is_outdated_not_damaged(tmp_path: Path) -> None:
    cache = Cache(str(tmp_path / "aide" / "cpython"))
    cache.write({"a": 1}, "stats")
    path = Path(cache.path("stats"))
    lead = codec.lead("cache", FORMAT)
    other = lead.replace(codec.PYTHON.encode(), b"otherpython-399")
    head = path.read_bytes()[len(lead) + 8:]
    path.write_bytes(other + len(head).to_bytes(4, "little")
                     + crc32(head, crc32(other)).to_bytes(4, "little") + head)
    fresh = Cache(cache.root)
    assert fresh.read("stats") is None
    assert fresh.notices == [OUTDATED] and not path.exists()
