"""The memories folder watched by a long-lived server, so that a call need not ask git.

A recall of the working tree needs the memory files that differ from the index. The
command line asks `git status`, which costs a process and a stat of every memory file
(20-30 ms at 10,000 memories). The MCP server stays up between calls, so it asks git
once and then lets the kernel say what changed (Linux inotify): the files git named at
that baseline, plus every file touched since, are what may differ. `read_dirty` then
reads only those, through its stat table.

The watch vouches only for what the kernel reports. A folder's watch reports the
changes made through a name in that folder, but not a write through another hard link
to the same file (a `cp -al` backup, a sync tool), nor a link made from elsewhere; so
each memory file also carries a watch of its own, which reports every write to it
whatever name it came through. A mount or unmount anywhere (a bind mount over a
memory folder or file) makes the paths name other files: the mount table is watched
too, and any change to it starts the watch over.

git is asked again whenever the answer could be stale in a way the events do not cover:
the index file changed (a commit, `git add`, a checkout), a folder was created, removed
or moved, a mount changed, the kernel's queue overflowed, or many files were touched.
Where inotify is missing or not trustworthy (not Linux, a network or FUSE file system
at or below the memories folder, a symbolic link among the memory folders), or when
`aide.mcp.watch` is false, every call asks git, as the command line does.

A large store (more memory files than the share of the user's inotify watches a server
may take, `FILE_WATCH_SHARE`; 100,000 memories, say) cannot have a watch per file. Its
folders are watched, and each file that has another name (more than one link) when it
is listed or when it appears: a write through a name outside the tree reaches only such
a file. One case is left to time: a link made from outside the memories folder to a
file that had one name, then a write through that link. The kernel tells no folder of
the link, so git is asked again (and the files' links counted again) once the last look
is REBASE_SECONDS old: such a write is seen within that time, where every other one is
seen at the next call. Asking git every call instead would cost a large store a few
hundred ms per call.
"""

from __future__ import annotations

import ctypes
import errno
import os
import select
import struct
import time
from stat import S_ISDIR

from git_aide.core.files import stat_sig
from git_aide.core.memory import MEMORIES_DIR
from git_aide.gitio.folders import linked

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

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
_IN_UNMOUNT = 0x2000
_IN_Q_OVERFLOW = 0x4000
_IN_IGNORED = 0x8000
_IN_ONLYDIR = 0x01000000
_IN_DONT_FOLLOW = 0x02000000
_IN_ISDIR = 0x40000000
#: What a folder's watch reports: any change of its files' contents or names.
_MASK = (_IN_MODIFY | _IN_CLOSE_WRITE | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE
         | _IN_DELETE | _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_ONLYDIR | _IN_DONT_FOLLOW)
#: What a memory file's own watch reports: a write, through whichever of its names.
_FILE_MASK = _IN_MODIFY | _IN_CLOSE_WRITE | _IN_DONT_FOLLOW
#: Events after which the folder tree itself may differ from what is watched.
_RESCAN = _IN_Q_OVERFLOW | _IN_IGNORED | _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_UNMOUNT
_EVENT = struct.Struct("iIII")

#: File systems whose changes the local kernel sees as they happen (inotify reports
#: only what this machine's kernel does: not a network share's other clients).
LOCAL_FILE_SYSTEMS = frozenset({
    "ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "ramfs", "zfs", "f2fs", "overlay",
    "reiserfs", "jfs", "bcachefs", "nilfs2", "vfat", "exfat", "hfsplus"})
#: Beyond this many files touched since git was asked, ask it again: the list that
#: `read_dirty` stats on every call stays short.
MAX_TOUCHED = 64
#: A server takes at most this share (1/N) of the user's inotify watches
#: (fs.inotify.max_user_watches), one per memory file: editors and other tools need
#: theirs. A store with more files than that is not watched: git is asked every call.
FILE_WATCH_SHARE = 4
#: The user's inotify watches when the kernel does not say (its smallest default).
DEFAULT_MAX_WATCHES = 8192
#: How many memory files one step of `Watch.preparing` watches (a millisecond or two).
STEP_FILES = 200
#: In a large store (folders watched, not every file), git is asked again once its last
#: answer is this old (seconds): the bound on seeing a write through a link made later.
REBASE_SECONDS = 60.0


class Watch:
    """Watch the memory folders and files of one working tree under inotify; keep git's
    last answer."""

    def __init__(self, top: str) -> None:
        #: The working tree's top folder.
        self.top = top
        self._fd = -1
        self._libc: ctypes.CDLL | None = None
        #: Watch descriptor -> the folder it watches, relative to `top`.
        self._folders: dict[int, str] = {}
        #: Watch descriptor -> the names (relative to `top`) of the memory file it
        #: watches: one file, more than one name when it is hard-linked inside the tree.
        self._files: dict[int, set[str]] = {}
        #: A memory file's name -> the descriptor of its file's watch.
        self._file_wd: dict[str, int] = {}
        #: The most memory files watched (FILE_WATCH_SHARE of the user's watches).
        self._budget = 0
        #: Gave up: more multiply-linked memory files than the budget, or the kernel
        #: refused a watch.
        self._too_many = False
        #: A large store: the folders are watched, and only the files with more than
        #: one link (see the module's docstring).
        self.large = False
        #: When git last answered (time.monotonic()).
        self._asked_at = 0.0
        #: /proc/self/mountinfo, open to hear of any mount or unmount (-1: not open).
        self._mounts = -1
        #: Polls `_mounts`: the kernel flags the open mount table when it changes.
        self._mount_poll: select.poll | None = None
        #: Descriptors of file watches let go of, whose queued events mean nothing.
        self._released: set[int] = set()
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
        #: Grows whenever an event is read or git is asked again: the same number
        #: twice means that nothing under the memories folder changed in between.
        self.generation = 0

    def changed(self, index_file: str) -> list[str] | None:
        """Return the files that may differ from the index, or None when git must be asked
        (then call `prepare`, and `baseline` with its answer)."""
        if self._index_sig is None or self._fd < 0:
            return None
        if self._mounts_changed():
            self.close()  # paths may name other files now: start over
            return None
        self._drain()
        if (self._rescan or self._fd < 0 or len(self._touched) > MAX_TOUCHED
                or stat_sig(index_file) != self._index_sig or not self._same_root()):
            self._index_sig = None
            return None
        if self.large and time.monotonic() - self._asked_at > REBASE_SECONDS:
            self._index_sig = None
            self._rescan = True  # count the links again, too
            return None
        return sorted(self._touched.union(self._baseline))

    def prepare(self) -> bool:
        """Watch the folders and files (again) and forget the events so far, before git is
        asked for a baseline. False when this tree cannot be watched."""
        for _ in self.preparing():
            pass
        return self.watching()

    def preparing(self) -> Iterator[None]:
        """Do what `prepare` does, in steps of a millisecond or so (a long-lived process
        makes its watch between calls): each yield ends one."""
        self.generation += 1
        self._touched.clear()
        self._index_sig = None
        if self._fd >= 0 and self._mounts_changed():
            self.close()
        if self._fd >= 0 and self._root is not None:
            self._same_root()  # the folder replaced (or linked): watch it again
        if self._fd < 0:
            if not self._open():
                return
            yield from self._rewatch()
            if not self.watching():
                return
        self._drain()  # queued before now: git's answer covers them
        if self._fd >= 0 and (self._rescan or not self._folders):
            yield from self._rewatch()  # changed, or made since the last look
        self._touched.clear()

    def watching(self) -> bool:
        """Tell whether the tree is watched (prepare's answer)."""
        return self._fd >= 0 and bool(self._folders)

    def baseline(self, index_file: str, sig: tuple[int, ...] | None,
                 paths: list[str]) -> None:
        """Keep git's answer, asked after `prepare`, with the index's stat read before it."""
        self._baseline = list(paths)
        self._index_sig = sig if sig is not None and sig == stat_sig(index_file) else None
        self._asked_at = time.monotonic()

    def _same_root(self) -> bool:
        """Tell whether the memories folder is still the one watched, reached through no
        link: a watch follows its folder, so `.aide` moved away and another put in its
        place says nothing, nor does `.aide` moved away and a link to it made (git
        then lists none of its files). While this holds and no event came, no memory
        folder is a link (the readers need not look: read/worktree.py)."""
        try:
            parent = os.lstat(os.path.join(self.top, os.path.dirname(MEMORIES_DIR)))
            st = os.lstat(os.path.join(self.top, MEMORIES_DIR))
        except OSError:
            return False
        if S_ISDIR(parent.st_mode) and (st.st_dev, st.st_ino) == self._root:
            return True
        self._rescan = True
        return False

    def close(self) -> None:
        """Stop watching (the kernel drops every watch with the descriptor)."""
        self.generation += 1
        for fd in (self._fd, self._mounts):
            if fd >= 0:
                os.close(fd)
        self._fd = self._mounts = -1
        self._mount_poll = None
        self._folders.clear()
        self._files.clear()
        self._file_wd.clear()
        self._index_sig = None

    def _open(self) -> bool:
        """Open what the watch reads (the mount table, inotify); False when this tree
        cannot be watched. `_rewatch` then watches the folders and files."""
        if self._too_many:
            return False
        try:  # opened before usable() reads it: a mount made since then counts
            self._mounts = os.open("/proc/self/mountinfo", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return False  # not Linux
        self._mount_poll = select.poll()
        self._mount_poll.register(self._mounts, select.POLLPRI | select.POLLERR)
        self._mounts_changed()  # clears the flag: what is mounted now is looked at
        try:
            self._libc = ctypes.CDLL(None, use_errno=True)
            self._libc.inotify_init1  # noqa: B018 -- missing outside Linux
        except (OSError, AttributeError):
            self.close()
            return False
        if not usable(self.top):
            self.close()
            return False
        self._budget = max_watches() // FILE_WATCH_SHARE
        return True

    def _mounts_changed(self) -> bool:
        """Tell whether anything was mounted or unmounted since the last look (looking
        clears the kernel's flag)."""
        poll = self._mount_poll
        return self._mounts >= 0 and poll is not None and bool(poll.poll(0))

    def _rewatch(self) -> Iterator[None]:
        """Watch every memory folder and file as they are now, on a new descriptor (the
        old one's watches of files that left or were replaced go with it), in steps:
        each yield ends one (a folder listed, or STEP_FILES files watched).

        Each folder is watched before it is listed, so that a subfolder or file made
        meanwhile is either listed here or reported by its folder's watch; each file is
        watched before git is asked, so that a write git does not see is reported.
        """
        assert self._libc is not None
        self._rescan = False
        self._folders.clear()
        self._files.clear()
        self._file_wd.clear()
        self._root = None
        self._released.clear()
        if self._fd >= 0:
            os.close(self._fd)
        self._fd = self._libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if self._fd < 0:
            return
        root = os.path.join(self.top, MEMORIES_DIR)
        if linked(self.top):
            return  # git reads nothing through a link; neither would the events
        try:
            st = os.stat(root)
        except OSError:
            return
        self._root = (st.st_dev, st.st_ino)
        files: list[str] = []
        stack = [root]
        while stack:
            base = stack.pop()
            wd = self._libc.inotify_add_watch(self._fd, os.fsencode(base), _MASK)
            if wd < 0:
                if ctypes.get_errno() == errno.ENOENT and base != root:
                    continue  # removed just now: its parent's watch said so
                self._folders.clear()  # out of watches, say: git is asked every call
                return
            rel = os.path.relpath(base, self.top).replace(os.sep, "/")
            self._folders[wd] = rel
            try:
                with os.scandir(base) as listing:
                    for e in listing:
                        if e.is_dir(follow_symlinks=False):
                            stack.append(e.path)
                        elif e.is_file(follow_symlinks=False):
                            files.append(f"{rel}/{e.name}")
            except OSError:
                continue  # removed just now: its parent's watch said so
            yield
        self.large = len(files) > self._budget
        for at, path in enumerate(files, 1):
            if not self._watch_file(path):
                return
            if at % STEP_FILES == 0:
                yield

    def _watch_file(self, path: str) -> bool:
        """Watch a memory file itself (by its name relative to `top`); False when the
        watch had to be given up (too many files)."""
        assert self._libc is not None
        self._forget_file(path)
        if self.large and not _linked_elsewhere(os.path.join(self.top, path)):
            return True  # one name, in a watched folder: the folder reports its writes
        if len(self._files) >= self._budget and not self.large:
            # The store outgrew a watch per file: watched as a large one from the next
            # look (git is asked then, as after any rescan).
            self.large = True
            self._rescan = True
            return True
        if len(self._files) >= self._budget:
            self._give_up()
            return False
        full = os.fsencode(os.path.join(self.top, path))
        wd = self._libc.inotify_add_watch(self._fd, full, _FILE_MASK)
        if wd < 0:
            if ctypes.get_errno() in (errno.ENOENT, errno.ENOTDIR):
                return True  # gone again: its folder's watch said so
            self._give_up()  # the user's watches ran out
            return False
        self._files.setdefault(wd, set()).add(path)
        self._file_wd[path] = wd
        return True

    def _forget_file(self, path: str) -> None:
        """Forget `path`: it names no watched file any more (removed, or moved away)."""
        wd = self._file_wd.pop(path, None)
        if wd is None:
            return
        names = self._files.get(wd)
        if names is not None:
            names.discard(path)
            if not names:  # its file left the tree (or is gone): stop watching it
                del self._files[wd]
                if self._libc is not None and self._fd >= 0:
                    self._libc.inotify_rm_watch(self._fd, wd)
                    self._released.add(wd)

    def _give_up(self) -> None:
        """Give up watching each file, as there are too many: git is asked every call."""
        self._too_many = True
        self.close()

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
            if data:
                self.generation += 1
            at = 0
            while at + _EVENT.size <= len(data) and self._fd >= 0:
                wd, mask, _cookie, size = _EVENT.unpack_from(data, at)
                name = data[at + _EVENT.size:at + _EVENT.size + size].rstrip(b"\0")
                at += _EVENT.size + size
                names = self._files.get(wd)
                if names is not None:  # a memory file's own watch
                    if mask & _IN_IGNORED:  # its last name is gone
                        for path in names:
                            self._file_wd.pop(path, None)
                        del self._files[wd]
                    elif mask & _IN_UNMOUNT:
                        self._rescan = True
                    else:
                        self._touched.update(names)
                    continue
                if wd in self._released:
                    continue  # a file's watch let go of (`_forget_file`)
                folder = self._folders.get(wd)
                if mask & _RESCAN or mask & _IN_ISDIR or folder is None:
                    self._rescan = True
                    continue
                if name:
                    path = f"{folder}/{os.fsdecode(name)}"
                    self._touched.add(path)
                    if mask & (_IN_DELETE | _IN_MOVED_FROM):
                        self._forget_file(path)
                    elif mask & (_IN_CREATE | _IN_MOVED_TO) and not self._rescan:
                        self._watch_file(path)


def made(watch: Watch, index_file: str) -> Iterator[None]:
    """Prepare `watch` and take git's baseline, in steps of a millisecond or so (a
    long-lived process makes its watch between calls, and polls git meanwhile)."""
    from git_aide.gitio.spawn import STATUS, spawn
    from git_aide.gitio.status import changed_paths

    try:
        yield from watch.preparing()
        sig = stat_sig(index_file)
        status = spawn(*STATUS) if watch.watching() else None
        while status is not None and not status.finished(0.002):
            yield
        if status is not None:
            watch.baseline(index_file, sig, changed_paths(watch.top, status))
    except BaseException:
        watch.close()
        raise


def _linked_elsewhere(path: str) -> bool:
    """Tell whether a file has more than one name (hard links)."""
    try:
        return os.lstat(path).st_nlink > 1
    except OSError:
        return False  # gone again: its folder's watch said so


def max_watches() -> int:
    """Return how many inotify watches the kernel lets this user have."""
    try:
        with open("/proc/sys/fs/inotify/max_user_watches", encoding="ascii") as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return DEFAULT_MAX_WATCHES


def usable(top: str) -> bool:
    """Tell whether inotify can be trusted for this working tree's memories folder: it lies
    on a local file system, and so does everything mounted below it."""
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
        point = _unescape(parts[4])
        fs = tail.split()[0]
        if point.startswith(where.rstrip("/") + "/") and fs not in LOCAL_FILE_SYSTEMS:
            return False  # a share mounted on a memory folder: its writes go unreported
        inside = where == point or where.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, kind = point, fs
    return kind in LOCAL_FILE_SYSTEMS


def _unescape(field: str) -> str:
    """Decode a mountinfo path: the kernel writes space, tab, newline and backslash as octal."""
    if "\\" not in field:
        return field
    for code, ch in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(code, ch)
    return field
