"""How every file under `.git/aide` starts: one framing for the cache's files, its views,
and the full-text index's id table and postings tables.

A file is a lead line, `git-aide <kind> <format> <python>\\0` (the Python is named
because the payloads are marshal'd, a format promised only within one Python version),
the length of the head (4 bytes), a CRC-32 of the lead and the head (4 bytes), the head,
then whatever the kind keeps after it (a view's contents, a table's buckets), which
carries checks of its own, made as each part is read: a reader of a large file checks
only what it reads.

A file whose lead is not this one's is outdated when it is whole (another format or
another Python made it, and its own checksum holds) and damaged otherwise; both are
dropped and made again by the caller, who says which.
"""

from __future__ import annotations

import sys
from zlib import crc32

TYPE_CHECKING = False
if TYPE_CHECKING:
    from mmap import mmap

#: The Python whose marshal format the payloads are in.
PYTHON = sys.implementation.cache_tag or "python"
#: How every framed file starts.
START = b"git-aide "
#: How files made before this framing started (they are outdated, not damaged).
_OLD_START = b"git-aide-"


class Outdated(ValueError):
    """Report a whole file made by another version of git-aide or another Python."""


def lead(kind: str, fmt: int) -> bytes:
    """Return the lead line of a file of this kind and format."""
    return f"git-aide {kind} {fmt} {PYTHON}\0".encode()


def frame(kind: str, fmt: int, head: bytes) -> bytes:
    """Return a file's start: lead, head length, checksum, head (the kind's body follows)."""
    first = lead(kind, fmt)
    return b"".join((first, len(head).to_bytes(4, "little"),
                     crc32(head, crc32(first)).to_bytes(4, "little"), head))


def top_size(kind: str, fmt: int) -> int:
    """Count the bytes that precede the head: a reader of a file reads these first."""
    return len(lead(kind, fmt)) + 8


def head_span(kind: str, fmt: int, top: bytes) -> tuple[int, int] | None:
    """Read (head length, checksum) from a file's first `top_size` bytes; None when the lead
    is not this one's (then `unframe` of the whole file says why)."""
    first = lead(kind, fmt)
    n = len(first)
    if top[:n] != first or len(top) < n + 8:
        return None
    return int.from_bytes(top[n:n + 4], "little"), int.from_bytes(top[n + 4:n + 8], "little")


def check(kind: str, fmt: int, head: bytes, crc: int) -> None:
    """Raise ValueError when a head read after `head_span` fails its checksum."""
    if crc32(head, crc32(lead(kind, fmt))) != crc:
        raise ValueError("a damaged file")


def unframe(kind: str, fmt: int, data: bytes | mmap) -> tuple[bytes, int]:
    """Return (the head, where the body starts) of a whole file's bytes; Outdated or ValueError
    (damaged) when it is not a whole file of this kind and format."""
    first = lead(kind, fmt)
    n = len(first)
    if data[:n] == first:
        size = int.from_bytes(data[n:n + 4], "little")
        head = data[n + 8:n + 8 + size]
        if len(head) != size or \
                crc32(head, crc32(first)) != int.from_bytes(data[n + 4:n + 8], "little"):
            raise ValueError("a damaged file")
        return head, n + 8 + size
    if data[:len(_OLD_START)] == _OLD_START:
        raise Outdated("made before files were framed")
    # Another format's or another Python's lead: outdated if its own checksum holds.
    end = data.find(b"\0", 0, 80)
    other = data[:end + 1]
    if end > 0 and other.startswith(START + kind.encode() + b" "):
        m = end + 1
        size = int.from_bytes(data[m:m + 4], "little")
        head = data[m + 8:m + 8 + size]
        if len(head) == size and \
                crc32(head, crc32(other)) == int.from_bytes(data[m + 4:m + 8], "little"):
            raise Outdated(other[:-1].decode(errors="replace"))
    raise ValueError("not a file of git-aide's, or a damaged one")
