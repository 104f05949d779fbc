"""A warm view's memories as columns of numbers, for a long-lived process: a search of a
word not asked before orders its best matches with numpy, not one object at a time.

search.search_in names a search's best matches by blob id, looks up the entry of each,
makes a Hit of each (150 for the MCP server's 50) and orders them by score, date, uuid
and path: 1.2 ms of a 1.8 ms answer at 10,000 memories, most of it spent reading
objects spread over the heap. Here each memory of a decoded view (Snapshot.warmed) has
its place, and the order of its date, its uuid and its path among the view's, in
arrays; each document of the full-text index has its memory's place. A search then
cuts, lifts and sorts arrays, and reads entries only for the supersession check and
makes hits only for the matches it returns: the same matches in the same order with the
same scores (search.order's operations on the same floats). tests/app/test_columns.py
holds the two ways to the same answers.

Only a long-lived process imports this (numpy), once the work between its calls has
decoded the whole view (read/groups.warm) and made these columns (make()).
"""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterator

import numpy as np

from git_aide.app import search as sr
from git_aide.core.memory import LAYERS
from git_aide.rank import supersede
from git_aide.rank.duplicates import age, is_personal, jaccard, older_newer, overlap, word_set
from git_aide.rank.recall import Hit, supersession_window

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from git_aide.app.memo import AnswerMemo
    from git_aide.cache.index import FullText
    from git_aide.cache.postings import Table, Tables
    from git_aide.rank.memo import RankMemo
    from git_aide.read.later import Queue
    from git_aide.read.record import Entry
    from git_aide.read.snapshot import Snapshot

#: How many values a step of make() sorts or numbers (about a ms each).
STEP = 2_000
#: Room after a view's columns, and after the places of the tables on disk, for those of
#: the files laid over it and of the pending documents: written in place, not copied
#: with the view's (a ms at 100,000 memories).
SPARE = 64
#: The largest table whose documents a call places itself (the pending documents of a
#: hand edit: a tenth of a ms); a larger one is placed between calls.
SMALL_TABLE = 256
#: How many answers of Columns.alike are kept (a few files laid over the view).
KEPT_ALIKE = 8


class Columns:
    """The memories of one decoded view, in its order (their places), as arrays."""

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
        #: ones (a number between two then orders a value that falls between: Laid).
        self.date: Any = None
        self.uuid: Any = None
        self.path: Any = None
        #: The distinct dates, uuids and paths, sorted.
        self.dates: list[str] = []
        self.uuids: list[str] = []
        self.paths: list[str] = []
        #: Each table's documents' places (-1: a blob not in the view), by the table's
        #: path (its file's contents never change), with the table's size.
        self.docs: dict[str, tuple[int, Any]] = {}
        #: Each table's documents of blobs not in the view, by blob, by the table's path
        #: (the pending table's made anew each call): a hand edit's blob is found there
        #: without reading the blob of every such document a search meets (an index
        #: keeps the documents of every text a memory once had).
        self.strays: dict[str, dict[str, list[int]]] = {}
        #: The jobs placing a large table's documents between calls, by its path.
        self._placing: dict[str, Any] = {}
        #: The places of the documents of the tables on disk: (the tables, the places
        #: with SPARE more after them, how many).
        self._collection: tuple[list[Table], Any, int] | None = None
        #: The files laid over the view last asked about: ((the paths they replace,
        #: their paths and blobs), what they change).
        self._laid: tuple[Any, Laid | None] | None = None
        #: What no file laid over the view changes.
        self._plain: Laid | None = None
        #: rank/related.py's candidates read into arrays: (which making of them, by place
        #: whether they are known, whether it is personal, where its candidates start,
        #: their places, whether each supersedes it, how alike each is); None until made.
        self.known: tuple[int, Any, Any, Any, Any, Any, Any] | None = None
        #: By place, its layer's index in core.memory.LAYERS.
        self.layer: Any = None
        #: By place, -1, but while firsts() runs (a search's head numbered there): made
        #: once, as a view of 100,000 would take longer to make than to search.
        self._slot: Any = None
        #: The last answer of firsts(): (which making of the candidates, the head as
        #: bytes, the answer); a search asked again after a hand edit has the same head
        #: of the view's memories.
        self._firsts: tuple[int, bytes, Any] | None = None
        #: Each word of the view's memories (duplicates.word_set) numbered, and by place
        #: where its memory's numbers start in `word_ids` (one more: where they end).
        self.vocab: dict[str, int] = {}
        self.word_at: Any = None
        self.word_ids: Any = None
        #: By word number, False, but while alike() counts (a memory's words marked).
        self._mark: Any = None
        #: alike()'s last answers, by (blob, places).
        self._alike: dict[tuple[str, bytes], Any] = {}

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
            # Room after the view's for the values of files laid over it (Laid.of).
            column = np.empty(len(values) + SPARE, dtype=np.float64)
            for at in range(0, len(values), STEP):
                chunk = values[at:at + STEP]
                column[at:at + len(chunk)] = [rank[v] for v in chunk]
                yield
            setattr(self, name, column)
            setattr(self, name + "s", distinct)
        self._plain = Laid(None, [], {}, (self.date, self.uuid, self.path))
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

    def alike(self, words: frozenset[str], at: Any, blob: str) -> Any:
        """duplicates.jaccard of `words` (not empty: those of `blob`) and the words of the
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

    def _alike_of(self, words: frozenset[str], at: Any) -> Any:
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
        """Read what rank/related.py worked out for the view (each memory's candidates,
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

    def among(self, head: Any) -> tuple[Any, Any] | None:
        """related.among() of the view's memories at these places, as its pairs' olders
        and newers (indices into `head`); None when it would be None (a memory whose
        candidates are not known, or not the ones known now)."""
        got = self.firsts(head)
        if got is None:
            return None
        older, newer, _sims, passes = got
        return older[passes], newer[passes]

    def firsts(self, head: Any) -> tuple[Any, Any, Any, Any] | None:
        """For each memory at these places that has one, its first candidate among them
        (the closest newer memory, rank/related.py), as arrays of indices into `head`:
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
            return kept[2]  # type: ignore[no-any-return]
        got = self._first_of(head)
        self._firsts = (made, key, got)
        return got

    def _first_of(self, head: Any) -> tuple[Any, Any, Any, Any]:
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
        # The first candidate among the head of the same sharing decides (related.among).
        hit = np.flatnonzero((j >= 0) & (mine[j] == mine[owner]))
        if not len(hit):
            return none, none, np.empty(0), np.empty(0, dtype=np.bool_)
        who = owner[hit]
        hit = hit[np.concatenate(([True], who[1:] != who[:-1]))]
        return owner[hit], j[hit], sims[at[hit]], passes[at[hit]]

    def table_places(self, table: Table) -> Any:
        """The places of a table's documents (-1: not in the view), or None when it is
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

    def _places_of(self, table: Table, start: int, end: int) -> Any:
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
        """(document, place) of each document of a collection placed at -1 (a blob not
        in the view) whose blob is one of `blobs` (blob -> its place)."""
        out = []
        for t, start in zip(tables.tables, tables.starts, strict=True):
            strays = self.strays.get(t.path)
            if strays:
                out += [(start + d, at) for blob, at in blobs.items()
                        for d in strays.get(blob, ())]
        return out

    def places(self, tables: Tables) -> Any:
        """The places of every document of a collection, or None (a table not placed).
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
            parts = [self.table_places(t) for t in disk]
            if any(p is None for p in parts):
                return None
            count = sum(len(p) for p in parts)
            room = np.empty(count + SPARE, dtype=np.int64)
            if parts:
                np.concatenate(parts, out=room[:count])
            kept = self._collection = (disk, room, count)
        room, count = kept[1], kept[2]
        more = [self.table_places(t) for t in tables.tables[len(disk):]]
        extra = sum(len(p) for p in more)
        if not extra:
            return room[:count]
        if extra > SPARE:
            return np.concatenate([room[:count], *more])
        np.concatenate(more, out=room[count:count + extra])
        return room[:count + extra]

    def laid(self, snap: Snapshot) -> Laid | None:
        """What the files laid over the view change (kept while they stay the same: each
        call's snapshot lays them anew); None when the columns cannot say it (the same
        blob at two places)."""
        drop, entries = snap.laid()
        if not drop and not entries:
            return self._plain
        key = (drop, [(e.path, e.blob) for e in entries])
        kept = self._laid
        if kept is not None and kept[0] == key:
            return kept[1]
        made = Laid.of(self, drop, entries)
        self._laid = (key, made)
        return made


class Laid:
    """The files laid over a view, as the columns see them: the places of the paths they
    replace, and their entries, placed after the view's, with the columns extended."""

    __slots__ = ("dropped", "entries", "blobs", "date", "uuid", "path")

    def __init__(self, dropped: Any, entries: list[Entry], blobs: dict[str, int],
                 columns: tuple[Any, Any, Any]) -> None:
        #: By place, whether the working tree replaced or removed the view's memory there
        #: (one more, false, for the place -1); None when it did neither.
        self.dropped = dropped
        #: The memories of the files laid over the view, placed after it.
        self.entries = entries
        #: Their places by blob.
        self.blobs = blobs
        #: Columns.date, uuid and path with their values after the view's.
        self.date, self.uuid, self.path = columns

    @classmethod
    def of(cls, cols: Columns, drop: frozenset[str], entries: list[Entry]) -> Laid | None:
        """The files laid over `cols`'s view; None when a blob is at two places (a file
        and its copy: the slow way tells them apart by path)."""
        dropped = sorted(cols.at_path[p] for p in drop if p in cols.at_path)
        gone = set(dropped)
        n = len(cols.every)
        blobs: dict[str, int] = {}
        for k, e in enumerate(entries):
            at = cols.first.get(e.blob)
            if e.blob in blobs or (at is not None and at not in gone):
                return None
            blobs[e.blob] = n + k
        columns = []
        for column, distinct, get in ((cols.date, cols.dates, lambda e: e.updated_at),
                                      (cols.uuid, cols.uuids, lambda e: e.uuid),
                                      (cols.path, cols.paths, lambda e: e.path)):
            values = [get(e) for e in entries]
            if len(entries) <= SPARE:
                # In the room after the view's (a Laid made before is not used again).
                column[n:n + len(entries)] = _between(distinct, values)
                columns.append(column)
            else:
                columns.append(np.concatenate([column[:n], np.array(_between(distinct, values))]))
        mask = None
        if dropped:
            mask = np.zeros(n + 1, dtype=np.bool_)
            mask[dropped] = True
        return cls(mask, entries, blobs, (columns[0], columns[1], columns[2]))


def _runs(starts: Any, at: Any) -> tuple[Any, Any, Any]:
    """The runs of a column of runs (run i is values[starts[i]:starts[i + 1]]) of these
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


def _between(distinct: list[str], values: list[str]) -> list[float]:
    """The numbers of values in a column: twice a value's order among the view's distinct
    values when it is one of them; else a number strictly between those of the two it
    falls between, the values that fall between the same two spread in their order."""
    out: list[float] = []
    gaps: dict[int, list[str]] = {}
    for v in values:
        i = bisect_left(distinct, v)
        if i < len(distinct) and distinct[i] == v:
            out.append(2.0 * i)
        else:
            gaps.setdefault(i, []).append(v)
            out.append(-1.0)  # set below
    spread: dict[str, float] = {}
    for i, among in gaps.items():
        ordered = sorted(set(among))
        for k, v in enumerate(ordered):
            # Between 2(i - 1) and 2i: the view's values just below and above.
            spread[v] = 2.0 * i - 2.0 + 2.0 * (k + 1) / (len(ordered) + 1)
    return [spread[v] if r < 0 else r for r, v in zip(out, values, strict=True)]


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
    (the last view's only): search() then uses them for that view."""
    if memo.columns is not None and memo.columns.every is every:
        return
    cols = Columns(every, first, later, memo.rank)
    yield from cols.steps()
    memo.columns = cols


class _At:
    """The entries at a search's places, by index, each read when asked (_with_laid
    reads few of the window's)."""

    __slots__ = ("entry", "at")

    def __init__(self, entry: Callable[[int], Entry], at: list[int]) -> None:
        self.entry = entry
        self.at = at

    def __getitem__(self, i: int) -> Entry:
        return self.entry(self.at[i])


def _with_laid(cols: Columns, head: Any, entries: Any) -> Any:
    """The olders of supersede.superseded(entries) (indices into `head`, the places of
    `entries`) when some are files laid over the view: the view's memories' closest
    newer one among them read from the columns (Columns.firsts), each laid memory
    compared with those of its layer and sharing as duplicates.pairs compares them, and
    the closer kept (the more alike, then the newer); None when that cannot tell (a
    memory's candidates not known, or two as close)."""
    n = len(cols.every)
    view = np.flatnonzero(head < n)
    got = cols.firsts(head[view])
    if got is None:
        return None
    # older -> (how alike, the newer, whether it supersedes); the newer's age (which
    # decides between two as alike) is read only then.
    best: dict[int, tuple[float, int, bool]] = dict(zip(
        view[got[0]].tolist(),
        zip(got[2].tolist(), view[got[1]].tolist(), got[3].tolist(), strict=True),
        strict=True))
    layers = cols.layer[np.minimum(head, n)]
    known = cols.known
    assert known is not None  # firsts() answered
    personal = known[2][np.minimum(head, n)]
    laid_at = np.flatnonzero(head >= n).tolist()
    for lay in laid_at:
        mine = entries[lay]
        words = word_set(mine, cols.rank)
        if not words:
            continue
        if mine.layer not in LAYERS:
            return None
        own = is_personal(mine.path)
        # Those of its layer and sharing: the view's from the columns, the laid ones'
        # from their entries.
        group = np.flatnonzero((layers == LAYERS.index(mine.layer)) & (personal == own)
                               & (head < n))
        sims = cols.alike(words, head[group], mine.blob)
        near = sims >= supersede.WORDS
        alike = list(zip(group[near].tolist(), sims[near].tolist(), strict=True))
        alike += [(y, jaccard(words, word_set(entries[y], cols.rank))) for y in laid_at if y != lay
                  and entries[y].layer == mine.layer and is_personal(entries[y].path) == own]
        for y, sim in alike:
            if sim < supersede.WORDS or not overlap(mine.compiled, entries[y].compiled):
                continue
            older, newer = older_newer(entries, lay, y)
            kept = best.get(older)
            if kept is not None and kept[0] == sim:
                # As alike: the newer newer is kept (duplicates.pairs' order).
                was, now = age(entries[kept[1]]), age(entries[newer])
                if kept[1] != newer and was == now:
                    return None  # two as close: which is kept is the slow way's to say
                if now <= was:
                    continue
            elif kept is not None and kept[0] > sim:
                continue
            best[older] = (sim, newer,
                           supersede.passes(entries[older], entries[newer], cols.rank))
    return np.array([o for o, (_s, _n, ok) in best.items() if ok], dtype=np.int64)


def place(every: list[Entry], tables: Tables, memo: AnswerMemo) -> Iterator[None]:
    """Place the documents of the large tables of a collection (Columns.table_places),
    in steps, for the columns of these entries (those `memo` keeps)."""
    cols = memo.columns
    if cols is None or cols.every is not every:
        return
    for t in tables.tables:
        if t.n > SMALL_TABLE and cols.docs.get(t.path, (-1,))[0] != t.n:
            yield from cols.place_steps(t)


def search(ft: FullText, snap: Snapshot, query: str, limit: int, memo: AnswerMemo
           ) -> list[Hit] | None:
    """search.search_in() from the columns `memo` keeps; None when they cannot answer
    (not made for this view, no match, or a case the slow way decides: a blob at two
    places)."""
    warmed = snap.warmed()
    cols = memo.columns
    if warmed is None or cols is None or cols.every is not warmed[0]:
        return None
    try:
        got = ft.scored(query)
    except Exception:  # noqa: BLE001 -- a damaged table: the slow way rebuilds the index
        return None
    if got is None:
        return None
    tables, scored = got
    everywhere = cols.places(tables)
    laid = cols.laid(snap)
    if everywhere is None or laid is None:
        return None
    from git_aide.cache.arrays import cut

    laid_docs = cols.laid_docs(tables, laid.blobs) if laid.blobs else []
    n = len(scored.docs)
    want = max(limit * 3, 60)
    while True:
        order = cut(scored, want)
        docs = scored.docs[order]
        places = everywhere[docs]
        gone: Any = ()
        if laid.dropped is not None:
            # The documents of paths the working tree replaced (not those of no place).
            gone = np.flatnonzero(laid.dropped[places] & (places >= 0))
            places[gone] = -1
        if laid.blobs:
            # A laid file's blob is a document of no place, or one of a path replaced.
            for doc, at in laid_docs:
                places[docs == doc] = at
            if len(gone):
                for i, blob in zip(gone.tolist(), tables.blobs_of(docs[gone].tolist()),
                                   strict=True):
                    places[i] = laid.blobs.get(blob, -1)
        kept = places >= 0
        if int(np.count_nonzero(kept)) >= limit or n <= want:
            break
        want *= 4
    places = places[kept]
    if not len(places):
        return None  # no word matched: the slow way looks for fragments
    # (np.unique would import numpy.ma: 0.1 s, in a call.)
    ascending = np.sort(places)
    if (ascending[1:] == ascending[:-1]).any():
        return None  # a blob named twice in the collection
    values = scored.values[order][kept]
    # search.order: the newer of the matches lifted, then best first by score, uuid and
    # path (search_in sorts by path before order() sorts by score and uuid).
    stamps = laid.date[places]
    dates = np.sort(stamps)
    dates = dates[np.concatenate(([True], dates[1:] != dates[:-1]))]
    lift = 1.0 + sr.RECENCY_WEIGHT * (np.searchsorted(dates, stamps) / max(len(dates) - 1, 1))
    values = values * lift
    ranked = np.lexsort((laid.path[places], laid.uuid[places], -values))
    at = places[ranked].tolist()
    scores = values[ranked].tolist()
    every, n_view, others = cols.every, len(cols.every), laid.entries

    def entry(p: int) -> Entry:  # the view's memory at a place, or a laid one after them
        return every[p] if p < n_view else others[p - n_view]

    window = supersession_window(limit)
    head = places[ranked][:window]
    ahead: Any = None
    if not laid.entries or int(head.max()) < n_view:
        found = cols.among(head)
        if found is not None:
            ahead = found[0]
    else:
        ahead = _with_laid(cols, head, _At(entry, at))
    if ahead is not None:
        # The superseded are those whose uuid an older of a pair has.
        uuids = laid.uuid[head]
        is_old = (uuids[:, None] == uuids[ahead][None, :]).any(axis=1)
        old_at = np.flatnonzero(is_old).tolist()
    else:
        entries = [entry(p) for p in at[:window]]
        old = {o.uuid for o, _n in supersede.superseded(entries, cols.rank)}
        old_at = [i for i, e in enumerate(entries) if e.uuid in old]
    if old_at:
        behind = old_at
        gone = set(old_at)
        current = [i for i in range(len(head)) if i not in gone]
        current += range(len(head), len(at))
        least, top = scores[current[-1]] if current else 0.0, scores[behind[0]]
        if current and top >= least > 0:
            scale = 0.99 * least / top
            for i in behind:
                scores[i] *= scale
        chosen = (current + behind)[:limit]
    else:
        chosen = list(range(min(limit, len(at))))
    out = []
    for i in chosen:
        e = entry(at[i])
        out.append(Hit(e, e.scope, score=scores[i]))
    return out
