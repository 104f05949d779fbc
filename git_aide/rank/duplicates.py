"""Near duplicates: memories of one layer whose scopes overlap and whose words are
nearly the same (docs/audit.md), for `audit` and for `remember`'s warning."""

from __future__ import annotations

import re
from functools import partial

from git_aide.core import scope as scopes
from git_aide.core.memory import PERSONAL_DIR
from git_aide.core.words import words as _words
from git_aide.rank import wordbits

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from typing import Any, Protocol

    from git_aide.rank.memo import RankMemo
    from git_aide.read.record import Entry

    class Indexed(Protocol):
        """Give entries by index: a list, or entries read only when asked."""

        def __getitem__(self, i: int, /) -> Entry: ...


def words(text: str) -> frozenset[str]:
    """Return a memory's normalised word set: lower case, identifiers whole (core/words.py says
    why), no filler words."""
    return _words(text, parts=False)


def word_set(e: Entry, memo: RankMemo, keep: bool = True) -> frozenset[str]:
    """Return words(e.read_what()), once per blob while `memo` keeps it (RankMemo.of_what says
    what `keep` is)."""
    return memo.of_what(memo.word_sets, e, words, _words_ahead, keep)


def _words_ahead(worked: tuple[Any, ...]) -> frozenset[str]:
    return frozenset(worked[worked[0] + 2:])


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """Return |a & b| / |a | b| (0 for two empty sets)."""
    if not a or not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def overlap(a: scopes.Compiled | None, b: scopes.Compiled | None) -> bool:
    """Tell whether two scopes can apply to one path: one lies inside the other.

    Project-wide covers everything; two scoped memories overlap when a literal base of
    one is the other's or lies inside it. Judged from the scopes alone, so that
    `remember` can ask it without listing the repository.
    """
    if a is None or b is None:
        return True
    for x in a.bases:
        for y in b.bases:
            if not x or not y or x == y or x.startswith(y + "/") or y.startswith(x + "/"):
                return True
    return False


def near_duplicates(entries: list[Entry], what: str, layer: str, compiled: scopes.Compiled | None,
                    shared: bool, threshold: float) -> list[tuple[str, float]]:
    """List (uuid, similarity) of the memories of `layer` that say nearly what `what` says."""
    if threshold <= 0:  # 0 turns the check off, as in `audit`
        return []
    mine = words(what)
    out = []
    for e in entries:
        if e.layer != layer or is_personal(e.path) == shared:
            continue
        sim = jaccard(mine, words(e.read_what()))
        if sim >= threshold and overlap(compiled, e.compiled):
            out.append((e.uuid, sim))
    out.sort(key=lambda p: (-p[1], p[0]))
    return out


def is_personal(path: str) -> bool:
    """Tell whether a memory's path is a personal preference's, or one of the user's own store
    (an absolute path: core/memory.in_user_store); compared only with those."""
    return path.startswith((PERSONAL_DIR + "/", "/"))


def groups(entries: Sequence[Entry], sets: Sequence[frozenset[str] | bool]) -> list[list[int]]:
    """Group the indices of the memories compared with one another: of one layer and one
    sharing, with words (sets: their word sets, or whether each has words)."""
    out: dict[tuple[str, bool], list[int]] = {}
    for i, e in enumerate(entries):
        if sets[i]:
            out.setdefault((e.layer, is_personal(e.path)), []).append(i)
    return list(out.values())


def pairs(entries: list[Entry], threshold: float, memo: RankMemo
          ) -> list[tuple[Entry, Entry, float]]:
    """List (older, newer, similarity): for each memory that has them, the closest newer
    memory of one layer (and one sharing) with an overlapping scope and nearly the same
    words (of two as close, the newest), older ones in the order of `entries`.

    A similarity join that prunes on any vocabulary: each group (layer, sharing) is
    joined on its own, and a memory is compared only with those that share enough of
    its words for the similarity to reach `threshold` (_join says how that is counted
    for all of them at once), not with every memory that shares one word: a prefix
    filter prunes nothing when every memory holds the same few frequent words.
    """
    if threshold <= 0:
        return []
    best: dict[int, tuple[float, tuple[str, str], int]] = {}
    # Each memory's age, and each two scopes' overlap, worked out once: a search's best
    # 60 have hundreds of pairs alike, most among a few scopes.
    ages: dict[int, tuple[str, str]] = {}
    overlaps: dict[tuple[int, int], bool] = {}
    for members, joined in _groups_joined(entries, threshold, memo):
        for i, j, sim in joined:
            a, b = members[i], members[j]
            sa, sb = entries[a].compiled, entries[b].compiled
            if sa is not None and sb is not None:
                key = (id(sa), id(sb))
                fits = overlaps.get(key)
                if fits is None:
                    fits = overlaps[key] = overlap(sa, sb)
                if not fits:
                    continue
            age_a = ages.get(a)
            if age_a is None:
                age_a = ages[a] = age(entries[a])
            age_b = ages.get(b)
            if age_b is None:
                age_b = ages[b] = age(entries[b])
            older, newer, newest = (a, b, age_b) if age_a <= age_b else (b, a, age_a)
            rank = (sim, newest, newer)
            if older not in best or rank > best[older]:
                best[older] = rank
    return [(entries[o], entries[best[o][2]], best[o][0]) for o in sorted(best)]


def _groups_joined(entries: list[Entry], threshold: float, memo: RankMemo
                   ) -> Iterator[tuple[list[int], list[tuple[int, int, float]]]]:
    """Return each group's members, and its pairs at `threshold` or above (as _join gives
    them): from the memories' bits (rank/wordbits.py) once a view's are worked out and
    when no group is larger than a search compares, else from their word sets."""
    layers = groups(entries, [True] * len(entries))
    bits = wordbits.of(entries, partial(word_set, memo=memo), memo) if all(
        len(members) <= _FEW_BITS for members in layers) else None
    if bits is not None:
        masks, rare = bits
        sizes = [m.bit_count() + len(r) for m, r in zip(masks, rare, strict=True)]
        for members in ([i for i in m if sizes[i]] for m in layers):
            yield members, memo.join([entries[i].blob for i in members], threshold, partial(
                wordbits.every_pair, [masks[i] for i in members],
                [rare[i] for i in members], [sizes[i] for i in members], threshold))
        return
    sets = [word_set(e, memo) for e in entries]
    for members in groups(entries, sets):
        yield members, memo.join([entries[i].blob for i in members], threshold,
                               partial(_join, [sets[i] for i in members], threshold))


#: Up to this many memories of a group, comparing every pair from bits worked out ahead
#: costs no more than the lanes of join_rows (a search of 50 compares its best 150).
_FEW_BITS = 256


def age(e: Entry) -> tuple[str, str]:
    """Return what orders two memories in time: when each last changed, then its uuid."""
    return e.updated_at, e.uuid


#: A word held by fewer than one in this many of a group's memories is counted from its
#: list of holders; a more frequent one from its lane vector (_join).
_RARE = 128
#: Up to this many memories, comparing every pair (as bit masks) costs less than
#: counting in lanes (measured on the bench's memories: 0.9 against 1.5 ms at 100, 3.2
#: against 2.8 ms at 200).
_FEW = 128
#: A lane whose top bit is set: its count reached the bias's bound.
_HIGH = re.compile(b"[\x80-\xff]")
#: A lane of more than one byte whose top bit (masked) is set.
_NONZERO = re.compile(b"[^\x00]")


def _join(sets: list[frozenset[str]], threshold: float) -> list[tuple[int, int, float]]:
    """List (i, j, Jaccard similarity) of every pair of `sets` (i > j) at `threshold` or above
    (join_rows says how they are found)."""
    return [(p, q, sim) for p, row in join_rows(sets, threshold) for q, sim in row]


def join_rows(sets: list[frozenset[str]], threshold: float
              ) -> Iterator[tuple[int, list[tuple[int, float]]]]:
    """Yield (i, [(j, Jaccard similarity)]) for each of `sets` that has pairs at `threshold` or
    above with those before it (j < i), in order: one row at a time, so that a join of
    a whole view can be made in steps (rank/candidates.py).

    Counting the words that memory i shares with every memory at once: each memory owns
    a lane (one byte, or a few) of a long integer; a frequent word's vector has a 1 in
    the lane of each memory that holds it, so the sum of the vectors of i's words holds,
    in each lane, how many words that memory shares with i. Adding to each lane the bias
    2^(top bit) - (the fewest shared words that reach `threshold` for those two sizes)
    sets the lane's top bit exactly when the pair can reach it: the lanes with that bit
    are the candidates, and only they are compared (a rare word's holders are counted
    one by one, on top). Python adds integers of thousands of digits in C, so the work
    per memory is a few additions, whatever the vocabulary."""
    n = len(sets)
    if n < 2:
        return
    sizes = [len(s) for s in sets]
    if n <= _FEW:
        found_few: dict[int, list[tuple[int, float]]] = {}
        for p, q, sim in _every_pair(sets, sizes, threshold):
            found_few.setdefault(p, []).append((q, sim))
        yield from found_few.items()
        return
    width = 1
    while 1 << (8 * width - 1) <= max(sizes):
        width += 1
    high = 1 << (8 * width - 1)
    holders: dict[str, list[int]] = {}
    for q, s in enumerate(sets):
        for w in s:
            holders.setdefault(w, []).append(q)
    vectors: dict[str, int] = {}
    rare: dict[str, list[int]] = {}
    for w, qs in holders.items():
        if len(qs) * _RARE < n:
            rare[w] = qs
            continue
        buf = bytearray(n * width)
        for q in qs:
            buf[q * width] = 1
        vectors[w] = int.from_bytes(buf, "little")
    least = _fewest_shared(sorted(set(sizes)), threshold)
    biases: dict[int, int] = {}
    tops = _tops(n, width, high) if width > 1 else 0
    for p, s in enumerate(sets):
        size = sizes[p]
        bias = biases.get(size)
        if bias is None:
            bias = biases[size] = _bias(sizes, least[size], high, width)
        total = sum((vectors[w] for w in s if w in vectors), bias)
        lanes = total.to_bytes(n * width + 1, "little")
        found: set[int] = set()
        if width == 1:
            found.update(m.start() for m in _HIGH.finditer(lanes, 0, p))
        else:
            set_tops = (total & tops).to_bytes(n * width + 1, "little")
            found.update(m.start() // width for m in _NONZERO.finditer(set_tops, 0, p * width))
        counts: dict[int, int] = {}
        for w in s:
            for q in rare.get(w, ()):
                if q >= p:
                    break
                counts[q] = counts.get(q, 0) + 1
        for q, c in counts.items():
            lane = int.from_bytes(lanes[q * width:(q + 1) * width], "little")
            if lane & ~(high - 1) == 0 and lane + c >= high and least[size].get(sizes[q]):
                found.add(q)
        row = []
        for q in found:
            inter = len(s & sets[q])
            sim = inter / (size + sizes[q] - inter)
            if sim >= threshold:
                row.append((q, sim))
        if row:
            yield p, row


def _every_pair(sets: list[frozenset[str]], sizes: list[int], threshold: float
                ) -> list[tuple[int, int, float]]:
    """Do _join for a few sets: every pair compared, each set a bit mask of the words of
    these sets, so that a pair's shared words are counted by an AND and a bit count
    at C speed (a third faster than intersecting the sets)."""
    bits: dict[str, int] = {}
    masks = []
    for s in sets:
        mask = 0
        for w in s:
            bit = bits.get(w)
            if bit is None:
                bit = bits[w] = 1 << len(bits)
            mask |= bit
        masks.append(mask)
    return wordbits.every_pair(masks, [()] * len(sets), sizes, threshold)


def _fewest_shared(sizes: list[int], threshold: float) -> dict[int, dict[int, int]]:
    """Return, for two sizes a and b, the fewest shared words whose similarity reaches
    `threshold` (computed as the join computes it, so that no pair is missed), absent
    when none does."""
    least: dict[int, dict[int, int]] = {}
    for a in sizes:
        row = least[a] = {}
        for b in sizes:
            # x / (a + b - x) grows with x: start near the root and step to the fewest.
            x = max(1, int(threshold * (a + b) / (1 + threshold)))
            while x > 1 and (x - 1) / (a + b - x + 1) >= threshold:
                x -= 1
            while x <= min(a, b) and x / (a + b - x) < threshold:
                x += 1
            if x <= min(a, b):
                row[b] = x
    return least


def _bias(sizes: list[int], least: dict[int, int], high: int, width: int) -> int:
    """Return the lanes' biases for a memory whose least shared counts are `least`: high minus
    that count, or 0 in a lane that cannot reach the threshold at all."""
    if width == 1:
        table = bytearray(256)
        for b, x in least.items():
            table[b] = high - x
        return int.from_bytes(bytes(sizes).translate(table), "little")
    return int.from_bytes(b"".join((high - least[b] if b in least else 0).to_bytes(width, "little")
                                   for b in sizes), "little")


def _tops(n: int, width: int, high: int) -> int:
    """Return the top bit of each of n lanes."""
    return int.from_bytes(high.to_bytes(width, "little") * n, "little")


def older_newer(entries: Indexed, i: int, j: int) -> tuple[int, int]:
    """Return (the older, the newer) of two memories by their indices (age())."""
    return (i, j) if age(entries[i]) <= age(entries[j]) else (j, i)
