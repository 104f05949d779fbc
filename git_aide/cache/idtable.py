"""The id table: what vouches for the full-text index on disk, and which blobs it holds.

The table is tied to the state of the index it describes: it holds the name, size, time
and CRC-32 of every file of the index, and the blob ids the index holds, and is framed
(codec.py) with a checksum of its own. When the index's files are not the ones it names
(another process added to the index, or an older copy of the index sits beside a newer
table, or the table is gone), or when a file it names fails its checksum (small files
always checked, large ones when their size or time changed), the index is not whole:
Whoosh reads many damaged files without an error, so an index no table vouches for is
never trusted (index.py rebuilds it).
"""

from __future__ import annotations

import contextlib
import marshal
import os
from zlib import crc32

from git_aide.cache import codec
from git_aide.core import files

#: The table's file in the index folder, the kind of file codec.py frames for it, and
#: its format.
TABLE = "ids"
KIND = "ids"
FORMAT = 2
#: Files in the index folder that are not part of its state.
NOT_STATE = ("STAMP", TABLE, "MAIN_WRITELOCK")
#: Index files up to this size are checksummed on every open (cheap: a few µs).
SMALL = 64 * 1024

#: name -> (size, mtime_ns, CRC-32) of every file of one state of the index.
State = dict[str, tuple[int, int, int]]
#: What `check` finds: the index is the state the table describes and is whole; it is
#: damaged; or it may be another state (ask again under the index's lock).
WHOLE, DAMAGED, OTHER = "whole", "damaged", "other"


def listing(root: str) -> dict[str, tuple[int, int]]:
    """List name -> (size, mtime_ns) of every file of the index's state."""
    out: dict[str, tuple[int, int]] = {}
    for name in os.listdir(root):
        if name in NOT_STATE or name.endswith(".tmp"):
            continue
        with contextlib.suppress(OSError):
            st = os.stat(os.path.join(root, name))
            out[name] = (st.st_size, st.st_mtime_ns)
    return out


def _crc(root: str, name: str) -> int:
    """Return a file's CRC-32, or -1 when it is gone."""
    try:
        with open(os.path.join(root, name), "rb") as f:
            return crc32(f.read())
    except OSError:
        return -1


def read(root: str) -> tuple[State, set[str]] | None:
    """Read (the state it describes, the blob ids), or None when there is no table;
    ValueError when it is damaged (it is removed)."""
    path = os.path.join(root, TABLE)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    try:
        body, end = codec.unframe(KIND, FORMAT, data)
        if end != len(data):
            raise ValueError
        state, ids = marshal.loads(body)
        if not (isinstance(state, dict) and isinstance(ids, set)
                and all(isinstance(v, tuple) and len(v) == 3 for v in state.values())):
            raise ValueError
    except Exception:
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise ValueError("a damaged id table") from None
    return state, ids


def check(root: str, table: tuple[State, set[str]] | None, locked: bool) -> str:
    """Tell whether the index in `root` is the whole state `table` describes: WHOLE, DAMAGED,
    or (not `locked`: another process may be changing it) OTHER."""
    found = listing(root)
    # Files no TOC names yet (a segment another process is writing) are not part of
    # the state; a TOC the table does not name is another state.
    if table is not None and set(table[0]) <= set(found) \
            and not any(n.endswith(".toc") for n in set(found) - set(table[0])):
        for name, (size, mtime, crc) in table[0].items():
            # Small files (the TOC, small segments) are always checked: a file swapped
            # in with the same size and time would pass a stat check.
            if (found[name] != (size, mtime) or size <= SMALL) \
                    and (now := _crc(root, name)) != crc:
                if now == -1 and not locked:
                    return OTHER  # gone since it was listed: another state, not damage
                return DAMAGED
        return WHOLE
    # No table vouches for these files (it is gone, damaged, or describes another
    # state): nothing says they are whole, so the index is rebuilt, never trusted.
    return DAMAGED if locked else OTHER


def save(root: str, ids: set[str]) -> set[str]:
    """Write the table for the index's state as it is now; the names of its files.

    A table that cannot be written leaves none, or one of an older state, that the next
    command finds wrong: it rebuilds. Not synced: a table a crash left empty fails its
    checksum the same way.
    """
    state = {name: (*sig, _crc(root, name)) for name, sig in listing(root).items()}
    data = codec.frame(KIND, FORMAT, marshal.dumps((state, ids)))
    with contextlib.suppress(OSError):
        files.write_atomic(os.path.join(root, TABLE), data, sync=False)
    return set(state)
