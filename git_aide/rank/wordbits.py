"""Each memory's words as the bits of one integer, worked out ahead for a whole view,
so that comparing a search's best matches pair by pair (duplicates.pairs) makes no
word set and no mask: an AND and a bit count per pair, at C speed.

A view of 100,000 memories has too many pairs alike in words to keep them all
(rank/candidates.py), so each search compares its best 150 pair by pair. Making their
word sets (from the tuples worked out ahead) and then a bit mask of each took 0.7 of
the 1.5 ms that comparing them took; the masks themselves are a blob's, and a blob's
words never change.

The view's most frequent words each own a bit (BITS of them, most frequent first, so
that most masks are short integers); a memory's other words are few, and kept beside
its mask, to be counted one by one.
"""

from __future__ import annotations

import heapq
import time
from collections import Counter
from itertools import islice

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence

    from git_aide.rank.memo import RankMemo
    from git_aide.read.record import Entry

#: How many of a view's words own a bit: the most frequent (a mask is then at most
#: 128 bytes); a memory's rarer words are kept as a tuple beside it.
BITS = 1024
#: How many memories outside a view its bits keep, made when a search met them.
OUTSIDE = 10_000
#: How many words one step of build() looks at to pick the most frequent.
PICK = 5_000
#: How long a step of build() lasts, about, in seconds.
STEP = 0.001


class Bits:
    """Hold the words of one view's memories as bits."""

    __slots__ = ("bit", "masks", "rare", "room")

    def __init__(self, bit: dict[str, int]) -> None:
        #: The words that own a bit, and each one's bit (a power of two).
        self.bit = bit
        #: Each memory's mask, by blob id.
        self.masks: dict[str, int] = {}
        #: The words of a memory that own no bit, by blob id (only those that have some).
        self.rare: dict[str, tuple[str, ...]] = {}
        #: How many more memories outside the view may be kept (edited files, other
        #: revisions' blobs: a long-lived process meets a few on each call).
        self.room = OUTSIDE

    def made(self, words: Iterable[str]) -> tuple[int, tuple[str, ...]]:
        """Make a memory's mask and rare words from its word set's words."""
        get = self.bit.get
        mask = 0
        others = []
        for w in words:
            b = get(w)
            if b is None:
                others.append(w)
            else:
                mask |= b
        return mask, tuple(others)

    def put(self, blob: str, mask: int, rare: tuple[str, ...]) -> None:
        """Keep a memory's mask and rare words."""
        self.masks[blob] = mask
        if rare:
            self.rare[blob] = rare

    def outside(self, blob: str, words: Iterable[str]) -> tuple[int, tuple[str, ...]]:
        """Return the mask and rare words of a memory outside the view, made from its word
        set's words, and kept while there is room."""
        mask, rare = self.made(words)
        if self.room > 0:
            self.room -= 1
            self.put(blob, mask, rare)
        return mask, rare


def build(entries: Sequence[Entry], words_of: Callable[[str], Sequence[str] | None],
          memo: RankMemo) -> Iterator[None]:
    """Work out the bits of every memory of a view, in steps of about STEP seconds
    (read/later.py); `words_of(blob)`: its word set's words, or None when they were not
    worked out ahead (it then has no mask). Kept all at once at the end, in
    `memo.bits`: the last view's only (a blob of another view, or of a file edited
    since, gets its own when a search meets it, numbered as the view's; see of())."""
    began = time.perf_counter()
    counts: Counter[str] = Counter()
    for e in entries:
        counts.update(words_of(e.blob) or ())
        if time.perf_counter() - began > STEP:
            yield
            began = time.perf_counter()
    # The most frequent, picked a slice of the vocabulary at a time rather than all of it
    # sorted: a store whose identifiers are words of their own has hundreds of
    # thousands (0.3 s to sort, in one step that a call would wait for).
    def rank(w: str) -> tuple[int, str]:
        return -counts[w], w

    frequent: list[str] = []
    vocabulary = iter(counts)
    while some := list(islice(vocabulary, PICK)):
        frequent = heapq.nsmallest(BITS, [*frequent, *some], key=rank)
        yield
    began = time.perf_counter()
    bit = {w: 1 << i for i, w in enumerate(frequent)}
    made = Bits(bit)
    for e in entries:
        words = words_of(e.blob)
        if words is None:
            continue
        made.put(e.blob, *made.made(words))
        if time.perf_counter() - began > STEP:
            yield
            began = time.perf_counter()
    memo.bits = made


def of(entries: Sequence[Entry], words: Callable[[Entry], Iterable[str]], memo: RankMemo
       ) -> tuple[list[int], list[tuple[str, ...]]] | None:
    """Return the masks and rare words of these memories, or None before a view's are worked
    out. A memory without them (a file edited since, a blob of another view) gets its
    own from `words(entry)`, its word set, numbered as the view's: the others still
    need none made."""
    kept = memo.bits
    if kept is None:
        return None
    masks, rare = kept.masks, kept.rare
    found: list[int] = []
    others: list[tuple[str, ...]] = []
    for e in entries:
        blob = e.blob
        mask = masks.get(blob)
        if mask is None:
            mask, mine = kept.outside(blob, words(e))
        else:
            mine = rare.get(blob, ()) if rare else ()
        found.append(mask)
        others.append(mine)
    return found, others


def every_pair(masks: Sequence[int], rare: Sequence[tuple[str, ...]], sizes: Sequence[int],
               threshold: float) -> list[tuple[int, int, float]]:
    """List (i, j, Jaccard similarity) of every pair of memories (i > j) at `threshold` or
    above, from their masks, rare words and word counts: a pair's shared words are the
    bits of the AND of its masks, and the rare words both hold."""
    holders: dict[str, list[int]] = {}
    for q, words in enumerate(rare):
        for w in words:
            holders.setdefault(w, []).append(q)
    count = int.bit_count
    out: list[tuple[int, int, float]] = []
    for p in range(1, len(masks)):
        size = sizes[p]
        shared = list(map(count, map(masks[p].__and__, masks[:p])))
        for w in rare[p]:
            for q in holders[w]:
                if q >= p:
                    break
                shared[q] += 1
        for q, inter in enumerate(shared):
            if inter and (sim := inter / (size + sizes[q] - inter)) >= threshold:
                out.append((p, q, sim))
    return out
