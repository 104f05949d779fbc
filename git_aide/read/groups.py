"""A source's memories come in groups by scope (read/record.Group), each decoded on its
own: here is what makes a group's rows of the view into entries, and what a long-lived
process keeps of the groups between its calls: a group's entries once made (DecodedGroup), the
groups by the leading directories of their scopes (GroupsByBase), and the whole view decoded
between calls (warm). snapshot.py answers queries from the groups.
"""

from __future__ import annotations

import marshal
from bisect import bisect_left

from git_aide.read.record import Entry, new_entry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Generator, Iterator, Sequence
    from typing import Any

    from git_aide.core import scope as scopes
    from git_aide.read.record import Group, Reader
    from git_aide.read.snapshot import Snapshot


#: How many entries one step of warm() makes, or hands on (about a millisecond's work).
WARM_STEP = 100
#: About as many bytes of a view's rows (decode()).
STEP_BYTES = 32_000


def view_entries_of(rows: list[Any], compiled: scopes.Compiled | None, reader: Reader
                    ) -> list[Entry]:
    """Return the entries of a group's rows in the view file: (path, blob, meta, offset,
    length, crc), their contents left in the view."""
    return [new_entry(Entry, (path, blob, meta, compiled, reader, (at, size, crc)))
            for path, blob, meta, at, size, crc in rows]


class DecodedGroup(list):  # type: ignore[type-arg]
    """Hold a group's entries, made once and kept by a long-lived process
    (Snapshot.keep_decoded)."""

    __slots__ = ("span", "_at", "_paths")

    def __init__(self, entries: list[Entry], span: tuple[int, int, int]) -> None:
        super().__init__(entries)
        #: The slice of the view its rows came from.
        self.span = span
        self._at: dict[str, list[int]] | None = None
        self._paths: frozenset[str] | None = None

    def of(self, blobs: Collection[str]) -> list[Entry]:
        """Return its entries whose blob is one of these, in its order: found by blob, not by
        a pass over a group that may hold thousands."""
        found = self.by_blob()
        return [self[i] for i in sorted(i for b in blobs for i in found.get(b, ()))]

    def by_blob(self) -> dict[str, list[int]]:
        """Return where each blob's entries are, made the first time it is asked."""
        if self._at is None:
            at: dict[str, list[int]] = {}
            for i, e in enumerate(self):
                at.setdefault(e.blob, []).append(i)
            self._at = at
        return self._at

    def holds_any(self, paths: frozenset[str]) -> bool:
        """Tell whether one of its entries is at one of these paths (the files laid over the
        view: a group that holds none of them is taken whole)."""
        if self._paths is None:
            self._paths = frozenset(e.path for e in self)
        return not self._paths.isdisjoint(paths)


class GroupsByBase:
    """Hold a view's groups by the literal leading directories of their scopes: a scope
    applies only at, below or (for a folder asked about) above one of them
    (scopes.relevant), so a long-lived process asks a new file's scope filter about
    the few scopes on its way, not about every scope of the store."""

    __slots__ = ("groups", "_by_base", "_wide", "_bases")

    def __init__(self, groups: list[Group]) -> None:
        #: The groups it was made of (the same list while they are the same).
        self.groups = groups
        by_base: dict[str, list[int]] = {}
        wide: list[int] = []
        for i, (compiled, _payload) in enumerate(groups):
            if compiled is None:
                wide.append(i)
                continue
            for base in dict.fromkeys(compiled.bases):
                by_base.setdefault(base, []).append(i)
        self._by_base = by_base
        #: The project-wide groups: every filter is asked about them.
        self._wide = wide
        #: The leading directories, sorted: those under a folder are one slice.
        self._bases = sorted(by_base)

    def around(self, near: Sequence[Any]) -> list[int]:
        """Return the groups whose scopes may apply to one of these query paths, in order."""
        by_base = self._by_base
        out = set(self._wide)
        for q in near:
            path = q.path
            if not path:
                return list(range(len(self.groups)))
            out.update(by_base.get("", ()))
            at = path.find("/")
            while at >= 0:  # each folder above it
                out.update(by_base.get(path[:at], ()))
                at = path.find("/", at + 1)
            out.update(by_base.get(path, ()))
            if q.is_dir:  # and the scopes inside the folder
                bases = self._bases
                below = path + "/"
                for base in bases[bisect_left(bases, below):bisect_left(bases, path + "0")]:
                    out.update(by_base[base])
        return sorted(out)


def decode(snap: Snapshot) -> Iterator[None]:
    """Decode every group of the snapshot's view and keep it, about WARM_STEP entries a
    step (small groups together), then its groups by base: what a first call reads,
    done before the rest of warm()'s work (which then finds them decoded)."""
    groups = snap._groups
    read = 0  # bytes of rows decoded since the last step
    for i in range(len(groups)):
        if snap._groups is not groups:
            return
        payload = groups[i][1]
        size = 0 if isinstance(payload, list) else payload[1]
        if size > STEP_BYTES:
            done = yield from _decode(snap, groups, i)
        else:
            done = _at_once(_decode(snap, groups, i))
            read += size
            if read > STEP_BYTES:
                read = 0
                yield
        if not done:
            return
    reader = snap._reader
    if snap._groups is groups and (reader.near is None or reader.near.groups is not groups):
        reader.near = GroupsByBase(groups)  # what a path recall asks first


def _at_once(steps: Generator[None, None, bool]) -> bool:
    """Run a job's steps without a pause; return what it returns."""
    while True:
        try:
            next(steps)
        except StopIteration as end:
            return bool(end.value)


def _decode(snap: Snapshot, groups: list[Group], i: int) -> Generator[None, None, bool]:
    """Decode the group `i` of the snapshot's view and keep it, with its entries by blob,
    in steps; return whether it is (False: the view was found damaged, or the groups
    were built again)."""
    reader = snap._reader
    if reader.view is None:
        return False
    compiled, payload = groups[i]
    if isinstance(payload, DecodedGroup):
        return True
    if isinstance(payload, list):
        return False  # built just now: no view behind it
    try:
        rows = marshal.loads(reader.view.read(payload) or b"")
    except Exception:  # noqa: BLE001 -- damaged: a call will say so
        return False
    yield
    made: list[Entry] = []
    for at in range(0, len(rows), WARM_STEP):
        if reader.view is None:  # a call found the view damaged meanwhile
            return False
        made += view_entries_of(rows[at:at + WARM_STEP], compiled, reader)
        yield
    if groups[i][1] is payload:  # else a call decoded it meanwhile
        groups[i] = (compiled, DecodedGroup(made, payload))
        yield
        groups[i][1].by_blob()
    return True


def warm(snap: Snapshot, each: Callable[[list[Entry]], None],
         then: Callable[[list[Entry], dict[str, int]], Iterator[None]]
         ) -> Iterator[None]:
    """Decode every group of the snapshot's view and keep it, indexed by blob, and hand its
    entries to `each` (the ranking's features worked out ahead), WARM_STEP entries
    a step (read/later.py), then all of them, with each blob's first place among
    them, to `then`'s steps (what the ranking works out among them): a search of a
    word not asked before then decodes nothing, and a group of thousands is no pause
    of tens of ms for a call. Stops when the view proves damaged (the next call
    builds the groups again). Snapshot.want_warm asks for it."""
    groups, reader = snap._groups, snap._reader
    every: list[Entry] = []
    first: dict[str, int] = {}
    # Its records too, when few enough to keep (read/record.Records.keep_ahead).
    keep_records = snap.prefetch_ids() and snap._ids is not None \
        and len(snap._ids) <= reader.records.AHEAD
    # A view holds each blob once (its meta, kept by blob id, names the one path it
    # belongs at; a copy elsewhere is skipped): if ever not, no lookup by blob.
    once = True
    for i in range(len(groups)):
        if snap._groups is not groups or reader.view is None:
            return
        if not (yield from _decode(snap, groups, i)):
            return
        payload = groups[i][1]
        assert isinstance(payload, DecodedGroup), "_decode made it"
        payload.by_blob()
        for at in range(0, len(payload), WARM_STEP):
            if reader.view is None:
                return
            some = payload[at:at + WARM_STEP]
            each(some)
            if keep_records:
                yield  # parsing a hundred records is a step of its own
                if reader.view is None:
                    return
                reader.records.keep_ahead(some)
            for k, e in enumerate(some, len(every) + at):
                once = first.setdefault(e.blob, k) == k and once
            yield
        every += payload
    if snap._groups is groups and reader.view is not None:
        if once:
            reader.whole = (groups, every, first)
        yield from then(every, first)
