"""The memories folder watched by a long-lived server, so that a call need not ask git.

A recall of the working tree needs the memory files that differ from the index. The
command line asks `git status`, which costs a process and a stat of every memory file
(20-30 ms at 10,000 memories). The MCP server stays up between calls, so it asks git
once and then lets the kernel say what changed (Linux inotify): the files git named at
that baseline, plus every file touched since, are what may differ. `read_dirty` then
reads only those, through its stat table.

git is asked again whenever the answer could be stale in a way the events do not cover:
the index file changed (a commit, `git add`, a checkout), a folder was created, removed
or moved, the kernel's queue overflowed, or many files were touched. Where inotify is
missing or not trustworthy (not Linux, a network or FUSE file system, a symbolic link
among the memory folders), or `aide.mcp.watch` is false, every call asks git, as the
command line does.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct

from git_aide.cache import stat_sig
from git_aide.folders import linked
from git_aide.memory import MEMORIES_DIR

_IN_NONBLOCK = 0o4000
_IN_CLOEXEC = 0o2000000
_IN_MODIFY = 0x2
_IN_CLOSE_WRITE = 0x8
_IN_MOVED_FROM = 0x40
_IN_MOVED_TO = 0x80
_IN_CREATE = 0x100
_IN_DELETE = 0x200
_IN_DELETE_SELF = 0x400
_IN_MOVE_SELF = 0x800
_IN_Q_OVERFLOW = 0x4000
_IN_IGNORED = 0x8000
_IN_ONLYDIR = 0x01000000
_IN_DONT_FOLLOW = 0x02000000
_IN_ISDIR = 0x40000000
#: What a folder's watch reports: any change of its files' contents or names.
_MASK = (_IN_MODIFY | _IN_CLOSE_WRITE | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE
         | _IN_DELETE | _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_ONLYDIR | _IN_DONT_FOLLOW)
#: Events after which the folder tree itself may differ from what is watched.
_RESCAN = _IN_Q_OVERFLOW | _IN_IGNORED | _IN_DELETE_SELF | _IN_MOVE_SELF
_EVENT = struct.Struct("iIII")

#: File systems whose changes the local kernel sees as they happen (inotify reports
#: only what this machine's kernel does: not a network share's other clients).
LOCAL_FILE_SYSTEMS = frozenset({
    "ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "ramfs", "zfs", "f2fs", "overlay",
    "reiserfs", "jfs", "bcachefs", "nilfs2", "vfat", "exfat", "hfsplus"})
#: Beyond this many files touched since git was asked, ask it again: the list that
#: `read_dirty` stats on every call stays short.
MAX_TOUCHED = 64


class Watch:
    """The memory folders of one working tree under inotify, and git's last answer."""

    def __init__(self, top: str) -> None:
        #: The working tree's top folder.
        self.top = top
        self._fd = -1
        self._libc: ctypes.CDLL | None = None
        #: Watch descriptor -> the folder it watches, relative to `top`.
        self._folders: dict[int, str] = {}
        #: The files git named at the baseline (relative to `top`).
        self._baseline: list[str] = []
        #: The files touched since the baseline.
        self._touched: set[str] = set()
        #: The index file's stat at the baseline; None: no baseline, ask git.
        self._index_sig: tuple[int, ...] | None = None
        #: An event said the folders themselves changed: watch them again.
        self._rescan = False
        #: The memories folder watched: (device, inode).
        self._root: tuple[int, int] | None = None

    def changed(self, index_file: str) -> list[str] | None:
        """The files that may differ from the index, or None when git must be asked
        (then call `baseline` with its answer)."""
        if self._index_sig is None or self._fd < 0:
            return None
        self._drain()
        if (self._rescan or self._fd < 0 or len(self._touched) > MAX_TOUCHED
                or stat_sig(index_file) != self._index_sig or not self._same_root()):
            self._index_sig = None
            return None
        return sorted(self._touched.union(self._baseline))

    def prepare(self) -> bool:
        """Before git is asked for a baseline: watch the folders (again) and forget the
        events so far. False when this tree cannot be watched."""
        self._touched.clear()
        self._index_sig = None
        if self._fd < 0 and not self._open():
            return False
        self._drain()  # queued before now: git's answer covers them
        if self._rescan or not self._folders:  # changed, or made since the last look
            self._rewatch()
        self._touched.clear()
        return self._fd >= 0 and bool(self._folders)

    def baseline(self, index_file: str, sig: tuple[int, ...] | None,
                 paths: list[str]) -> None:
        """git's answer, asked after `prepare`, with the index's stat read before it."""
        self._baseline = list(paths)
        self._index_sig = sig if sig is not None and sig == stat_sig(index_file) else None

    def _same_root(self) -> bool:
        """Whether the memories folder is still the one watched: a watch follows its
        folder, so `.aide` moved away and another put in its place says nothing."""
        try:
            st = os.stat(os.path.join(self.top, MEMORIES_DIR))
        except OSError:
            return False
        if (st.st_dev, st.st_ino) == self._root:
            return True
        self._rescan = True
        return False

    def close(self) -> None:
        """Stop watching."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        self._folders.clear()
        self._index_sig = None

    def _open(self) -> bool:
        if not usable(self.top):
            return False
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        except (OSError, AttributeError):
            return False
        if fd < 0:
            return False
        self._libc, self._fd = libc, fd
        self._rewatch()
        return bool(self._folders)

    def _rewatch(self) -> None:
        """Watch every memory folder as it is now (a watch added twice is one watch).

        Each folder is watched before it is listed, so that a subfolder made meanwhile
        is either listed here or reported by its parent's watch.
        """
        assert self._libc is not None
        self._rescan = False
        self._folders.clear()
        self._root = None
        root = os.path.join(self.top, MEMORIES_DIR)
        if linked(self.top):
            return  # git reads nothing through a link; neither would the events
        try:
            st = os.stat(root)
        except OSError:
            return
        self._root = (st.st_dev, st.st_ino)
        stack = [root]
        while stack:
            base = stack.pop()
            wd = self._libc.inotify_add_watch(self._fd, os.fsencode(base), _MASK)
            if wd < 0:
                if ctypes.get_errno() == errno.ENOENT and base != root:
                    continue  # removed just now: its parent's watch said so
                self._folders.clear()  # out of watches, say: git is asked every call
                return
            self._folders[wd] = os.path.relpath(base, self.top).replace(os.sep, "/")
            try:
                with os.scandir(base) as listing:
                    stack.extend(e.path for e in listing if e.is_dir(follow_symlinks=False))
            except OSError:
                continue  # removed just now: its parent's watch said so

    def _drain(self) -> None:
        """Read the queued events into `_touched`, or mark that a rescan is needed."""
        while self._fd >= 0:
            try:
                data = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                return
            except OSError:
                self.close()
                return
            at = 0
            while at + _EVENT.size <= len(data):
                wd, mask, _cookie, size = _EVENT.unpack_from(data, at)
                name = data[at + _EVENT.size:at + _EVENT.size + size].rstrip(b"\0")
                at += _EVENT.size + size
                folder = self._folders.get(wd)
                if mask & _RESCAN or mask & _IN_ISDIR or folder is None:
                    self._rescan = True
                    continue
                if name:
                    self._touched.add(f"{folder}/{os.fsdecode(name)}")


def usable(top: str) -> bool:
    """Whether inotify can be trusted for this working tree's memories folder."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as f:
            mounts = f.read().splitlines()
    except OSError:
        return False  # not Linux
    where = os.path.realpath(os.path.join(top, MEMORIES_DIR))
    best, kind = "", ""
    for line in mounts:
        fields, _, tail = line.partition(" - ")
        parts = fields.split()
        if len(parts) < 5 or not tail:
            continue
        point = parts[4].replace("\\040", " ")
        inside = where == point or where.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, kind = point, tail.split()[0]
    return kind in LOCAL_FILE_SYSTEMS
