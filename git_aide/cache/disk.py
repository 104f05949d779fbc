"""How a file of the cache is kept: framed (codec.py), checked when read, written
atomically, dropped when it proves damaged; and the cache's locks. Nothing here raises:
the cache may be removed, damaged or read-only at any moment, and then only costs time.

A file's head is a marshal'd `(key, payload)`, where key is the file's own name in the
folder: a file that is outdated, whose checksum fails, that does not parse, or was moved
to another name counts as missing, is removed and reported once (a notice), and the
caller builds what it held again. A file where a folder should be is removed the same
way. Any write that fails is skipped (a read-only folder): the caller already holds the
answer.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import stat

from git_aide.cache import codec
from git_aide.core import files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    #: A value marshal decodes from a cache file: its shape is checked where it is read
    #: (folder.py's _pack_ok, views.py), as a memory file's JSON is.
    Stored = Any

#: Bumped whenever the layout or the meaning of an entry changes (views.py's too).
FORMAT = 4
#: The kind of file codec.py frames for the cache's own files.
KIND = "cache"
#: What a damaged file is reported as.
DAMAGED = "the cache file {} was damaged; rebuilt it"
#: What a file of another format is reported as.
OUTDATED = "the cache was made by another version of git-aide; rebuilt it"


class Folder:
    """Read and write a folder of framed files (the cache's); reads and writes never raise."""

    #: The folder, `<git common dir>/aide/<python>`.
    root: str
    #: Notices for the user (a damaged file that was dropped), printed by the CLI.
    notices: list[str]

    def __init__(self, root: str) -> None:
        self.root = root
        self.notices = []
        # The folder and its parent (`<git common dir>/aide`, which holds one folder per
        # Python version) are git-aide's own: a file where either should be goes.
        for folder in (os.path.dirname(root), root):
            try:
                if not stat.S_ISDIR(os.stat(folder).st_mode):
                    self._clear(folder)
                    break
            except OSError:
                pass

    def path(self, *parts: str) -> str:
        """Return a path inside the cache folder."""
        return self._path(*parts)

    def _path(self, *parts: str) -> str:
        return os.path.join(self.root, *parts)

    def read(self, *parts: str) -> Stored:
        """Read the payload of a cache file, or None when it is missing or damaged."""
        path = self._path(*parts)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except IsADirectoryError:
            self._clear(path)
            return None
        except OSError:
            return None
        payload = self.decode(data, "/".join(parts), path)
        return None if payload is _BAD else payload

    def decode(self, data: bytes, key: str, path: str) -> Stored:
        """Decode the payload of a cache file's bytes, or _BAD (then the file is dropped)."""
        try:
            body, end = codec.unframe(KIND, FORMAT, data)
            if end != len(data):
                raise ValueError
            saved, payload = marshal.loads(body)
            if saved != key:  # another file's contents (moved or copied here)
                raise ValueError
        except codec.Outdated:
            self.outdated(path)
            return _BAD
        except Exception:
            self.damaged(path)
            return _BAD
        return payload

    @staticmethod
    def encode(payload: Stored, key: str) -> bytes:
        """Encode a cache file's bytes: (key, payload), framed."""
        return codec.frame(KIND, FORMAT, marshal.dumps((key, payload)))

    def write(self, payload: Stored, *parts: str) -> None:
        """Write a cache file atomically; a failure only means the cache stays cold."""
        try:
            data = self.encode(payload, "/".join(parts))
        except ValueError:  # a value marshal cannot store
            return
        self.write_bytes([data], *parts)

    def write_bytes(self, chunks: list[bytes], *parts: str) -> None:
        """Write a file of the cache atomically (clearing whatever stands in the way of
        its folder); a failure only means the cache stays cold."""
        path = self._path(*parts)
        try:
            self.folder(os.path.dirname(path))
            # Not synced to the disk: a file a crash leaves empty fails its checksum
            # and is made again, and a recall must not wait for the disk.
            files.write_atomic(path, chunks, sync=False)
        except OSError:
            pass

    def folder(self, path: str) -> None:
        """Make a folder inside the cache, removing a file that stands where it or one of
        its parents should be (OSError when it still cannot be made)."""
        try:
            os.makedirs(path, exist_ok=True)
            return
        except (FileExistsError, NotADirectoryError):
            pass
        at = os.path.dirname(self.root)
        rel = os.path.relpath(path, at)
        for part in ["", *rel.split(os.sep)]:
            at = os.path.join(at, part) if part else at
            if os.path.lexists(at) and not os.path.isdir(at):
                self._clear(at)
                break
        os.makedirs(path, exist_ok=True)

    def damaged(self, path: str) -> None:
        """Report a damaged cache file (once per command) and remove it."""
        self.notices.append(DAMAGED.format(os.path.basename(path)))
        self.discard(path)

    def outdated(self, path: str) -> None:
        """Report a file another version made (once per command) and remove it."""
        self.notices.append(OUTDATED)
        self.discard(path)

    def _clear(self, path: str) -> None:
        """Remove what stands where a cache folder or file should be, and say so."""
        import shutil

        self.notices.append(DAMAGED.format(os.path.basename(path) or path))
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            self.discard(path)

    def discard(self, path: str) -> None:
        """Remove a file, if it can be."""
        with contextlib.suppress(OSError):
            os.unlink(path)

    @contextlib.contextmanager
    def lock(self, name: str = "lock") -> Iterator[None]:
        """Serialise writers across processes (an advisory lock on `<cache>/<name>`).

        Separate names keep unrelated writers apart: a recall counting itself never
        waits behind a `remember` that waits for another process's index.lock. A lock
        that cannot be taken (a read-only folder) is done without: whatever it guards
        is only a cache.
        """
        with contextlib.ExitStack() as held:
            try:
                self.folder(self.root)
                held.enter_context(files.lock(self._path(name)))
            except OSError:
                pass
            yield


#: What `decode` returns for a file it dropped (None is a payload like any other).
_BAD = object()
