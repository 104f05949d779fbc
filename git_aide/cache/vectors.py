"""Memory vectors of one model, by blob id: `<git common dir>/aide/vectors/<model>.vec`.

Keyed like the rest of the cache by content (a blob never changes, so a vector is only
ever missing, never stale) and by the model's identity (embedding/runtime.py), so every
worktree, branch and revision shares them and another model never reads them.

The file is a header (magic, dimension) and records appended end to end: the blob id's
20 bytes, the vector as float16 (a unit vector loses nothing that ranking can see, and
the file is half the size), and a CRC-32 of both. Appends are one write each, under a
lock. A record is checked when loaded: one whose CRC fails (two records' blob ids
swapped, a sign flipped), or whose vector is not finite or not of unit length, is
damage, and the file is written again without it (and without a torn tail: an append
starts at a record's end); what is dropped is embedded again when next wanted. A file of
an older format (records without a CRC) is removed and its vectors made again.
"""

from __future__ import annotations

import contextlib
import os
import struct
import zlib

from git_aide.core.files import lock, write_atomic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    import numpy as np

#: The file's magic: its last character is the format's number.
MAGIC = b"AIDEVEC2"
#: What the files of older formats start with (they are outdated, not damaged).
OLDER = (b"AIDEVEC1",)
HEADER = struct.Struct("<8sII")
#: How far from 1 a stored vector's length may be (float16 rounding is ~1e-3).
NORM_SLACK = 0.02
#: How long one holder may keep the vectors' lock before another gives up (seconds).
WAIT = 10.0


def _record(dim: int) -> np.dtype:
    """Return the dtype of one record: the blob id's 20 bytes (as bytes: numpy's "S20" would drop a
    trailing zero byte), the vector, and the CRC-32 of the two."""
    import numpy as np

    return np.dtype([("blob", "u1", (20,)), ("vec", "<f2", (dim,)), ("crc", "<u4")])


def _crcs(body: memoryview | bytes, count: int, size: int) -> list[int]:
    """Return the CRC-32 of each of `count` records of `size` bytes in `body` (all but the
    CRC's own 4 bytes)."""
    view = memoryview(body)
    n = size - 4
    crc32 = zlib.crc32
    return [crc32(view[at:at + n]) for at in range(0, count * size, size)]


def folder_of(cache_root: str) -> str:
    """Return the vectors folder beside a cache folder (`.git/aide/vectors`): the vectors do not
    depend on the Python version, as the cache's marshal'd files do."""
    return os.path.join(os.path.dirname(cache_root), "vectors")


class Vectors:
    """Hold the stored vectors of one model: blob id -> unit vector (float32 in memory)."""

    def __init__(self, folder: str, key: str) -> None:
        #: The vectors folder.
        self.folder = folder
        #: The model's identity.
        self.key = key
        #: The file.
        self.path = os.path.join(folder, f"{key}.vec")
        #: Row of each blob id in `matrix`.
        self.rows: dict[str, int] = {}
        #: One unit vector a row (float32), or None before anything is loaded.
        self.matrix: np.ndarray | None = None
        #: Vector length (0: none stored yet).
        self.dim = 0
        #: What loading found wrong and repaired, for the user.
        self.notices: list[str] = []
        self._sig: tuple[int, ...] | None = None
        #: Whether this process holds the file's lock (add_missing): a repair then
        #: takes it no second time.
        self._held = False

    def load(self) -> Vectors:
        """Read the file (again, when it changed since it was read); never raises."""
        from git_aide.core.files import stat_sig

        sig = stat_sig(self.path)
        if sig is not None and sig == self._sig:
            return self
        self._sig = sig
        try:
            with open(self.path, "rb") as f:
                data = f.read()
        except OSError:
            data = b""
        self._parse(data)
        return self

    def _parse(self, data: bytes) -> None:
        import numpy as np

        self.rows, self.matrix, self.dim = {}, None, 0
        if not data:
            return
        if len(data) < HEADER.size:
            self._repair(data, [], None, "the vectors file was cut short; it starts again")
            return
        magic, dim, _ = HEADER.unpack_from(data)
        if magic in OLDER:
            self._repair(data, [], None, "the memory vectors were made by another version "
                         "of git-aide; they are made again")
            return
        if magic != MAGIC or not 0 < dim <= 8192:
            self._repair(data, [], None, "the vectors file was damaged; it starts again")
            return
        rec = _record(dim)
        body = memoryview(data)[HEADER.size:]
        whole = len(body) // rec.itemsize
        table = np.frombuffer(body[:whole * rec.itemsize], dtype=rec)
        vecs = table["vec"].astype(np.float32)
        # (einsum: a third of linalg.norm's time, which pays for most of the checksums)
        norms = np.sqrt(np.einsum("ij,ij->i", vecs, vecs))
        sums = np.array(_crcs(body, whole, rec.itemsize), dtype=np.uint32)
        good = (sums == table["crc"]) & np.isfinite(norms) \
            & (np.abs(norms - 1.0) <= NORM_SLACK)
        ids = table["blob"].tobytes().hex()
        blobs = [ids[i:i + 40] for i in range(0, len(ids), 40)]
        # A torn tail is cut off now: the next append would otherwise start mid-record
        # and shift every record after it.
        torn = len(body) % rec.itemsize
        if torn or not good.all():
            keep = [i for i in range(whole) if good[i]]
            dropped = whole - len(keep) + (1 if torn else 0)
            self._repair(data, [blobs[i] for i in keep], vecs[keep],
                         f"{dropped} damaged memory vectors were dropped; "
                         "they are embedded again when needed")
            return
        self.dim = int(dim)
        self.rows = {b: i for i, b in enumerate(blobs)}
        self.matrix = vecs

    def _repair(self, data: bytes, blobs: list[str], vecs: np.ndarray | None,
                why: str) -> None:
        """Write the file again with only the good records (`data`: what was read)."""
        from git_aide.core.files import LockBusy

        os.makedirs(self.folder, exist_ok=True)
        held = contextlib.nullcontext() if self._held else lock(self.path + ".lock",
                                                                 wait=WAIT)
        try:
            with held:
                with open(self.path, "rb") as f:
                    now = f.read()
                if now != data:
                    # Another process wrote meanwhile (what looked torn may have been
                    # its append, half read): its file is kept and read again next time.
                    self._sig = None
                elif vecs is None or not len(blobs):
                    os.unlink(self.path)
                    self.notices.append(why)
                else:
                    write_atomic(self.path, self._encode(blobs, vecs, header=True),
                                 sync=False)
                    self.notices.append(why)
        except (OSError, LockBusy):
            pass  # read-only or busy: it is repaired next time
        self.rows, self.matrix, self.dim = {}, None, 0
        if vecs is not None and len(blobs):
            self.dim = int(vecs.shape[1])
            self.rows = {b: i for i, b in enumerate(blobs)}
            self.matrix = vecs

    @property
    def size(self) -> int:
        """Count the rows loaded (it grows with every add)."""
        return 0 if self.matrix is None else int(self.matrix.shape[0])

    def missing(self, blobs: Iterable[str]) -> list[str]:
        """Return the blob ids among `blobs` without a vector, in their order, once each."""
        have = self.rows
        return list(dict.fromkeys(b for b in blobs if b not in have))

    def add(self, blobs: list[str], vecs: np.ndarray) -> None:
        """Store the vectors of `blobs` (appended; the file is made when missing)."""
        if not blobs:
            return
        os.makedirs(self.folder, exist_ok=True)
        with lock(self.path + ".lock", wait=WAIT):
            self._append(blobs, vecs)

    def add_missing(self, blobs: list[str],
                    make: Callable[[list[str]], np.ndarray]) -> list[str]:
        """Read under the file's lock what other processes stored since, make the
        vectors of those of `blobs` still missing (`make`: their vectors as rows, in
        their order) and store them; the blobs made. Two processes embedding at once
        thus embed each memory once (LockBusy when another holds the lock too long)."""
        os.makedirs(self.folder, exist_ok=True)
        with lock(self.path + ".lock", wait=WAIT):
            self._held = True
            try:
                self.load()
            finally:
                self._held = False
            todo = self.missing(blobs)
            if todo:
                self._append(todo, make(todo))
        return todo

    def _append(self, blobs: list[str], vecs: np.ndarray) -> None:
        """Append records to the file (the lock held) and to what is loaded."""
        import numpy as np

        from git_aide.core.files import stat_sig

        dim = int(vecs.shape[1])
        if self.dim and dim != self.dim:
            raise ValueError(f"vectors of {dim} numbers, the file holds {self.dim}")
        size = os.path.getsize(self.path) if os.path.exists(self.path) else 0
        fresh = size < HEADER.size
        data = self._encode(blobs, vecs, header=fresh)
        if fresh:
            write_atomic(self.path, data, sync=False)
        else:
            with open(self.path, "r+b") as f:
                # Appended at a record's end: a torn tail (a writer killed mid-write)
                # is written over, not left to shift every record after it.
                f.seek(size - (size - HEADER.size) % _record(dim).itemsize)
                f.write(data)
                f.truncate()
        start = 0 if self.matrix is None else int(self.matrix.shape[0])
        for i, b in enumerate(blobs):
            self.rows.setdefault(b, start + i)
        block = vecs.astype(np.float16).astype(np.float32)
        self.matrix = self._grown(block)
        self.dim = dim
        self._sig = stat_sig(self.path)

    def _grown(self, block: np.ndarray) -> np.ndarray:
        """Return the matrix with `block`'s rows after its own: written into the room after
        them when the matrix is the start of an array with room enough (made here), so a
        long-lived process that embeds a hand-edited memory at each call does not copy
        every vector each time (15 MB at 10,000 memories); else a new array, with room
        for an eighth more."""
        import numpy as np

        matrix = self.matrix
        if matrix is None:
            return block
        n, k = len(matrix), len(block)
        room = matrix.base
        if not (isinstance(room, np.ndarray) and room.ndim == 2 and room.shape[1] == block.shape[1]
                and room.dtype == block.dtype and len(room) >= n + k
                and room[:n].__array_interface__["data"] == matrix.__array_interface__["data"]):
            room = np.empty((n + k + max(64, (n + k) // 8), block.shape[1]), dtype=block.dtype)
            room[:n] = matrix
        room[n:n + k] = block
        return room[:n + k]

    def _encode(self, blobs: list[str], vecs: np.ndarray, header: bool) -> bytes:
        import numpy as np

        dim = int(vecs.shape[1])
        table = np.zeros(len(blobs), dtype=_record(dim))
        table["blob"] = np.frombuffer(bytes.fromhex("".join(blobs)), dtype=np.uint8
                                      ).reshape(len(blobs), 20)
        table["vec"] = vecs.astype(np.float16)
        table["crc"] = _crcs(table.tobytes(), len(blobs), table.dtype.itemsize)
        head = HEADER.pack(MAGIC, dim, 0) if header else b""
        return head + table.tobytes()

    def of(self, blobs: Iterable[str]) -> tuple[list[str], np.ndarray]:
        """Return (the blobs among `blobs` that have vectors, their vectors as rows)."""
        import numpy as np

        have = [b for b in blobs if b in self.rows]
        if self.matrix is None or not have:
            return [], np.zeros((0, self.dim or 1), dtype=np.float32)
        return have, self.matrix[[self.rows[b] for b in have]]
