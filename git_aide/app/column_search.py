"""A search ranked from a warm view's columns (columns.py), for a long-lived process:
search.search_in()'s answer, worked out on arrays.

search.search_in names a search's best matches by blob id, looks up the entry of each,
makes a Hit of each (150 for the MCP server's 50) and orders them by score, date, uuid
and path: 1.2 ms of a 1.8 ms answer at 10,000 memories, most of it spent reading
objects spread over the heap. Here a search cuts, lifts and sorts the columns' arrays,
and reads entries only for the supersession check and makes hits only for the matches
it returns: the same matches in the same order with the same scores (search.order's
operations on the same floats). tests/app/test_columns.py holds the two ways to the same
answers.

Only a long-lived process imports this (numpy), once it made the columns.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from git_aide.app import search as sr
from git_aide.core.memory import LAYERS
from git_aide.rank import supersede
from git_aide.rank.duplicates import age, is_personal, jaccard, older_newer, overlap, word_set
from git_aide.rank.recall import supersession_window
from git_aide.rank.selection import Hit

TYPE_CHECKING = False
if TYPE_CHECKING:

    from git_aide.app.columns import Columns, Places
    from git_aide.app.memo import AnswerMemo
    from git_aide.cache.index import FullText
    from git_aide.read.record import Entry
    from git_aide.read.snapshot import Snapshot


#: No places (no document of the answer was dropped).
_NO_PLACES = np.empty(0, dtype=np.int64)


def search_columns(ft: FullText, snap: Snapshot, query: str, limit: int, memo: AnswerMemo
                   ) -> list[Hit] | None:
    """Run search.search_in() from the columns `memo` keeps; None when they cannot answer
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
        gone = _NO_PLACES
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
    ahead: Places | None = None
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
        superseded = set(old_at)
        current = [i for i in range(len(head)) if i not in superseded]
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


class _At:
    """Hold the entries at a search's places, by index, each read when asked (_with_laid
    reads few of the window's)."""

    __slots__ = ("entry", "at")

    def __init__(self, entry: Callable[[int], Entry], at: list[int]) -> None:
        self.entry = entry
        self.at = at

    def __getitem__(self, i: int) -> Entry:
        return self.entry(self.at[i])


def _with_laid(cols: Columns, head: Places, entries: _At) -> Places | None:
    """Return the olders of supersede.superseded(entries) (indices into `head`, the places of
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
