"""A warm view's memories as columns of numbers, for a long-lived process: a search of a
word not asked before orders its best matches with numpy, not one object at a time.

Each memory of a decoded view (Snapshot.warmed) has its place, and the order of its
date, its uuid and its path among the view's, in arrays; each document of the full-text
index has its memory's place; each memory's supersession candidates (rank/candidates.py)
and words are numbered by place. column_edits.py places the files laid over the view
after its memories; column_search.py ranks a search from them.

Only a long-lived process imports this (numpy), once the work between its calls has
decoded the whole view (read/groups.warm) and made these columns (make()).
"""

from __future__ import annotations

import heapq
from array import array
from collections.abc import Iterator

import numpy as np

from git_aide.app.column_edits import SPARE, ColumnEdits
from git_aide.core.memory import LAYERS
from git_aide.rank.duplicates import is_personal, word_set

TYPE_CHECKING = False
if TYPE_CHECKING:

    from numpy.typing import NDArray

    from git_aide.app.memo import AnswerMemo
    from git_aide.cache.postings import Table, Tables
    from git_aide.rank.memo import RankMemo
    from git_aide.read.later import Later, Queue
    from git_aide.read.record import Entry
    from git_aide.read.snapshot import Snapshot

    #: Places in the view (indices), numbers, and yes-or-no by place.
    Places = NDArray[np.int64]
    Floats = NDArray[np.float64]
    Flags = NDArray[np.bool_]
    #: Columns.firsts()' answer: (older, newer, how alike, whether it supersedes).
    Firsts = tuple[Places, Places, Floats, Flags]

#: Empty columns, until make() fills them.
_NO_FLOATS = np.empty(0, dtype=np.float64)
_NO_PLACES = np.empty(0, dtype=np.int64)

#: How many values a step of make() sorts or numbers (about a ms each).
STEP = 2_000
#: The largest table whose documents a call places itself (the pending documents of a
#: hand edit: a tenth of a ms); a larger one is placed between calls.
SMALL_TABLE = 256
#: How many answers of Columns.alike are kept (a few files laid over the view).
KEPT_ALIKE = 8


class Columns:
    """Hold the memories of one decoded view, in its order (their places), as arrays."""

    def __init__(self, every: list[Entry], first: dict[str, int], later: Queue,
                 memo: RankMemo) -> None:
        #: The entries, in the view's order.
        self.every = every
        #: What ranking keeps between the process's calls: the word sets and the
        #: supersession candidates these columns read (rank/memo.py).
        self.rank = memo
        #: The long-lived process's queue of work between calls: a large table is
        #: placed there (table_places).
        self.later = later
        #: Each blob's place (the first, should one be at two), as read/groups.warm made it.
        self.first = first
        #: Each path's place.
        self.at_path: dict[str, int] = {}
        #: By place: twice the order of its date, uuid and path among the view's distinct
        #: ones (a number between two then orders a value that falls between: ColumnEdits).
        self.date: Floats = _NO_FLOATS
        self.uuid: Floats = _NO_FLOATS
        self.path: Floats = _NO_FLOATS
        #: The distinct dates, uuids and paths, sorted.
        self.dates: list[str] = []
        self.uuids: list[str] = []
        self.paths: list[str] = []
        #: Each table's documents' places (-1: a blob not in the view), by the table's
        #: path (its file's contents never change), with the table's size.
        self.docs: dict[str, tuple[int, Places]] = {}
        #: Each table's documents of blobs not in the view, by blob, by the table's path
        #: (the pending table's made anew each call): a hand edit's blob is found there
        #: without reading the blob of every such document a search meets (an index
        #: keeps the documents of every text a memory once had).
        self.strays: dict[str, dict[str, list[int]]] = {}
        #: The jobs placing a large table's documents between calls, by its path.
        self._placing: dict[str, Later] = {}
        #: The places of the documents of the tables on disk: (the tables, the places
        #: with SPARE more after them, how many).
        self._collection: tuple[list[Table], Places, int] | None = None
        #: The files laid over the view last asked about: ((the paths they replace,
        #: their paths and blobs), what they change).
        self._laid: tuple[tuple[object, ...], ColumnEdits | None] | None = None
        #: What no file laid over the view changes.
        self._plain: ColumnEdits | None = None
        #: rank/candidates.py's candidates read into arrays: (which making of them, by place
        #: whether they are known, whether it is personal, where its candidates start,
        #: their places, whether each supersedes it, how alike each is); None until made.
        self.known: tuple[int, Flags, Flags, Places, Places, Flags, Floats] | None = None
        #: By place, its layer's index in core.memory.LAYERS.
        self.layer: NDArray[np.int8] = np.empty(0, dtype=np.int8)
        #: By place, -1, but while firsts() runs (a search's head numbered there): made
        #: once, as a view of 100,000 would take longer to make than to search.
        self._slot: Places | None = None
        #: The last answer of firsts(): (which making of the candidates, the head as
        #: bytes, the answer); a search asked again after a hand edit has the same head
        #: of the view's memories.
        self._firsts: tuple[int, bytes, Firsts] | None = None
        #: Each word of the view's memories (duplicates.word_set) numbered, and by place
        #: where its memory's numbers start in `word_ids` (one more: where they end).
        self.vocab: dict[str, int] = {}
        self.word_at: Places = _NO_PLACES
        self.word_ids: NDArray[np.int32] = np.empty(0, dtype=np.int32)
        #: By word number, False, but while alike() counts (a memory's words marked).
        self._mark: Flags = np.empty(0, dtype=np.bool_)
        #: alike()'s last answers, by (blob, places).
        self._alike: dict[tuple[str, bytes], Floats] = {}

    def steps(self) -> Iterator[None]:
        """Make the columns, in steps of about a ms."""
        every = self.every
        for at in range(0, len(every), STEP):
            self.at_path.update((e.path, i) for i, e in enumerate(every[at:at + STEP], at))
            yield
        for name, get in (("date", lambda e: e.updated_at), ("uuid", lambda e: e.uuid),
                          ("path", lambda e: e.path)):
            values: list[str] = []
            for at in range(0, len(every), STEP):
                values += map(get, every[at:at + STEP])
                yield
            distinct: list[str] = []
            yield from _sorted(values, distinct)
            rank: dict[str, int] = {}
            for at in range(0, len(distinct), STEP):
                rank.update((v, 2 * i) for i, v in enumerate(distinct[at:at + STEP], at))
                yield
            # Room after the view's for the values of files laid over it (ColumnEdits.of).
            column = np.empty(len(values) + SPARE, dtype=np.float64)
            for at in range(0, len(values), STEP):
                chunk = values[at:at + STEP]
                column[at:at + len(chunk)] = [rank[v] for v in chunk]
                yield
            setattr(self, name, column)
            setattr(self, name + "s", distinct)
        self._plain = ColumnEdits(None, [], {}, (self.date, self.uuid, self.path))
        yield from self._candidates()
        yield from self._numbered()

    def _numbered(self) -> Iterator[None]:
        """Number the words of every memory, for alike()."""
        every, n, vocab = self.every, len(self.every), self.vocab
        number = vocab.setdefault
        starts = array("q", bytes(8 * (n + 1)))
        ids = array("i")
        for at in range(0, n, STEP // 4):
            for i, e in enumerate(every[at:at + STEP // 4], at):
                starts[i] = len(ids)
                ids.extend([number(w, len(vocab)) for w in word_set(e, self.rank, keep=False)])
            yield
        starts[n] = len(ids)
        self.word_at = np.frombuffer(starts, dtype=np.int64)
        self.word_ids = (np.frombuffer(ids, dtype=np.int32) if ids
                         else np.empty(0, dtype=np.int32))
        self._mark = np.zeros(len(vocab) + 1, dtype=np.bool_)

    def alike(self, words: frozenset[str], at: Places, blob: str) -> Floats:
        """Return duplicates.jaccard of `words` (not empty: those of `blob`) and the words of the
        memory at each of these places, as floats (the same: a quotient of the same
        whole numbers). Kept for a few: a file laid over the view is laid at every
        call, and often compared with the same memories again."""
        key = (blob, at.tobytes())
        got = self._alike.get(key)
        if got is None:
            got = self._alike_of(words, at)
            if len(self._alike) >= KEPT_ALIKE:
                self._alike.clear()
            self._alike[key] = got
        return got

    def _alike_of(self, words: frozenset[str], at: Places) -> Floats:
        owner, where, lengths = _runs(self.word_at, at)
        if not len(where):
            return np.zeros(len(at))
        get = self.vocab.get
        mine = [i for i in map(get, words) if i is not None]
        mark = self._mark
        mark[mine] = True
        try:
            shared = np.bincount(owner, weights=mark[self.word_ids[where]], minlength=len(at))
        finally:
            mark[mine] = False
        return shared / (len(words) + lengths - shared)

    def _candidates(self) -> Iterator[None]:
        """Read what rank/candidates.py worked out for the view (each memory's candidates,
        best first, and whether each supersedes it) into arrays of places, for among()."""
        made, known = self.rank.made, self.rank.candidates
        every, first, n = self.every, self.first, len(self.every)
        # Gathered in the standard library's arrays (a store into numpy's, one value at
        # a time, costs ten times more), made numpy's at the end without a copy.
        personal, layer, has = bytearray(n + 1), array("b", bytes(n + 1)), bytearray(n + 1)
        starts = array("q", bytes(8 * (n + 1)))
        places = array("q")
        passes = bytearray()
        sims = array("d")
        for at in range(0, n, STEP // 4):
            for i, e in enumerate(every[at:at + STEP // 4], at):
                mine = is_personal(e.path)
                personal[i] = mine
                layer[i] = LAYERS.index(e.layer) if e.layer in LAYERS else -1
                starts[i] = len(places)
                got = known.get((e.blob, mine))
                if got is None:
                    continue
                has[i] = True
                # A candidate not of the view is never among a search's best (place n).
                places.extend(first.get(b, n) for b in got[0])
                passes += got[1]
                sims += got[2]
            yield
        starts[n] = len(places)
        self.layer = np.frombuffer(layer, dtype=np.int8)
        self.known = (made, np.frombuffer(has, dtype=np.bool_),
                      np.frombuffer(personal, dtype=np.bool_),
                      np.frombuffer(starts, dtype=np.int64),
                      np.frombuffer(places, dtype=np.int64) if places
                      else np.empty(0, dtype=np.int64),
                      np.frombuffer(passes, dtype=np.bool_),
                      np.frombuffer(sims, dtype=np.float64) if sims else np.empty(0))

    def among(self, head: Places) -> tuple[Places, Places] | None:
        """Return candidates.among() of the view's memories at these places, as its pairs' olders
        and newers (indices into `head`); None when it would be None (a memory whose
        candidates are not known, or not the ones known now)."""
        got = self.firsts(head)
        if got is None:
            return None
        older, newer, _sims, passes = got
        return older[passes], newer[passes]

    def firsts(self, head: Places) -> Firsts | None:
        """Return each memory's first candidate among these places, for those that have one
        (the closest newer memory, rank/candidates.py), as arrays of indices into `head`:
        (older, newer, how alike, whether it supersedes); None when a memory's
        candidates are not known (or not the ones known now)."""
        if self.known is None:
            return None
        made, has, personal, starts, places, passes, sims = self.known
        if made != self.rank.made or not has[head].all():
            return None
        key = head.tobytes()
        kept = self._firsts
        if kept is not None and kept[0] == made and kept[1] == key:
            return kept[2]
        got = self._first_of(head)
        self._firsts = (made, key, got)
        return got

    def _first_of(self, head: Places) -> Firsts:
        assert self.known is not None  # firsts() asked
        _made, has, personal, starts, places, passes, sims = self.known
        count = len(head)
        owner, at, _lengths = _runs(starts, head)
        none = np.empty(0, dtype=np.int64)
        if not len(at):
            return none, none, np.empty(0), np.empty(0, dtype=np.bool_)
        slot = self._slot
        if slot is None or len(slot) != len(has):
            slot = self._slot = np.full(len(has), -1, dtype=np.int64)
        slot[head] = np.arange(count)
        try:
            j = slot[places[at]]
        finally:
            slot[head] = -1
        mine = personal[head]
        # The first candidate among the head of the same sharing decides (candidates.among).
        hit = np.flatnonzero((j >= 0) & (mine[j] == mine[owner]))
        if not len(hit):
            return none, none, np.empty(0), np.empty(0, dtype=np.bool_)
        who = owner[hit]
        hit = hit[np.concatenate(([True], who[1:] != who[:-1]))]
        return owner[hit], j[hit], sims[at[hit]], passes[at[hit]]

    def table_places(self, table: Table) -> Places | None:
        """Return the places of a table's documents (-1: not in the view), or None when it is
        too large to place now (placed between calls, then)."""
        got = self.docs.get(table.path)
        if got is not None and got[0] == table.n:
            return got[1]
        if table.n > SMALL_TABLE:
            from git_aide.read.later import Later

            # One job a table, asked again by each call until it is done.
            job = self._placing.get(table.path)
            if job is None or job.done:
                job = self._placing[table.path] = Later(lambda: self.place_steps(table))
            self.later.want(job)
            return None
        places = self._places_of(table, 0, table.n)
        if table.path != "<pending>":
            self.docs[table.path] = (table.n, places)
        return places

    def place_steps(self, table: Table) -> Iterator[None]:
        """Place a table's documents, in steps (none when they are placed already)."""
        got = self.docs.get(table.path)
        if got is not None and got[0] == table.n:
            return
        parts = []
        for at in range(0, table.n, STEP):
            parts.append(self._places_of(table, at, min(at + STEP, table.n)))
            yield
        self.docs[table.path] = (table.n, np.concatenate(parts) if parts
                                 else np.empty(0, dtype=np.int64))

    def _places_of(self, table: Table, start: int, end: int) -> Places:
        raw, w, get = table.blobs, table.width, self.first.get
        places = np.array([get(raw[w * d:w * d + w].hex(), -1) for d in range(start, end)],
                          dtype=np.int64)
        # Placed from the first document on: the strays of any placing before are
        # forgotten.
        strays = self.strays[table.path] = {} if start == 0 else self.strays[table.path]
        for d in (np.flatnonzero(places < 0) + start).tolist():
            strays.setdefault(raw[w * d:w * d + w].hex(), []).append(d)
        return places

    def laid_docs(self, tables: Tables, blobs: dict[str, int]) -> list[tuple[int, int]]:
        """Return (document, place) of each document of a collection placed at -1 (a blob not
        in the view) whose blob is one of `blobs` (blob -> its place)."""
        out = []
        for t, start in zip(tables.tables, tables.starts, strict=True):
            strays = self.strays.get(t.path)
            if strays:
                out += [(start + d, at) for blob, at in blobs.items()
                        for d in strays.get(blob, ())]
        return out

    def places(self, tables: Tables) -> Places | None:
        """Return the places of every document of a collection, or None (a table not placed).
        Those of the tables on disk are kept, with room after them for those of the
        pending documents (a hand edit's, new at each call)."""
        disk = [t for t in tables.tables if t.path != "<pending>"]
        kept = self._collection
        if kept is None or len(kept[0]) != len(disk) \
                or any(a is not b for a, b in zip(kept[0], disk, strict=True)):
            # The places of tables gone (merged into another) are let go.
            now = {t.path for t in disk}
            for path in [p for p in self.docs if p not in now]:
                del self.docs[path]
                self.strays.pop(path, None)
            for path in [p for p in self._placing if p not in now]:
                del self._placing[path]
            placed = [self.table_places(t) for t in disk]
            parts = [p for p in placed if p is not None]
            if len(parts) < len(placed):
                return None
            count = sum(len(p) for p in parts)
            room = np.empty(count + SPARE, dtype=np.int64)
            if parts:
                np.concatenate(parts, out=room[:count])
            kept = self._collection = (disk, room, count)
        room, count = kept[1], kept[2]
        pending = [self.table_places(t) for t in tables.tables[len(disk):]]
        more = [p for p in pending if p is not None]
        if len(more) < len(pending):
            return None
        extra = sum(len(p) for p in more)
        if not extra:
            return room[:count]
        if extra > SPARE:
            return np.concatenate([room[:count], *more])
        np.concatenate(more, out=room[count:count + extra])
        return room[:count + extra]

    def laid(self, snap: Snapshot) -> ColumnEdits | None:
        """Return what the files laid over the view change (kept while they stay the same: each
        call's snapshot lays them anew); None when the columns cannot say it (the same
        blob at two places)."""
        drop, entries = snap.laid()
        if not drop and not entries:
            return self._plain
        key = (drop, [(e.path, e.blob) for e in entries])
        kept = self._laid
        if kept is not None and kept[0] == key:
            return kept[1]
        made = ColumnEdits.of(self, drop, entries)
        self._laid = (key, made)
        return made


def _runs(starts: Places, at: Places) -> tuple[Places, Places, Places]:
    """Return the runs of a column of runs (run i is values[starts[i]:starts[i + 1]]) of these
    places, one after another: (for each value, the index into `at` of its run; its
    index in the values; each run's length)."""
    begin = starts[at]
    lengths = starts[at + 1] - begin
    total = int(lengths.sum())
    owner = np.repeat(np.arange(len(at)), lengths)
    # A run's start in the values, less where it starts among those taken, plus the
    # index among those taken.
    where = np.repeat(begin - (np.cumsum(lengths) - lengths), lengths) + np.arange(total)
    return owner, where, lengths


def _sorted(values: list[str], out: list[str]) -> Iterator[None]:
    """Fill `out` with the distinct values, sorted: a slice sorted a step, then merged."""
    runs = []
    for at in range(0, len(values), STEP):
        runs.append(sorted(set(values[at:at + STEP])))
        yield
    last = None
    for i, v in enumerate(heapq.merge(*runs)):
        if v != last:
            out.append(v)
            last = v
        if i % STEP == STEP - 1:
            yield


def make(every: list[Entry], first: dict[str, int], later: Queue, memo: AnswerMemo
         ) -> Iterator[None]:
    """Make the columns of a decoded view's entries and each blob's place among them
    (Snapshot.warmed), in steps (`later`, read/later.py), and keep them in `memo`
    (the last view's only): column_search.search_columns() then uses them for that view."""
    if memo.columns is not None and memo.columns.every is every:
        return
    cols = Columns(every, first, later, memo.rank)
    yield from cols.steps()
    memo.columns = cols


def place(every: list[Entry], tables: Tables, memo: AnswerMemo) -> Iterator[None]:
    """Place the documents of the large tables of a collection (Columns.table_places),
    in steps, for the columns of these entries (those `memo` keeps)."""
    cols = memo.columns
    if cols is None or cols.every is not every:
        return
    for t in tables.tables:
        if t.n > SMALL_TABLE and cols.docs.get(t.path, (-1,))[0] != t.n:
            yield from cols.place_steps(t)
