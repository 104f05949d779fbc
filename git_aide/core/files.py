"""Files written whole or not at all, and the lock that queues writers across processes.

The files git-aide keeps (a memory, a hook, an agent's settings, a cache file) are
written by `write_atomic`: a temporary file in the same folder, renamed over the old
one, so that a reader sees the old bytes or the new ones, never half of each. Every lock
(the repository's write lock, the cache's, the full-text index's) is `lock`: an OS lock
(flock), which the kernel releases when its holder dies, so a killed process never
leaves one stuck. Standard library only: every layer uses it.
"""

from __future__ import annotations

import contextlib
import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

#: Bytes of the holder's stamp at the start of a lock file: pid and a clock, padded.
STAMP_BYTES = 40


def write_atomic(path: str, data: bytes | Iterable[bytes], *, sync: bool = True) -> None:
    """Write a file atomically: a temporary file in the same folder (made if missing),
    then renamed over `path`; the temporary file is removed when anything fails, and
    the error is raised.

    `sync` flushes the bytes to the disk before the rename, so that a crash cannot leave
    an empty file where the old one was. Files a checksum guards and that can be made
    again (the cache) skip it: a recall must not wait for the disk.
    """
    folder, name = os.path.split(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    # Hidden, and ending in .tmp: listings of the folder skip it.
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            if isinstance(data, bytes):
                f.write(data)
            else:
                f.writelines(data)
            if sync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class LockFailed(OSError):
    """Report that the lock file cannot be made or locked (`folder`: True when it could not
    even be opened, so making its folder writable is the fix)."""

    folder: bool

    def __init__(self, error: OSError, folder: bool) -> None:
        super().__init__(error.errno, error.strerror or str(error))
        self.folder = folder


class LockBusy(Exception):
    """Report that another process held the lock for the whole wait."""


@contextlib.contextmanager
def lock(path: str, wait: float | None = None) -> Iterator[None]:
    """Hold an exclusive lock on the file at `path` (made if missing).

    `wait`: how long one holder may keep it before LockBusy is raised; None waits as
    long as it takes. The wait is for one holder, not for the queue: fifty writers at
    once on a busy machine take longer than the timeout in all, and each must still get
    its turn, so each holder stamps the file and a new stamp restarts the clock.
    A lock on a file that was removed (or replaced) while we waited excludes nobody (the
    next process locks the new file): then the file at the path is locked instead.
    LockFailed when the file cannot be opened or locked.
    """
    import fcntl

    while True:
        fd = _open(path)
        try:
            try:
                if wait is None:
                    fcntl.flock(fd, fcntl.LOCK_EX)  # the kernel wakes us: no polling
                else:
                    _wait_for(fd, wait)
            except OSError as e:
                raise LockFailed(e, folder=False) from None
            if _same_file(fd, path):
                _write_stamp(fd)
                yield
                return
        finally:
            os.close(fd)


def _wait_for(fd: int, wait: float) -> None:
    """Take the lock on `fd`, or raise LockBusy when one holder keeps it `wait` seconds."""
    import fcntl as f

    deadline = time.monotonic() + wait
    delay = 0.005
    seen = b""
    while True:
        try:
            f.flock(fd, f.LOCK_EX | f.LOCK_NB)
            return
        except BlockingIOError:
            stamp = _read_stamp(fd)
            if stamp != seen:
                seen, deadline = stamp, time.monotonic() + wait
            elif time.monotonic() >= deadline:
                raise LockBusy(wait) from None
            time.sleep(delay)
            delay = min(delay * 1.5, 0.05)


def _open(path: str) -> int:
    """Open the lock file, made if missing, and return its fd; LockFailed when it cannot."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        try:
            return os.open(path, os.O_RDONLY)  # flock needs no write access to the file
        except OSError:
            raise LockFailed(e, folder=True) from None


def _read_stamp(fd: int) -> bytes:
    """Read the stamp of the lock's current holder (b"" when it cannot be read)."""
    try:
        return os.pread(fd, STAMP_BYTES, 0)
    except OSError:
        return b""


def _write_stamp(fd: int) -> None:
    """Say that the lock changed hands (a read-only lock file stays unstamped)."""
    stamp = f"{os.getpid()} {time.time_ns()}".encode().ljust(STAMP_BYTES)[:STAMP_BYTES]
    with contextlib.suppress(OSError):
        os.pwrite(fd, stamp, 0)


def _same_file(fd: int, path: str) -> bool:
    """Tell whether `fd` is still the file at `path`."""
    try:
        here = os.stat(path)
    except OSError:
        return False
    held = os.fstat(fd)
    return (here.st_dev, here.st_ino) == (held.st_dev, held.st_ino)


def stat_sig(path: str) -> tuple[int, ...] | None:
    """Return (size, mtime_ns, inode, ctime_ns) of a file, or None when it is missing."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


def relative_inside(top: str, path: str) -> str | None:
    """Return `path` relative to the folder `top`, both with their links resolved, with
    `/` between names ("" for the top itself, as git's `--show-prefix` without its
    slash); None when it lies outside."""
    real, real_top = os.path.realpath(path), os.path.realpath(top)
    if real == real_top:
        return ""
    if not real.startswith(real_top.rstrip(os.sep) + os.sep):
        return None
    return os.path.relpath(real, real_top).replace(os.sep, "/")
