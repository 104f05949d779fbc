"""The files laid over a warm view (the working tree's that differ from it, read/worktree.py,
and the user's own store), as the view's columns (columns.py) see them: the places of
the paths they replace, and their memories placed after the view's, with the date, uuid
and path columns extended by numbers that order their values among the view's.
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

TYPE_CHECKING = False
if TYPE_CHECKING:

    from git_aide.app.columns import Columns, Flags, Floats
    from git_aide.read.record import Entry

#: Room after a view's columns, and after the places of the tables on disk, for those of
#: the files laid over it and of the pending documents: written in place, not copied
#: with the view's (a ms at 100,000 memories).
SPARE = 64


class ColumnEdits:
    """Hold the files laid over a view, as the columns see them: the places of the paths
    they replace, and their entries, placed after the view's, with the columns extended."""

    __slots__ = ("dropped", "entries", "blobs", "date", "uuid", "path")

    def __init__(self, dropped: Flags | None, entries: list[Entry], blobs: dict[str, int],
                 columns: tuple[Floats, Floats, Floats]) -> None:
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
    def of(cls, cols: Columns, drop: frozenset[str], entries: list[Entry]) -> ColumnEdits | None:
        """Return the files laid over `cols`'s view; None when a blob is at two places (a file
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
                # In the room after the view's (a ColumnEdits made before is not used again).
                column[n:n + len(entries)] = _between(distinct, values)
                columns.append(column)
            else:
                columns.append(np.concatenate([column[:n], np.array(_between(distinct, values))]))
        mask = None
        if dropped:
            mask = np.zeros(n + 1, dtype=np.bool_)
            mask[dropped] = True
        return cls(mask, entries, blobs, (columns[0], columns[1], columns[2]))


def _between(distinct: list[str], values: list[str]) -> list[float]:
    """Number the values in a column: twice a value's order among the view's distinct
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
