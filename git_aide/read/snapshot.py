"""A snapshot: every live memory of one source, answering queries from what it holds.

Entries are kept in groups by scope, each group decoded on its own (groups.py), so that
a recall decodes only the groups whose scope is relevant to its paths. A snapshot never
waits for git and no query changes what it answers: the working tree's files that differ
from the saved view are laid over it by worktree.py (`lay`), before anything is asked of
it or, while speculating, explicitly again once git has answered. Its memories' stored
contents are searched by contents.py.
"""

from __future__ import annotations

import marshal
from array import array
from collections.abc import Iterator, Mapping, Sequence
from operator import itemgetter

from git_aide.cache import views
from git_aide.read.groups import DecodedGroup, GroupsByBase, view_entries_of, warm
from git_aide.read.record import Entry, Reader, Source, new_entry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection
    from typing import Any, Literal

    from git_aide.core import scope as scopes
    from git_aide.read.later import Queue
    from git_aide.read.record import Group, Records
    from git_aide.read.worktree import WorktreeChanges


#: Scope filters whose verdicts on a view's groups it keeps (one per query path).
KEPT_FILTERS = 32
#: Reading one memory's content alone (a seek and a read) costs about what reading this
#: many bytes more of the run costs: an answer of 25,000 of 100,000 memories reads the
#: run (75 MB) at once, one of 2,000 reads theirs one by one.
BODY_PER_READ = 8192


class ViewBlobIds(Mapping[str, int]):
    """Map a view's blob ids with those of the files laid over it (-1), read as one mapping
    without copying the view's: a long-lived process asks it on every call, and a view
    of 100,000 memories costs ms to copy."""

    __slots__ = ("base", "laid", "_len")

    def __init__(self, base: dict[str, int], laid: dict[str, int]) -> None:
        #: The view's blob ids (shared with the view: never changed).
        self.base = base
        #: The blob ids of the files laid over the view.
        self.laid = laid
        self._len = -1

    def __getitem__(self, blob: str) -> int:
        found = self.laid.get(blob)
        return self.base[blob] if found is None else found

    def __contains__(self, blob: object) -> bool:
        return blob in self.laid or blob in self.base

    def __iter__(self) -> Iterator[str]:
        yield from self.base
        yield from (b for b in self.laid if b not in self.base)

    def __len__(self) -> int:
        if self._len < 0:
            self._len = len(self.base) + sum(1 for b in self.laid if b not in self.base)
        return self._len




class Snapshot:
    """Hold every live memory of one source, and what was skipped on the way."""

    __slots__ = ("source", "warnings", "_groups", "_reader", "_all", "_rebuild", "_drop",
                 "_extra", "_users", "later", "_body", "_ids", "_ids_laid",
                 "pending")

    def __init__(self, source: Source, warnings: list[str], groups: list[Group],
                 reader: Reader, rebuild: Callable[[], list[Group]]) -> None:
        #: The source that was read.
        self.source = source
        #: One line per file that was skipped.
        self.warnings = warnings
        self._groups = groups
        self._reader = reader
        self._all: list[Entry] | None = None
        #: Builds the groups again from the listing, when a slice of the view is damaged.
        self._rebuild = rebuild
        #: Paths of the groups above that the overlay replaces (files that differ).
        self._drop: frozenset[str] = frozenset()
        #: The overlay's groups, built just now: (compiled, [(path, blob, meta, content)]).
        self._extra: list[Group] = []
        #: The user store's memories (read/user.py), laid over it with the overlay's.
        self._users: list[Group] = []
        #: The long-lived process's queue of work between calls (read/later.py), when
        #: one read this snapshot (it then keeps the view decoded: keep_decoded); None
        #: for a command.
        self.later: Queue | None = None
        #: Every memory's stored content in one run, read once (see body()).
        self._body: bytes | None = None
        #: The view's blob ids, each mapped to the group that holds it (blob_ids()).
        self._ids: dict[str, int] | None = None
        #: The same with the files laid over the view, once made.
        self._ids_laid: ViewBlobIds | None = None
        #: The working tree's overlay while git has not said which files differ: the
        #: snapshot answers from the view and a guess until worktree.speculate() settles it.
        #: None once it holds what the source holds.
        self.pending: WorktreeChanges | None = None

    def lay(self, drop: set[str] | frozenset[str], groups: list[Group],
            warnings: list[str]) -> None:
        """Put the files that differ from the saved view over it: their paths leave the
        view's groups, their memories come in from `groups`; `warnings` are all of the
        snapshot's warnings now. Laying nothing takes a wrong guess off again."""
        self._drop = frozenset(drop)
        self._extra = groups + self._users
        self.warnings = warnings
        self._all = None
        self._ids_laid = None

    def lay_users(self, groups: list[Group], warnings: list[str]) -> None:
        """Lay the memories of the user's own store (read/user.py) over the snapshot, as
        the files that differ from the view are laid over it; they stay through every
        lay() after (`warnings`: what was skipped of the store)."""
        self._users = groups
        self._extra = self._extra + groups
        self.warnings = self.warnings + warnings
        self._all = None
        self._ids_laid = None

    def warmed(self) -> tuple[list[Entry], dict[str, int]] | None:
        """Return every entry of the view, in its order, and each blob's place among them, once
        a long-lived process decoded the whole view (warm); None before."""
        whole = self._reader.whole
        if whole is None or whole[0] is not self._groups:
            return None
        return whole[1], whole[2]

    def laid(self) -> tuple[frozenset[str], list[Entry]]:
        """Return the paths of the view that the working tree's files replace or removed, and
        the memories of the files laid over it."""
        reader = self._reader
        return self._drop, [new_entry(Entry, (path, blob, meta, compiled, reader, raw))
                            for compiled, payload in self._extra
                            for path, blob, meta, raw in payload]

    @property
    def records(self) -> Records:
        """Return what its reader keeps of the records it parsed (read/record.Records)."""
        return self._reader.records

    def parts(self) -> tuple[list[Group], Reader]:
        """Return its groups and what reads their entries: a long-lived process makes the next
        snapshot of the same state from them (load.py's `warm`)."""
        return self._groups, self._reader

    @property
    def entries(self) -> list[Entry]:
        """Return every memory, in path order."""
        if self._all is None:
            out = self.entries_where(lambda _c: True)
            out.sort(key=itemgetter(0))
            self._all = out
        return self._all

    def entries_where(self, keep: Callable[[scopes.Compiled | None], bool],
                      newest_wide: int | None = None,
                      near: Sequence[Any] | None = None) -> list[Entry]:
        """Return the memories whose (compiled) scope passes `keep`; the others stay undecoded.

        `newest_wide`: of the project-wide memories, at least the newest this many are
        enough (a view keeps them newest first, in groups); None: all of them. `keep`
        gives a scope the same verdict each time: a long-lived process keeps its
        verdicts on the groups of a view. `near`: the query paths (`path`, `is_dir`)
        `keep` is about, when it rejects every scope that applies to none of them
        (scopes.relevant): a long-lived process then asks it only about the scopes
        whose leading directories lie on their way (GroupsByBase).
        """
        out: list[Entry] = []
        wide = 0
        later: list[int] = []  # project-wide groups left for now: older than enough
        drop = self._drop
        groups = self._groups
        for i in self._passes(keep, near):
            compiled = groups[i][0]
            if compiled is None and newest_wide is not None and wide >= newest_wide:
                later.append(i)
                continue
            made = self._made(i)
            if made is None:  # damaged, and built again from the listing
                return self.entries_where(keep, newest_wide, near)
            if drop and (not isinstance(made, DecodedGroup) or made.holds_any(drop)):
                out.extend([e for e in made if e.path not in drop])
            else:
                out.extend(made)
            wide += len(made) if compiled is None else 0
        if later:
            # The working tree may have removed some of the newest: older ones move up
            # until enough remain (the files laid over the view do not count: they may
            # be older than all of these).
            assert newest_wide is not None
            wide = sum(1 for e in out if e.compiled is None)
            for i in later:
                if wide >= newest_wide:
                    break
                made = self._made(i)
                if made is None:
                    return self.entries_where(keep, newest_wide, near)
                made = [e for e in made if e.path not in drop] if drop else made
                out.extend(made)
                wide += len(made)
        reader = self._reader
        for compiled, payload in self._extra:
            if keep(compiled):
                out.extend(new_entry(Entry, (path, blob, meta, compiled, reader, raw))
                           for path, blob, meta, raw in payload)
        return out

    def _passes(self, keep: Callable[[scopes.Compiled | None], bool],
                near: Sequence[Any] | None = None) -> list[int]:
        """Return the groups keep() passes, in order: its verdicts kept by the reader of a
        long-lived process while the groups are the same (damage builds new ones)."""
        groups = self._groups
        if not self.keep_decoded:
            return [i for i, (c, _p) in enumerate(groups) if keep(c)]
        reader = self._reader
        memo = reader.passes
        got = memo.get(id(keep))
        if got is not None and got[0] is keep and got[1] is groups:
            return got[2]
        asked: Sequence[int] = range(len(groups))
        if near is not None:
            if reader.near is None or reader.near.groups is not groups:
                reader.near = GroupsByBase(groups)
            asked = reader.near.around(near)
        verdicts = [i for i in asked if keep(groups[i][0])]
        memo.pop(id(keep), None)
        while len(memo) >= KEPT_FILTERS:
            memo.pop(next(iter(memo)))
        memo[id(keep)] = (keep, groups, verdicts)
        return verdicts

    def _made(self, i: int, only: Collection[str] | None = None) -> list[Entry] | None:
        """Decode the entries of group `i` (and keep them, in a long-lived process); None
        when its slice of the view proved damaged (the groups are then built again).
        `only`: the blobs wanted of it, when not all (the others may be left out)."""
        compiled, payload = self._groups[i]
        if isinstance(payload, DecodedGroup):  # entries made by an earlier call, kept
            return payload
        reader = self._reader
        if isinstance(payload, list):  # built just now: (path, blob, meta, content)
            made = [new_entry(Entry, (path, blob, meta, compiled, reader, raw))
                    for path, blob, meta, raw in payload]
        else:
            try:  # a slice of the view file: (path, blob, meta, offset, length, crc)
                assert reader.view is not None
                rows = marshal.loads(reader.view.read(payload) or b"")
                if only is not None and not self.keep_decoded:
                    # A few wanted of a large group: only theirs are made (and not kept).
                    rows = [row for row in rows if row[1] in only]
                made = view_entries_of(rows, compiled, reader)
            except Exception:  # damaged: build the entries again, from the listing
                if reader.view is not None:
                    views.discard(reader.cache, reader.view)
                    reader.view = None
                self._groups = self._rebuild()
                return None
        if self.keep_decoded:
            self._groups[i] = (compiled, DecodedGroup(made, payload))
        return made

    @property
    def keep_decoded(self) -> bool:
        """Tell whether the view's groups are kept decoded once read: a long-lived process
        read this snapshot (it reuses them)."""
        return self.later is not None

    def want_warm(self, each: Callable[[list[Entry]], None],
                  then: Callable[[list[Entry], dict[str, int]], Iterator[None]]) -> None:
        """Ask a long-lived process to decode its view between calls (warm), once."""
        from git_aide.read.later import Later

        reader = self._reader
        if self.later is None or reader.view is None:
            return
        job = reader.warming
        if job is None:
            job = reader.warming = Later(lambda: warm(self, each, then))
        if not job.done:
            self.later.want(job)

    def body(self, wanted: int | None = None) -> bytes | None:
        """Return every memory's content in one run (an entry's slice is at its (offset, length)),
        when the entries come from a view; None otherwise. `wanted`: read it only if
        `wanted` contents are about to be read one by one, and one read of the run costs
        less (BODY_PER_READ); else None."""
        view = self._reader.view
        if view is None:
            return None
        if self._body is None:
            if view.contents is None:
                starts = []
                for _c, p in self._groups:
                    if isinstance(p, DecodedGroup):
                        starts.append(p.span[0])
                    elif isinstance(p, list):  # built just now: no view behind it
                        return None
                    else:
                        starts.append(p[0])
                size = min(starts, default=0)
                if wanted is not None and wanted * BODY_PER_READ < size:
                    return None
                view.contents = view.read((0, size))
            self._body = view.contents
        return self._body

    def blob_ids(self) -> Mapping[str, int] | None:
        """Map every memory's blob id to the index of the group that holds it (-1: a
        file laid over the view), read from the view without decoding a group; None when
        the entries do not come from a view that lists them. Blobs of files the working
        tree changed or removed may still be named: entries_of() leaves them out."""
        if not self.prefetch_ids():
            return None
        assert self._ids is not None
        if not self._extra:
            return self._ids
        if self._ids_laid is None:
            self._ids_laid = ViewBlobIds(self._ids, {blob: -1 for _c, payload in self._extra
                                              for _p, blob, _m, _r in payload})
        return self._ids_laid

    def prefetch_ids(self) -> bool:
        """Read the view's blob ids (blob_ids()) without waiting for git to say which
        files differ; False when the view does not list them."""
        view = self._reader.view
        if view is None or view.blobs is None:
            return False
        if self._ids is None and view.ids is not None:
            self._ids = view.ids
        if self._ids is None:
            data = view.read(view.blobs)
            try:
                blobs, where, at = marshal.loads(data or b"")
                groups = array("I")
                groups.frombytes(where)
                starts = array("Q")
                starts.frombytes(at)
                ids = dict(zip(blobs, groups, strict=True))
                if (groups and max(groups) >= len(self._groups)) \
                        or len(starts) != len(blobs):
                    raise ValueError
            except Exception:  # damaged: the groups are decoded instead
                views.discard(self._reader.cache, view)
                return False
            self._ids = view.ids = ids
            view.order, view.starts = blobs, starts
        return True

    def blobs_where(self, keep: Callable[[scopes.Compiled | None], bool]) -> set[str] | None:
        """Return the blob ids of the groups whose compiled scope passes `keep`, without
        decoding them (blob_ids(): None without a view, and maybe files since changed)."""
        ids = self.blob_ids()
        if ids is None:
            return None
        passes = [keep(c) for c, _p in self._groups]
        out = {b for b, g in ids.items() if g >= 0 and passes[g]}
        out.update(blob for compiled, payload in self._extra if keep(compiled)
                   for _p, blob, _m, _r in payload)
        return out

    def scope_of(self, blob: str) -> scopes.Compiled | None | Literal[False]:
        """Return the compiled scope of the group that holds a blob (blob_ids()), without
        decoding it; False when no group holds it."""
        g = (self.blob_ids() or {}).get(blob)
        if g is None:
            return False
        if g >= 0:
            return self._groups[g][0]
        return next((c for c, payload in self._extra
                     if any(row[1] == blob for row in payload)), False)

    def entries_of(self, blobs: Collection[str]) -> list[Entry]:
        """Return the memories whose blob is one of these, decoding only the groups they are in."""
        ids = self.blob_ids()
        if ids is None or self._reader.view is None:
            return [e for e in self.entries if e.blob in blobs]
        blobs = blobs if isinstance(blobs, set | frozenset) else set(blobs)
        out = self._view_entries(blobs)
        if out is None:  # damaged, and built again from the listing
            return [e for e in self.entries if e.blob in blobs]
        reader = self._reader
        out.extend(new_entry(Entry, (path, blob, meta, compiled, reader, raw))
                   for compiled, payload in self._extra
                   for path, blob, meta, raw in payload if blob in blobs)
        return out

    def _view_entries(self, blobs: set[str] | frozenset[str]) -> list[Entry] | None:
        """Return the view's memories whose blob is one of these (not of files the working tree
        changed), decoding only their groups; None when a group proved damaged."""
        drop = self._drop
        whole = self._reader.whole
        if whole is not None and whole[0] is self._groups:
            # Warm: each blob's entry is looked up, in the groups' order.
            _g, every, first = whole
            places = sorted(first[b] for b in blobs if b in first)
            return [e for e in map(every.__getitem__, places) if e.path not in drop]
        ids = self._ids
        assert ids is not None
        out: list[Entry] = []
        # Each group is asked for its own blobs: a search's best few hundred lie in as
        # many groups, and a pass over each group, or over every blob for each, would
        # cost their product.
        wanted: dict[int, list[str]] = {}
        for b in blobs:
            g = ids.get(b)
            if g is not None:
                wanted.setdefault(g, []).append(b)
        for g in sorted(wanted):
            made = self._made(g, blobs)
            if made is None:
                return None
            mine = wanted[g]
            if isinstance(made, DecodedGroup) and len(mine) * 8 < len(made):
                out.extend(e for e in made.of(mine) if e.path not in drop)
            else:
                held = set(mine)
                out.extend(e for e in made if e.blob in held and e.path not in drop)
        return out
