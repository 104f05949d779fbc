"""The record model of a read: which source it came from (`Source`), one live memory of
it (`Entry`), and the metadata that filtering and ranking need of a record (`meta`).

An entry is a tuple, made at C speed (a read makes one per memory, 10,000 and more),
with a named property per field; its whole record is parsed only when asked for.
`meta` is a plain tuple because the cache's record packs and the views store it with
marshal; its fields are named by the positions below.
"""

from __future__ import annotations

import os
import sys
from operator import itemgetter

from git_aide.cache import views
from git_aide.core import memory
from git_aide.core import scope as scopes
from git_aide.core.errors import AideError
from git_aide.read import listing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from git_aide.cache.folder import Cache
    from git_aide.core.jsonvalue import JSON
    from git_aide.gitio.repo import Repo
    from git_aide.read.groups import GroupsByBase
    from git_aide.read.later import Later
    from git_aide.read.vocabulary import Vocabulary

    #: A row of a source built from its listing: (path, blob, meta, content bytes).
    Row = tuple[str, str, tuple[Any, ...], bytes]
    #: A group of a snapshot: (compiled scope or None, what it holds: its rows, or its
    #: slice of the view file, or its entries once decoded and kept).
    Group = tuple[scopes.Compiled | None, Any]

#: Why a blob was skipped when its content could not be read at all.
MISSING = "content could not be read (missing from the object database)"

# The fields of a memory's `meta` tuple, by position. A blob that is no memory has
# ("bad", field, message) instead.
STATUS, UUID, LAYER, SCOPE, TAGS, CONTRIBUTOR, UPDATED_AT, CREATED_AT, RELPATH = range(9)

def meta_of(record: dict[str, Any]) -> tuple[Any, ...]:
    """Return what filtering and ranking need of a record, kept in the cache by blob id."""
    # Interned, the strings that many memories share are stored once in a pack.
    intern = sys.intern
    scope = record["scope"]
    return ("ok", record["uuid"], intern(record["layer"]), scope and intern(scope),
            tuple(intern(t) for t in record["tags"]), intern(record["contributor"]),
            record["updated_at"], record["created_at"], memory.relpath(record))


class Source:
    """Name the source a read came from, as the JSON output names it."""

    __slots__ = ("kind", "rev", "commit")

    def __init__(self, kind: str, rev: str | None = None, commit: str | None = None) -> None:
        #: "worktree", "index" or "rev".
        self.kind = kind
        #: The revision as the user gave it (kind "rev" only).
        self.rev = rev
        #: The commit it named (kind "rev" only).
        self.commit = commit

    def as_json(self) -> dict[str, Any]:
        """Return the `source` object of the JSON output."""
        return {"kind": self.kind, "rev": self.rev, "commit": self.commit}


class Reader:
    """Hold what an entry needs to fetch its whole record: shared by all entries of a read."""

    __slots__ = ("cache", "repo", "view", "records", "found", "passes", "near", "vocab",
                 "warming", "whole")

    def __init__(self, cache: Cache, repo: Repo, view: views.ViewFile | None = None,
                 records: Records | None = None) -> None:
        #: The cache (to report damage).
        self.cache = cache
        #: The repository, to read a blob again when the cache lost it.
        self.repo = repo
        #: The view file the entries came from, which holds their contents.
        self.view = view
        #: The records and texts parsed of its entries' blobs (a long-lived process
        #: passes its own, read/load.Held.records, so they outlive one read).
        self.records = Records() if records is None else records
        #: What a search of the view's contents found, by what was searched for (a
        #: long-lived process keeps the reader, and its view never changes):
        #: (offsets, the finder's state after it), see contents.mentioning.
        self.found: dict[Any, tuple[list[int], Any]] = {}
        #: Which groups a scope filter keeps, by the filter (it and the groups it was
        #: asked about held, so that neither id is reused): see Snapshot.entries_where.
        self.passes: dict[int, tuple[Any, Any, list[int]]] = {}
        #: The groups by the leading directories of their scopes, once asked.
        self.near: GroupsByBase | None = None
        #: The words of the view's contents, by memory, once asked (a long-lived process).
        self.vocab: Vocabulary | None = None
        #: The view decoded between calls (groups.warm), once asked.
        self.warming: Later | None = None
        #: Once warm: (the groups, their entries in order, the place of each blob
        #: among them), so that the entries of a search's best are looked up, not
        #: sought group by group.
        self.whole: tuple[Any, list[Entry], dict[str, int]] | None = None


class Entry(tuple):  # type: ignore[type-arg]
    """Hold one live memory of a source: (path, blob, meta, compiled, reader, content).

    A tuple, made at C speed (a read makes one per memory), whose fields are values;
    `content` is the record's bytes, or the (offset, length, crc) of its slice of the
    view file. Its text is read by an explicit call (read_record(), read_what()), which
    goes through its reader and the records it keeps.
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
    #: Its bytes, or the (offset, length, crc) of its slice of the view file.
    content: bytes | tuple[int, int, int] = property(  # type: ignore[assignment]
        itemgetter(5))

    @property
    def uuid(self) -> str:
        """Return the memory's uuid."""
        return self[2][UUID]

    @property
    def layer(self) -> str:
        """Return the memory's layer."""
        return self[2][LAYER]

    @property
    def scope(self) -> str | None:
        """Return the memory's scope as written (None: project-wide)."""
        return self[2][SCOPE]

    @property
    def tags(self) -> tuple[str, ...]:
        """Return the memory's tags."""
        return self[2][TAGS]

    @property
    def contributor(self) -> str:
        """Return who wrote the memory."""
        return self[2][CONTRIBUTOR]

    @property
    def updated_at(self) -> str:
        """Return when the memory last changed."""
        return self[2][UPDATED_AT]

    @property
    def created_at(self) -> str:
        """Return when the memory was made."""
        return self[2][CREATED_AT]

    def data(self) -> bytes | None:
        """Return its stored bytes (read from the view when they are a slice of it), unchecked."""
        data = self[5]
        if isinstance(data, tuple):
            reader: Reader = self[4]
            return reader.view.read(data) if reader.view is not None else None
        return data

    def read_what(self) -> str:
        """Read its `what` through its reader, once per blob, without checking the whole
        record: comparing the words of a few dozen memories (supersession, near
        duplicates) need not validate them."""
        return self[4].records.what(self)

    def parse_what(self) -> str:
        """Parse its `what` from its bytes, each time (read_what() keeps it)."""
        data = self.data()
        value = None
        if data:
            try:
                value = memory.load_json(data).get("what")
            except (memory.MemoryFormatError, AttributeError):
                value = None
        return value if isinstance(value, str) else self.read_record()["what"]

    def read_record(self) -> dict[str, Any]:
        """Read its whole record through its reader, parsed once per path and blob; a
        copy of its own (the caller may change it)."""
        return self[4].records.record(self)

    def read_record_once(self) -> dict[str, Any]:
        """Read its whole record as read_record() does, but keep nothing of it: for one
        of many memories read once each (an answer of thousands, which would only
        churn the records kept)."""
        return self[4].records.record(self, keep=False)

    def _parse(self, bulk: bool = False) -> dict[str, Any]:
        reader: Reader = self[4]
        path, blob, data = self[0], self[1], self[5]
        checked = False
        if isinstance(data, tuple):  # an (offset, length, crc) slice of the view file
            data = reader.view.read(data) if reader.view is not None else None
            checked = data is not None  # its CRC-32 matched: hashing it again is waste
        if data is None or (not checked and listing.blob_id(data) != blob):
            if data is not None and reader.view is not None:
                views.discard(reader.cache, reader.view)
            # Damaged: the blob itself is the truth.
            data = read_again(reader.repo, path, blob)
        try:
            # The read found this blob a memory (an entry is made of no other), and a
            # blob id names its bytes: the rules need not be checked again.
            return memory.parse(data, path, known=True, bulk=bulk)
        except memory.MemoryFormatError:
            raise AideError(f"{path} changed while it was being read; try again") from None


class Records:
    """Keep what was parsed of memories' blobs: each one's `what`, by blob id, and its
    whole record, by path and blob id (a missing `shared` comes from the path). A blob's
    bytes never change. A command's read keeps them for its one answer; a long-lived
    process (the MCP server) passes its own (read/load.Held.records) to every read, since
    it shows and compares the same memories again."""

    __slots__ = ("whats", "parsed", "ahead", "built", "compiled_scopes")

    #: How many of each are kept before they start again: a recall compares up to a
    #: thousand (rank/recall.SUPERSESSION_MOST) and shows a few dozen.
    KEPT_WHATS = 10_000
    KEPT_RECORDS = 1024
    #: keep_ahead() parses the records of a view of at most this many memories (about
    #: 2 KB each), and keeps them until they pass twice that (the views of a few commits).
    AHEAD = 20_000

    def __init__(self, built: bool = False) -> None:
        #: Each memory's `what`, by blob id.
        self.whats: dict[str, str] = {}
        #: Whole records, by (path, blob id).
        self.parsed: dict[tuple[str, str], dict[str, Any]] = {}
        #: The whole records of a view, parsed between a long-lived process's calls
        #: (keep_ahead()): a search of a word not asked before shows memories no call
        #: has shown, and parsing them took a sixth of its answer at 10,000 memories.
        self.ahead: dict[tuple[str, str], dict[str, Any]] = {}
        #: The whole records a read parsed as it built a view (`built`: a bulk index,
        #: which reads every memory it read), by (path, blob id), each handed out once
        #: by record(): parsing and hashing every memory again took an eighth of a
        #: first index. None: not kept.
        self.built: dict[tuple[str, str], dict[str, Any]] | None = {} if built else None
        #: Scopes compiled, by their text: a long-lived process lays the same few files
        #: over its view at every call (build.parse_few), and compiling a glob's scope
        #: takes about 50 microseconds each time.
        self.compiled_scopes: dict[str, scopes.Compiled] = {}

    def what(self, e: Entry) -> str:
        """Return an entry's `what`, read once per blob."""
        blob = e[1]
        got = self.whats.get(blob)
        if got is not None:
            return got
        value = e.parse_what()
        if len(self.whats) >= self.KEPT_WHATS:
            self.whats.clear()
        self.whats[blob] = value
        return value

    def compiled(self, scope: str) -> scopes.Compiled:
        """Return a scope compiled (core/scope.compile_scope), once per scope text."""
        got = self.compiled_scopes.get(scope)
        if got is None:
            if len(self.compiled_scopes) >= self.KEPT_RECORDS:
                self.compiled_scopes.clear()
            got = self.compiled_scopes[scope] = scopes.compile_scope(scope)
        return got

    def record(self, e: Entry, keep: bool = True) -> dict[str, Any]:
        """Return a copy of an entry's whole record, parsed once per path and blob (`keep`
        False: not kept when it is parsed now)."""
        key = (e[0], e[1])
        if self.built:
            mine = self.built.pop(key, None)
            if mine is not None:  # handed out once: the caller's own
                return mine
        got = self.parsed.get(key) or self.ahead.get(key)
        if got is not None:
            return _copy(got)
        # Not kept: one of thousands read at once (read_record_once).
        record = e._parse(bulk=not keep)
        if keep:
            self.keep(key[0], key[1], record)
        return record

    def keep(self, path: str, blob: str, record: dict[str, Any]) -> None:
        """Keep a copy of the record parsed from a blob at a path; only a record two
        levels deep is kept: _copy() copies it whole. Its `what` is kept too (what(): a
        memory's words are compared with others' once it is laid over a view)."""
        if all(_shallow(v) for v in record.values()):
            if len(self.parsed) >= self.KEPT_RECORDS:
                self.parsed.clear()
            self.parsed[(path, blob)] = _copy(record)
        what = record.get("what")
        if isinstance(what, str) and blob not in self.whats:
            if len(self.whats) >= self.KEPT_WHATS:
                self.whats.clear()
            self.whats[blob] = what

    def keep_ahead(self, entries: list[Entry]) -> None:
        """Parse these memories' records and keep them; one that is not a memory (its
        file changed since the view) is left to the call that shows it, to say so."""
        ahead = self.ahead
        if len(ahead) >= 2 * self.AHEAD:
            ahead.clear()
        for e in entries:
            key = (e[0], e[1])
            if key in ahead:
                continue
            try:
                record = e._parse()
            except AideError:
                continue
            if all(_shallow(v) for v in record.values()):
                ahead[key] = record


#: The values a kept record may hold (and lists and objects of them).
_ATOMS = frozenset((str, int, float, bool, type(None)))


def _shallow(v: JSON) -> bool:
    """Tell whether a record's value is an atom, or a list or object of atoms."""
    t = type(v)
    if t is list:
        return all(type(x) in _ATOMS for x in v)
    if t is dict:
        return all(type(x) in _ATOMS for x in v.values())
    return t in _ATOMS


def _copy(record: dict[str, Any]) -> dict[str, Any]:
    """Copy a kept record so that it shares nothing a caller could change with it."""
    return {k: (v[:] if type(v) is list else dict(v) if type(v) is dict else v)
            for k, v in record.items()}

#: Makes an Entry from its six fields at C speed: new_entry(Entry, (path, ...)).
new_entry = tuple.__new__


def read_again(repo: Repo, path: str, blob: str) -> bytes:
    """Read a blob's bytes from the file in the working tree when it still holds them, else
    from the object database (empty when neither has it)."""
    if repo.worktree is not None:
        try:
            with open(os.path.join(repo.worktree, path), "rb") as f:
                data = f.read()
            if listing.blob_id(data) == blob:
                return data
        except OSError:
            pass
    return repo.read_blobs([blob]).get(blob, b"")
