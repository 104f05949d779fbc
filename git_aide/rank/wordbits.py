"""Each memory's words as the bits of one integer, worked out ahead for a whole view,
so that comparing a search's best matches pair by pair (duplicates.pairs) makes no
word set and no mask: an AND and a bit count per pair, at C speed.

A view of 100,000 memories has too many pairs alike in words to keep them all
(rank/related.py), so each search compares its best 150 pair by pair. Making their
word sets (from the tuples worked out ahead) and then a bit mask of each took 0.7 of
the 1.5 ms that comparing them took; the masks themselves are a blob's, and a blob's
words never change.

The view's most frequent words each own a bit (BITS of them, most frequent first, so
that most masks are short integers); a memory's other words are few, and kept beside
its mask, to be counted one by one.
"""

from __future__ import annotations

import time
from collections import Counter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    from git_aide.read.record import Entry

#: How many of a view's words own a bit: the most frequent (a mask is then at most
#: 128 bytes); a memory's rarer words are kept as a tuple beside it.
BITS = 1024
#: How long a step of build() lasts, about, in seconds.
STEP = 0.001


class Bits:
    """The words of one view's memories as bits."""

    __slots__ = ("words", "masks", "rare")

    def __init__(self, words: list[str]) -> None:
        #: The words that own a bit, the lowest bit's first.
        self.words = words
        #: Each memory's mask, by blob id.
        self.masks: dict[str, int] = {}
        #: The words of a memory that own no bit, by blob id (only those that have some).
        self.rare: dict[str, tuple[str, ...]] = {}


#: The last view's bits (one: a blob of another view has none, and is compared as before).
_LAST: list[Bits] = []


def build(entries: Sequence[Entry], words_of: Callable[[str], Sequence[str] | None]
          ) -> Iterator[None]:
    """Work out the bits of every memory of a view, in steps of about STEP seconds
    (read/later.py); `words_of(blob)`: its word set's words, or None when they were not
    worked out ahead (it then has no mask). Kept all at once at the end."""
    began = time.perf_counter()
    counts: Counter[str] = Counter()
    for e in entries:
        counts.update(words_of(e.blob) or ())
        if time.perf_counter() - began > STEP:
            yield
            began = time.perf_counter()
    frequent = sorted(counts, key=lambda w: (-counts[w], w))[:BITS]
    bit = {w: 1 << i for i, w in enumerate(frequent)}
    made = Bits(frequent)
    masks, rare, get = made.masks, made.rare, bit.get
    for e in entries:
        words = words_of(e.blob)
        if words is None:
            continue
        mask = 0
        others = []
        for w in words:
            b = get(w)
            if b is None:
                others.append(w)
            else:
                mask |= b
        masks[e.blob] = mask
        if others:
            rare[e.blob] = tuple(others)
        if time.perf_counter() - began > STEP:
            yield
            began = time.perf_counter()
    _LAST[:] = [made]


def of(blobs: Sequence[str]) -> tuple[list[int], list[tuple[str, ...]]] | None:
    """The masks and rare words of these memories, or None when one has none."""
    if not _LAST:
        return None
    kept = _LAST[0]
    masks, rare = kept.masks, kept.rare
    try:
        found = [masks[b] for b in blobs]
    except KeyError:
        return None
    return found, [rare.get(b, ()) for b in blobs] if rare else [()] * len(blobs)


def every_pair(masks: Sequence[int], rare: Sequence[tuple[str, ...]], sizes: Sequence[int],
               threshold: float) -> list[tuple[int, int, float]]:
    """(i, j, Jaccard similarity) of every pair of memories (i > j) at `threshold` or
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
