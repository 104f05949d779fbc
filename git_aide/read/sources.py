"""Where a read comes from: the working tree, the index, or any revision (DESIGN section 2).

Each source is listed as (path, blob id) pairs (listing.py); records then come from the
cache by blob id, and only the blobs it lacks are read and parsed. The finished entries
of a source are kept as a view, keyed by what the listing depends on (the index file's
stat and the files that differ from it, or the tree id) and grouped by scope.
"""

from __future__ import annotations

import marshal
import os
import sys
import time
from array import array
from bisect import bisect_left, bisect_right
from operator import itemgetter

from git_aide.cache import views
from git_aide.cache.folder import RACY_SECONDS, Cache, stat_sig
from git_aide.core import memory
from git_aide.core import scope as scopes
from git_aide.core.errors import AideError
from git_aide.gitio import folders
from git_aide.gitio.repo import Repo
from git_aide.gitio.spawn import STATUS, Early, spawn
from git_aide.read import listing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection
    from typing import Any

#: Why a blob was skipped when its content could not be read at all.
_MISSING = "content could not be read (missing from the object database)"
#: Bumped when what a view holds changes.
VIEW_FORMAT = 8


class Source:
    """Which source a read came from, as the JSON output names it."""

    __slots__ = ("kind", "rev", "commit")

    def __init__(self, kind: str, rev: str | None = None, commit: str | None = None) -> None:
        #: "worktree", "index" or "rev".
        self.kind = kind
        #: The revision as the user gave it (kind "rev" only).
        self.rev = rev
        #: The commit it named (kind "rev" only).
        self.commit = commit

    def as_json(self) -> dict[str, Any]:
        """The `source` object of the JSON output."""
        return {"kind": self.kind, "rev": self.rev, "commit": self.commit}


class _Reader:
    """What an entry needs to fetch its whole record: shared by all entries of a read."""

    __slots__ = ("cache", "repo", "view")

    def __init__(self, cache: Cache, repo: Repo, view: views.ViewFile | None = None) -> None:
        #: The cache (to report damage).
        self.cache = cache
        #: The repository, to read a blob again when the cache lost it.
        self.repo = repo
        #: The view file the entries came from, which holds their contents.
        self.view = view


class Entry(tuple):  # type: ignore[type-arg]
    """One live memory of a source: (path, blob, meta, compiled, reader, content).

    A tuple, because a read makes one per memory (10,000 and more) and a tuple is made
    at C speed; the full record is parsed only when `record` is asked for.
    """

    __slots__ = ()

    #: Repo-relative path of its file.
    path: str = property(itemgetter(0))  # type: ignore[assignment]
    #: The blob id of its content.
    blob: str = property(itemgetter(1))  # type: ignore[assignment]
    #: ("ok", uuid, layer, scope, tags, contributor, updated_at, created_at, relpath).
    meta: tuple[Any, ...] = property(itemgetter(2))  # type: ignore[assignment]
    #: The compiled scope, or None for a project-wide memory.
    compiled: scopes.Compiled | None = property(itemgetter(3))  # type: ignore[assignment]

    @property
    def uuid(self) -> str:
        """The memory's uuid."""
        return self[2][1]

    @property
    def layer(self) -> str:
        """Its layer."""
        return self[2][2]

    @property
    def scope(self) -> str | None:
        """Its scope as written (None: project-wide)."""
        return self[2][3]

    @property
    def tags(self) -> tuple[str, ...]:
        """Its tags."""
        return self[2][4]

    @property
    def contributor(self) -> str:
        """Who wrote it."""
        return self[2][5]

    @property
    def updated_at(self) -> str:
        """When it last changed."""
        return self[2][6]

    @property
    def created_at(self) -> str:
        """When it was made."""
        return self[2][7]

    @property
    def what(self) -> str:
        """Its `what`, read without checking the whole record: comparing the words of a
        few dozen memories (supersession, near duplicates) need not validate them."""
        data = self[5]
        if isinstance(data, tuple):
            reader: _Reader = self[4]
            data = reader.view.read(data) if reader.view is not None else None
        if data:
            try:
                value = memory.load_json(data).get("what")
            except (memory.MemoryFormatError, AttributeError):
                value = None
            if isinstance(value, str):
                return value
        return self.record["what"]

    @property
    def record(self) -> dict[str, Any]:
        """The whole record, parsed from the bytes kept with the entry."""
        reader: _Reader = self[4]
        data = self[5]
        checked = False
        if isinstance(data, tuple):  # an (offset, length, crc) slice of the view file
            data = reader.view.read(data) if reader.view is not None else None
            checked = data is not None  # its CRC-32 matched: hashing it again is waste
        if data is None or (not checked and listing.blob_id(data) != self[1]):
            if data is not None and reader.view is not None:
                views.discard(reader.cache, reader.view)
            # Damaged: the blob itself is the truth.
            data = _read_again(reader.repo, self[0], self[1])
        try:
            return memory.parse(data, self[0])
        except memory.MemoryFormatError:
            raise AideError(f"{self[0]} changed while it was being read; try again") from None


#: Makes an Entry from its six fields at C speed.
new_entry = tuple.__new__


class _Made(list):  # type: ignore[type-arg]
    """A group's entries, made once and kept by a long-lived process (keep_decoded)."""

    __slots__ = ("span",)

    def __init__(self, entries: list[Entry], span: Any) -> None:
        super().__init__(entries)
        #: The slice of the view its rows came from.
        self.span = span


class Snapshot:
    """Every live memory of one source, and what was skipped on the way.

    Entries are kept in groups by scope, each group decoded on its own, so that a
    recall decodes only the groups whose scope is relevant to its paths.
    """

    __slots__ = ("source", "_warnings", "_groups", "_reader", "_all", "_rebuild", "_drop",
                 "_extra", "keep_decoded", "_body", "_pending", "_ids", "_ids_laid",
                 "_early", "_guess")

    def __init__(self, source: Source, warnings: list[str],
                 groups: list[tuple[scopes.Compiled | None, Any]], reader: _Reader,
                 rebuild: Callable[[], list[tuple[scopes.Compiled | None, Any]]]) -> None:
        #: The source that was read.
        self.source = source
        self._warnings = warnings
        self._groups = groups
        self._reader = reader
        self._all: list[Entry] | None = None
        self._rebuild = rebuild
        #: Paths of the groups above that the overlay replaces (files that differ).
        self._drop: frozenset[str] = frozenset()
        #: The overlay's groups, built just now: (compiled, [(path, blob, meta, content)]).
        self._extra: list[tuple[scopes.Compiled | None, Any]] = []
        #: Keep the view's groups decoded once read (a long-lived process reuses them).
        self.keep_decoded = False
        #: Every memory's stored content in one run, read once (see body()).
        self._body: bytes | None = None
        #: What lays the working tree's changed files over the view, once git has said
        #: which they are (see defer()); None when nothing is left to lay over.
        self._pending: Callable[[], bool] | None = None
        #: What lays the files that differed last time over the view, before git has
        #: answered (see speculate()).
        self._guess: Callable[[], None] | None = None
        #: The view's blob ids, each mapped to the group that holds it (blob_ids()).
        self._ids: dict[str, int] | None = None
        #: The same with the files laid over the view, once made.
        self._ids_laid: dict[str, int] | None = None
        #: Answering from the view alone, git's answer not yet taken (speculate()).
        self._early = False

    @property
    def warnings(self) -> list[str]:
        """One line per file that was skipped."""
        self._settle()
        return self._warnings

    def defer(self, overlay: Callable[[], bool],
              guess: Callable[[], None] | None = None) -> None:
        """Lay the files that differ over the view only when an answer needs them, so
        that the view's groups are decoded while git is still comparing the tree.

        `overlay` takes git's answer and says whether what `guess` laid over the view
        beforehand (the files that differed last time, if unchanged since) was right;
        if not, it lays the right files instead.
        """
        self._pending = overlay
        self._guess = guess

    def speculate(self) -> bool:
        """Answer without git's answer until confirm(): from the saved view, with the
        files that differed from the index last time laid over it (a personal memory,
        say) if they have not changed since, so that an answer is worked out while git
        is still comparing the tree; False (and nothing changes) when git has answered
        already."""
        self._early = self._pending is not None
        guess, self._guess = self._guess, None
        if self._early and guess is not None:
            guess()
        return self._early

    def confirm(self) -> bool:
        """End speculate(): take git's answer, and say whether what was worked out before
        it holds (the files that differ from the index are the ones laid over the view
        then); if not, the caller works it out again."""
        self._early = False
        return self._settle()

    def _settle(self) -> bool:
        if self._early:
            return True
        pending, self._pending = self._pending, None
        return pending() if pending is not None else True

    def unlay(self, warnings: list[str]) -> None:
        """Take what overlay() laid over the view off again (a wrong guess)."""
        self._drop = frozenset()
        self._extra = []
        self._ids_laid = None
        self._all = None
        self._warnings = warnings

    def overlay(self, drop: set[str], groups: list[tuple[scopes.Compiled | None, Any]],
                warnings: list[str], live: list[str]) -> None:
        """Put the files that differ from the saved view over it: their paths leave the
        view's groups (and its warnings), their memories come in from `groups`."""
        self._drop = frozenset(drop)
        self._extra = groups
        self._warnings = [w for w in self._warnings
                          if w in live or w.split(": ", 1)[0] not in drop] + warnings

    @property
    def entries(self) -> list[Entry]:
        """Every memory, in path order."""
        if self._all is not None:
            return self._all
        out = self.entries_where(lambda _c: True)
        out.sort(key=itemgetter(0))
        if not self._early:  # the view alone, not yet every memory
            self._all = out
        return out

    def entries_where(self, keep: Callable[[scopes.Compiled | None], bool],
                      newest_wide: int | None = None) -> list[Entry]:
        """The memories whose (compiled) scope passes `keep`; the others stay undecoded.

        `newest_wide`: of the project-wide memories, at least the newest this many are
        enough (a view keeps them newest first, in groups); None: all of them.
        """
        out: list[Entry] = []
        wide = 0
        later: list[int] = []  # project-wide groups left for now: older than enough
        for i, (compiled, _payload) in enumerate(self._groups):
            if not keep(compiled):
                continue
            if compiled is None and newest_wide is not None and wide >= newest_wide:
                later.append(i)
                continue
            made = self._made(i)
            if made is None:  # damaged, and built again from the listing
                return self.entries_where(keep, newest_wide)
            out.extend(made)
            wide += len(made) if compiled is None else 0
        self._settle()  # the view's part is decoded: now wait for git's answer
        drop = self._drop
        if drop:
            out = [e for e in out if e[0] not in drop]
        if later:
            # The working tree may have removed some of the newest: older ones move up
            # until enough remain (the files laid over the view do not count: they may
            # be older than all of these).
            assert newest_wide is not None
            wide = sum(1 for e in out if e[3] is None)
            for i in later:
                if wide >= newest_wide:
                    break
                made = self._made(i)
                if made is None:
                    return self.entries_where(keep, newest_wide)
                made = [e for e in made if e[0] not in drop] if drop else made
                out.extend(made)
                wide += len(made)
        reader = self._reader
        for compiled, payload in self._extra:
            if keep(compiled):
                out.extend(new_entry(Entry, (path, blob, meta, compiled, reader, raw))
                           for path, blob, meta, raw in payload)
        return out

    def _made(self, i: int, only: Collection[str] | None = None) -> list[Entry] | None:
        """The entries of group `i`, decoded (and kept, in a long-lived process); None
        when its slice of the view proved damaged (the groups are then built again).
        `only`: the blobs wanted of it, when not all (the others may be left out)."""
        compiled, payload = self._groups[i]
        if isinstance(payload, _Made):  # entries made by an earlier call, kept
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
                made = [new_entry(Entry, (path, blob, meta, compiled, reader,
                                          (at, size, crc)))
                        for path, blob, meta, at, size, crc in rows]
            except Exception:  # damaged: build the entries again, from the listing
                if reader.view is not None:
                    views.discard(reader.cache, reader.view)
                    reader.view = None
                self._groups = self._rebuild()
                return None
        if self.keep_decoded:
            self._groups[i] = (compiled, _Made(made, payload))
        return made

    def body(self) -> bytes | None:
        """Every memory's content in one run (an entry's slice is at its (offset, length)),
        when the entries come from a view; None otherwise."""
        view = self._reader.view
        if view is None:
            return None
        if self._body is None:
            if view.contents is None:
                starts = []
                for _c, p in self._groups:
                    if isinstance(p, _Made):
                        starts.append(p.span[0])
                    elif isinstance(p, list):  # built just now: no view behind it
                        return None
                    else:
                        starts.append(p[0])
                view.contents = view.read((0, min(starts, default=0)))
            self._body = view.contents
        return self._body

    def blob_ids(self) -> dict[str, int] | None:
        """Every memory's blob id, mapped to the index of the group that holds it (-1: a
        file laid over the view), read from the view without decoding a group; None when
        the entries do not come from a view that lists them. Blobs of files the working
        tree changed or removed may still be named: entries_of() leaves them out."""
        if not self.prefetch_ids():
            return None
        self._settle()
        assert self._ids is not None
        if not self._extra:
            return self._ids
        if self._ids_laid is None:
            self._ids_laid = {**self._ids, **{blob: -1 for _c, payload in self._extra
                                              for _p, blob, _m, _r in payload}}
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
        """The blob ids of the groups whose compiled scope passes `keep`, without
        decoding them (blob_ids(): None without a view, and maybe files since changed)."""
        ids = self.blob_ids()
        if ids is None:
            return None
        passes = [keep(c) for c, _p in self._groups]
        out = {b for b, g in ids.items() if g >= 0 and passes[g]}
        out.update(blob for compiled, payload in self._extra if keep(compiled)
                   for _p, blob, _m, _r in payload)
        return out

    def scope_of(self, blob: str) -> scopes.Compiled | None | bool:
        """The compiled scope of the group that holds a blob (blob_ids()), without
        decoding it; False when no group holds it."""
        g = (self.blob_ids() or {}).get(blob)
        if g is None:
            return False
        if g >= 0:
            return self._groups[g][0]
        return next((c for c, payload in self._extra
                     if any(row[1] == blob for row in payload)), False)

    def entries_of(self, blobs: Collection[str]) -> list[Entry]:
        """The memories whose blob is one of these, decoding only the groups they are in."""
        ids = self.blob_ids()
        if ids is None or self._reader.view is None:
            return [e for e in self.entries if e[1] in blobs]
        blobs = blobs if isinstance(blobs, set | frozenset) else set(blobs)
        out = self._view_entries(blobs)
        if out is None:  # damaged, and built again from the listing
            return [e for e in self.entries if e[1] in blobs]
        reader = self._reader
        out.extend(new_entry(Entry, (path, blob, meta, compiled, reader, raw))
                   for compiled, payload in self._extra
                   for path, blob, meta, raw in payload if blob in blobs)
        return out

    def _view_entries(self, blobs: set[str] | frozenset[str]) -> list[Entry] | None:
        """The view's memories whose blob is one of these (not of files the working tree
        changed), decoding only their groups; None when a group proved damaged."""
        ids = self._ids
        assert ids is not None
        out: list[Entry] = []
        drop = self._drop
        for g in sorted({ids[b] for b in blobs if b in ids}):
            made = self._made(g, blobs)
            if made is None:
                return None
            out.extend(e for e in made if e[1] in blobs and e[0] not in drop)
        return out

    def mentioning(self, found: Callable[[bytes], list[int]],
                   skip: Callable[[scopes.Compiled | None], bool]) -> list[Entry]:
        """The memories outside the groups that `skip` keeps whose file content holds a
        match: `found(bytes)` gives the offsets of the matches in some bytes.

        A view holds every content in one run: it is searched at once, and groups are
        decoded only when something matched. Without one, the contents are joined into
        one run all the same, so that a finder that counts what it sees (a file's stem
        common in the store brings no candidates) counts the same store either way.
        """
        view = self._reader.view
        body = self.body()
        if body is None:
            every = self.entries_where(lambda _c: True)
            texts = []
            for e in every:
                data = e[5]
                if isinstance(data, tuple):
                    data = view.read(data) if view is not None else None
                texts.append(data or b"")
            begins = [0]
            for t in texts:
                begins.append(begins[-1] + len(t) + 1)  # "\n" between: no match spans two
            picked = {bisect_right(begins, at) - 1 for at in found(b"\n".join(texts))}
            return [every[i] for i in sorted(picked) if not skip(every[i][3])]
        offsets = sorted(found(body))
        self._settle()

        def laid() -> list[Entry]:  # the files laid over the view that match
            return [new_entry(Entry, (path, blob, meta, compiled, self._reader, raw))
                    for compiled, payload in self._extra if not skip(compiled)
                    for path, blob, meta, raw in payload if found(raw)]

        if not offsets:  # none in the view: only the files laid over it may match
            return laid()
        if self.prefetch_ids() and view is not None and view.starts is not None:
            # Each match names the memory whose content holds it: only their groups
            # are decoded.
            assert view.order is not None
            order, starts = view.order, view.starts
            got = self._view_entries({order[bisect_right(starts, at) - 1] for at in offsets})
            if got is not None:
                return [e for e in got if not skip(e[3])] + laid()
        out: list[Entry] = []
        for e in self.entries_where(lambda c: not skip(c)):
            data = e[5]
            if isinstance(data, tuple):  # its slice of the view's run
                i = bisect_left(offsets, data[0])
                if i < len(offsets) and offsets[i] < data[0] + data[1]:
                    out.append(e)
            elif data and found(data):  # a file laid over the view
                out.append(e)
        return out


def load(repo: Repo, cache: Cache, kind: str = "worktree", rev: str | None = None,
         asked: Early | None = None, save_view: bool = True,
         warm: dict[Any, Any] | None = None, changed: list[str] | None = None) -> Snapshot:
    """Read one source's memories.

    `asked` holds git questions the caller started early (spawn.early), so that git
    compares the working tree with the index while this process is still starting.
    `save_view=False` reads a saved view but does not write one (a bulk `index`).
    `warm`: a long-lived process's memory of the views it read, keyed by their full
    state (a state's entries never change), kept decoded between calls.
    `changed`: the working tree's files that may differ from the index, when the caller
    knows them without asking git (a server watching the folder, agents/watch.py).
    """
    warnings: list[str] = []  # found while listing: saved with the view
    live: list[str] = []  # about files read from disk this time: never saved
    contents: dict[str, bytes] = {}
    list_fn: Callable[[], list[tuple[str, str]]]
    if kind == "rev":
        assert rev is not None
        commit, tree = repo.resolve(rev, asked.resolve if asked else None)
        source = Source("rev", rev, commit)
        key: tuple[str, str] | None = (f"rev-{tree}", repr(VIEW_FORMAT))
        list_fn = lambda: listing.rev_listing(repo, cache, tree, warnings)  # noqa: E731
    elif kind == "index":
        repo.require_worktree("--cached")
        source = Source("index")
        key = _state_key("index", repo.index_file, [])
        list_fn = lambda: listing.index_listing(repo, cache, warnings)  # noqa: E731
    else:
        source = Source("worktree")
        top = repo.require_worktree("reading the working tree")
        status = ((asked and asked.status) or spawn(*STATUS)) if changed is None else None
        # The view is the index's listing as if nothing differed from it, so that it
        # survives an edit: the files that differ are laid over it (_overlay), once git
        # has said which they are; meanwhile the view is read and decoded.
        key = _state_key("worktree", repo.index_file, [])
        list_fn = lambda: listing.worktree_listing(repo, cache, [], warnings)  # noqa: E731
        snap = _load_view(repo, cache, source, key, list_fn, contents, warnings, live,
                          save_view, warm)

        guessed: list[tuple[str, str]] = []
        before: list[str] = []
        table: list[dict[str, tuple[int, int, int, int, str]]] = []  # read once

        def guess() -> None:
            # The files that differed last time, unchanged since: most often the same
            # few (personal memories are never in the index).
            table.append(cache.stat_table(top))
            guessed.extend(listing.guess_dirty(table[0], top))
            if guessed:
                before.extend(snap._warnings)
                _overlay(repo, cache, snap, guessed, contents, [])

        def overlay() -> bool:
            paths = changed if changed is not None else listing.changed_paths(top, status)
            dirty = (listing.read_dirty(cache, top, paths, contents, live,
                                        table[0] if table else None) if paths else [])
            for warning in folders.linked(top):
                # An untracked link is named once already, by the listing of git's answer.
                if not any(w.startswith(warning.split(":", 1)[0] + ":") for w in live):
                    live.append(warning)
            held = sorted(dirty) == guessed
            if guessed and not held:
                snap.unlay(before)
            snap._warnings = live + snap._warnings
            if dirty and not held:
                _overlay(repo, cache, snap, dirty, contents, live)
            return held

        snap.defer(overlay, guess if changed is None else None)
        return snap
    return _load_view(repo, cache, source, key, list_fn, contents, warnings, live, save_view,
                      warm)


#: Up to this many files that differ from the index are read and parsed as they are;
#: beyond it, through the cache's record packs.
OVERLAY_READ = 64


def _overlay(repo: Repo, cache: Cache, snap: Snapshot, dirty: list[tuple[str, str]],
             contents: dict[str, bytes], live: list[str]) -> None:
    """Lay the files that differ from the index over the snapshot of the index's listing."""
    noted: list[str] = []
    pairs = [(p, b) for p, b in dirty if b and listing.is_candidate(p, noted)]
    if len(pairs) > OVERLAY_READ:
        skipped, groups = _groups(repo, cache, pairs, contents, noted, None)
    else:  # a few files: parsing them beats loading every pack of the cache
        skipped, groups = _parse_few(repo, pairs, contents, noted)
    snap.overlay({p for p, _b in dirty}, groups, skipped, live)


def _parse_few(repo: Repo, pairs: list[tuple[str, str]], contents: dict[str, bytes],
               warnings: list[str]) -> tuple[list[str], list[tuple[Any, Any]]]:
    """The checks of _build, on a few files read from disk, grouped by scope."""
    by_scope: dict[str | None, list[tuple[str, str, tuple[Any, ...], bytes]]] = {}
    seen: dict[str, str] = {}
    for path, blob in pairs:
        data = contents.get(blob) or _read_again(repo, path, blob)
        try:
            meta = meta_of(memory.parse(data, path))
        except memory.MemoryFormatError as e:
            warnings.append(f"{path}: {e.field + ': ' if e.field else ''}{e}; skipped")
            continue
        if path != meta[8]:
            warnings.append(f"{path}: {memory.misplaced(path, meta[1], meta[2], meta[8])}; "
                            "skipped")
            continue
        if meta[1] in seen:
            warnings.append(f"{path}: uuid already used by {seen[meta[1]]}; skipped")
            continue
        seen[meta[1]] = path
        scope = None if scopes.is_project_wide(meta[3]) else meta[3]
        by_scope.setdefault(scope, []).append((path, blob, meta, data))
    return warnings, [(None if s is None else scopes.compile_scope(s), rows)
                      for s, rows in by_scope.items()]


def _load_view(repo: Repo, cache: Cache, source: Source, key: tuple[str, str] | None,
               list_fn: Callable[[], list[tuple[str, str]]], contents: dict[str, bytes],
               warnings: list[str], live: list[str], save_view: bool,
               warm: dict[Any, Any] | None = None) -> Snapshot:
    """A source's snapshot from its saved view, or built from its listing (and saved)."""

    def rebuild() -> list[tuple[scopes.Compiled | None, Any]]:
        return _groups(repo, cache, list_fn(), contents, [], None)[1]

    if warm is not None and key and key in warm:
        groups, reader, skipped = warm[key]
        kept = Snapshot(source, live + skipped, groups, reader, rebuild)
        kept.keep_decoded = True
        return kept

    def saved() -> Snapshot | None:
        view = views.load(cache, key) if key else None
        if view is None:
            return None
        skipped, spans, opened = view
        try:
            groups = [(None if c is None else scopes.Compiled(*c), span) for c, span in spans]
        except (TypeError, ValueError):  # not what a view holds: build it again
            views.discard(cache, opened)
            return None
        return Snapshot(source, live + skipped, groups, _Reader(cache, repo, opened), rebuild)

    snap = saved()
    if snap is None:
        pairs = list_fn()
        skipped, groups = _groups(repo, cache, pairs, contents, warnings,
                                  key if save_view else None)
        # A long-lived process keeps the view just saved rather than the groups built:
        # only a view holds every content in one run, which path mentions search at once.
        snap = (saved() if warm is not None and save_view else None) or Snapshot(
            source, live + skipped, groups, _Reader(cache, repo), lambda: groups)
    skipped = snap._warnings[len(live):]
    if warm is not None and key and not any(_MISSING in w for w in skipped):
        while len(warm) >= WARM_VIEWS:
            warm.pop(next(iter(warm)))
        warm[key] = (snap._groups, snap._reader, skipped)
        snap.keep_decoded = True
    return snap


#: Views a long-lived process keeps decoded (the working tree's, a few revisions').
WARM_VIEWS = 4


def _groups(repo: Repo, cache: Cache, pairs: list[tuple[str, str]],
            contents: dict[str, bytes], warnings: list[str], key: tuple[str, str] | None
            ) -> tuple[list[str], list[tuple[scopes.Compiled | None, Any]]]:
    """Build a source's entries by scope from its listing, and save them as a view.

    Returns every warning (the listing's, then the records') and the groups.
    """
    skipped, rows = _build(repo, cache, pairs, contents)
    if any(_MISSING in w for w in skipped):
        key = None  # a blob that could not be read now may be readable next time
    skipped = warnings + skipped
    by_scope: dict[str | None, list[tuple[str, str, tuple[Any, ...], bytes]]] = {}
    for row in rows:
        scope = row[2][3]
        by_scope.setdefault(None if scopes.is_project_wide(scope) else scope, []).append(row)
    compiled = {scope: compiled_scope(cache, scope) for scope in by_scope}
    cache.flush()
    groups: list[tuple[str | None, list[tuple[str, str, tuple[Any, ...], bytes]]]] = []
    for scope, group in by_scope.items():
        if scope is None and len(group) > WIDE_CHUNK:
            # Newest first (a stable sort: equal times stay in path order), in groups of
            # WIDE_CHUNK: a search that finds one of them decodes only its group.
            group = sorted(group, key=lambda row: row[2][6], reverse=True)
            groups += [(None, group[i:i + WIDE_CHUNK])
                       for i in range(0, len(group), WIDE_CHUNK)]
        else:
            groups.append((scope, group))
    if key:
        views.save(cache, key, skipped, [
            (None if (c := compiled[s]) is None else c.as_tuple(), r) for s, r in groups])
    return skipped, [(compiled[s], r) for s, r in groups]


#: Project-wide memories are kept newest first, in groups of this many: a path recall
#: weighs only the newest few hundred of them (recall.py's PROJECT_WIDE_SCAN) and need
#: not decode the thousands behind.
WIDE_CHUNK = 256


def _state_key(kind: str, index_file: str, dirty: list[tuple[str, str]]
               ) -> tuple[str, str] | None:
    """What a source's listing depends on: the index file's stat and the files that differ.

    Returned as (file name, full state): the name is short and may be shared by two
    states, the state is stored in the view and compared when it is read. None while
    the index is too fresh for its stat to be trusted (a second write within the file
    system's timestamp granularity could keep size, time and inode).
    """
    sig = stat_sig(index_file)
    if sig is not None and time.time() - max(sig[1], sig[3]) / 1e9 < RACY_SECONDS:
        return None
    state = repr((VIEW_FORMAT, kind, index_file, sig, dirty))
    return f"{kind}-{sig[2] if sig else 0}-{sig[1] if sig else 0}-{len(dirty)}", state


def _build(repo: Repo, cache: Cache, pairs: list[tuple[str, str]],
           contents: dict[str, bytes]) -> tuple[list[str], list[tuple[str, str, Any, bytes]]]:
    """Warnings and (path, blob, meta, content) rows of a listing, from the record packs.

    The content travels with the row into the view, so that showing a memory never
    needs the packs again.
    """
    cache.load_records()
    metas = cache.metas
    missing = [b for _, b in pairs if b not in metas and b not in contents]
    if missing:
        contents.update(repo.read_blobs(list(dict.fromkeys(missing))))
        # Untracked and personal files are in no object database: read them again.
        for path, blob in pairs:
            if blob not in metas and blob not in contents:
                data = _read_again(repo, path, blob)
                if data:
                    contents[blob] = data
    warnings: list[str] = []
    rows: list[tuple[str, str, Any, bytes]] = []
    seen: dict[str, str] = {}
    for path, blob in pairs:
        meta = metas.get(blob)
        if meta is None:
            meta = _ingest(cache, blob, contents.get(blob), path)
        if meta[0] != "ok":
            field = f"{meta[1]}: " if meta[1] else ""
            warnings.append(f"{path}: {field}{meta[2]}; skipped")
            continue
        if path != meta[8]:
            where = memory.misplaced(path, meta[1], meta[2], meta[8])
            warnings.append(f"{path}: {where}; skipped")
            continue
        uuid = meta[1]
        if uuid in seen:
            warnings.append(f"{path}: uuid already used by {seen[uuid]}; skipped")
            continue
        raw = contents.get(blob) or cache.raw(blob)
        if raw is None or listing.blob_id(raw) != blob:
            raw = _read_again(repo, path, blob)
        seen[uuid] = path
        rows.append((path, blob, meta, raw))
    return warnings, rows


def meta_of(record: dict[str, Any]) -> tuple[Any, ...]:
    """What filtering and ranking need of a record, kept in the cache by blob id."""
    # Interned, the strings that many memories share are stored once in a pack.
    intern = sys.intern
    scope = record["scope"]
    return ("ok", record["uuid"], intern(record["layer"]), scope and intern(scope),
            tuple(intern(t) for t in record["tags"]), intern(record["contributor"]),
            record["updated_at"], record["created_at"], memory.relpath(record))


def compiled_scope(cache: Cache, scope: str | None) -> scopes.Compiled | None:
    """The compiled form of a record's scope, from the cache when it has it."""
    if scopes.is_project_wide(scope):
        return None
    assert scope is not None
    got = cache.scopes.get(scope)
    if got is None:
        compiled = scopes.compile_scope(scope)
        cache.add_scope(scope, compiled.as_tuple())
        return compiled
    return scopes.Compiled(*got)


def _ingest(cache: Cache, blob: str, data: bytes | None, path: str) -> tuple[Any, ...]:
    if data is None:
        return ("bad", None, _MISSING)
    try:
        meta = meta_of(memory.parse(data, path))
        cache.add(blob, meta, data)
    except memory.MemoryFormatError as e:
        meta = ("bad", e.field, str(e))
        cache.add(blob, meta, None)
    return meta


def _read_again(repo: Repo, path: str, blob: str) -> bytes:
    if repo.worktree is not None:
        try:
            with open(os.path.join(repo.worktree, path), "rb") as f:
                data = f.read()
            if listing.blob_id(data) == blob:
                return data
        except OSError:
            pass
    return repo.read_blobs([blob]).get(blob, b"")
