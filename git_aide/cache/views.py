"""Views: the finished entries of one state of a source, saved for the next command.

A view is keyed by what its listing depends on (the index file's stat and the files
that differ from it, or a tree id), named briefly and checked against the full state
when read. The file is framed by codec.py (kind "view"): its head is a small header
(the state, the warnings, and where each scope's group of rows lies); then come every
memory's content, then the groups, then every blob id in group order, with its group
and where its content starts: a recall decodes the header and the groups whose scope is
relevant, and reads the contents it shows; a search reads the blob ids, asks the
full-text index, and decodes only the groups that hold its best matches; a
match found in the contents names its memory by where it is.

Each part carries its own check, so that a recall checks only what it reads: the
header a CRC-32 (the frame's), each group a CRC-32 (stored in the header beside
its span), each content a CRC-32 (stored in its row; checked as it is read). The blob
ids were checked when the view was built, so a recall need not hash what it shows.
"""

from __future__ import annotations

import contextlib
import marshal
import os
from array import array
from zlib import crc32

from git_aide.cache import codec
from git_aide.cache.disk import FORMAT
from git_aide.cache.folder import Cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO

#: The kind of file codec.py frames for a view (its format is the cache's).
KIND = "view"
#: Views kept (one per state of a source that was read lately).
MAX_VIEWS = 16


def _discard(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def load(cache: Cache, key: tuple[str, str]) -> tuple[list[str], list[Any], ViewFile] | None:
    """Load a source's finished entries, if they were saved for exactly this state:
    (warnings, [(compiled scope, span of its rows)], the open file, whose `blobs` is
    the span of the blob ids)."""
    name, state = key
    path = cache.path("views", name)
    try:
        f = open(path, "rb")  # noqa: SIM115 -- stays open for the entries to read
    except IsADirectoryError:
        cache.damaged(path)
        return None
    except OSError:
        return None
    try:
        top = f.read(codec.top_size(KIND, FORMAT))
        span = codec.head_span(KIND, FORMAT, top)
        if span is None:  # another version's view, or a damaged one: which, it says
            codec.unframe(KIND, FORMAT, top + f.read())
            raise ValueError
        header = f.read(span[0])
        if len(header) != span[0]:
            raise ValueError
        codec.check(KIND, FORMAT, header, span[1])
        saved, skipped, groups, blobs = marshal.loads(header)
        # The checksum vouches for the shape of what we wrote: the groups are not walked
        # here (a thousand scopes would cost a recall more than the rest of the header).
        if not isinstance(groups, list) or not isinstance(skipped, list):
            raise ValueError
    except codec.Outdated:
        f.close()
        cache.outdated(path)
        return None
    except Exception:
        f.close()
        cache.damaged(path)
        return None
    if saved != state:
        f.close()
        return None
    with contextlib.suppress(OSError):  # recently used: kept by the eviction
        os.utime(path)
    opened = ViewFile(f, len(top) + span[0], path)
    opened.blobs = blobs
    return skipped, groups, opened


def save(cache: Cache, key: tuple[str, str], skipped: list[str],
         groups: list[tuple[Any, list[tuple[str, str, Any, bytes]]]]) -> None:
    """Save a view: a small header, then every memory's content, then each group's rows.

    A reader decodes the header and only the groups it needs; contents are read
    one slice at a time, for the memories it shows.
    """
    contents: list[bytes] = []
    offset = 0
    payloads: list[bytes] = []
    for _compiled, rows in groups:
        slim = []
        for path, blob, meta, raw in rows:
            slim.append((path, blob, meta, offset, len(raw), crc32(raw)))
            contents.append(raw)
            offset += len(raw)
        payloads.append(marshal.dumps(slim))
    spans = []
    at = offset  # group rows follow the contents
    for (compiled, _rows), payload in zip(groups, payloads, strict=True):
        spans.append((compiled, (at, len(payload), crc32(payload))))
        at += len(payload)
    # Then every blob id, in group order, with the index of its group (the map a
    # search wants is then made at C speed) and where its content starts in the run
    # (so that a match found in the run names its memory without decoding a group).
    starts = [0]
    for _c, rows in groups:
        for _p, _b, _m, raw in rows:
            starts.append(starts[-1] + len(raw))
    ids = marshal.dumps(([r[1] for _c, rows in groups for r in rows],
                         array("I", [g for g, (_c, rows) in enumerate(groups)
                                     for _r in rows]).tobytes(),
                         array("Q", starts[:-1]).tobytes()))
    header = marshal.dumps((key[1], skipped, spans, (at, len(ids), crc32(ids))))
    cache.write_bytes([codec.frame(KIND, FORMAT, header), *contents, *payloads, ids],
                      "views", key[0])
    evict(cache, "views")


def evict(cache: Cache, folder: str) -> None:
    """Remove the files of a folder of the cache but the MAX_VIEWS used last (their
    mtime: a read touches it)."""
    try:
        names = os.listdir(cache.path(folder))
    except OSError:
        return
    if len(names) <= MAX_VIEWS:
        return
    aged = []
    for name in names:
        with contextlib.suppress(OSError):
            aged.append((os.stat(cache.path(folder, name)).st_mtime_ns, name))
    for _mtime, name in sorted(aged)[:-MAX_VIEWS]:
        _discard(cache.path(folder, name))


def discard(cache: Cache, view: ViewFile) -> None:
    """Drop a view whose insides proved damaged, and say so once."""
    cache.damaged(view.path)


class ViewFile:
    """Hold an open view file; slices of it are read on demand (relative to its body)."""

    __slots__ = ("_f", "_base", "path", "contents", "blobs", "ids", "order", "starts")

    def __init__(self, f: BinaryIO, base: int, path: str) -> None:
        self._f = f
        self._base = base
        #: Where it is, to drop it if it proves damaged.
        self.path = path
        #: Every memory's content in one run, once read (a state's view never changes,
        #: so a long-lived process reads it once).
        self.contents: bytes | None = None
        #: The span of the blob ids of its groups (None until the view is loaded).
        self.blobs: tuple[int, int, int] | None = None
        #: Those blob ids, each mapped to its group, once read (kept like `contents`).
        self.ids: dict[str, int] | None = None
        #: The same blob ids in the order of their contents in the run, once read.
        self.order: list[str] | None = None
        #: Where each of those contents starts in the run, once read.
        self.starts: array[int] | None = None

    def read(self, span: tuple[int, ...]) -> bytes | None:
        """Read the bytes at (offset, length[, crc]) of the body; None if the file is too
        short or they fail their checksum."""
        at, length = span[0], span[1]
        contents = self.contents
        if contents is not None and at + length <= len(contents):
            data = contents[at:at + length]  # read once already: no seek and read
        else:
            try:
                self._f.seek(self._base + at)
                data = self._f.read(length)
            except (OSError, ValueError):
                return None
        if len(data) != length or (len(span) > 2 and crc32(data) != span[2]):
            return None
        return data
