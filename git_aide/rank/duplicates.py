"""Near duplicates: memories of one layer whose scopes overlap and whose words are
nearly the same (README, Keeping memories true), for `audit` and for `remember`'s warning."""

from __future__ import annotations

import math
from collections import Counter

from git_aide.core import scope as scopes
from git_aide.core.memory import PERSONAL_DIR
from git_aide.core.words import words as _words

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.read.record import Entry


def words(text: str) -> frozenset[str]:
    """A memory's normalised word set: lower case, identifiers whole (core/words.py says
    why), no filler words."""
    return _words(text, parts=False)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a & b| / |a | b| (0 for two empty sets)."""
    if not a or not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def overlap(a: scopes.Compiled | None, b: scopes.Compiled | None) -> bool:
    """Whether two scopes can apply to one path: one lies inside the other.

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
    """(uuid, similarity) of the memories of `layer` that say nearly what `what` says."""
    if threshold <= 0:  # 0 turns the check off, as in `audit`
        return []
    mine = words(what)
    out = []
    for e in entries:
        if e.layer != layer or _is_personal(e.path) == shared:
            continue
        sim = jaccard(mine, words(e.what))
        if sim >= threshold and overlap(compiled, e.compiled):
            out.append((e.uuid, sim))
    out.sort(key=lambda p: (-p[1], p[0]))
    return out


def _is_personal(path: str) -> bool:
    return path.startswith(PERSONAL_DIR + "/")


def pairs(entries: list[Entry], threshold: float) -> list[tuple[Entry, Entry, float]]:
    """(older, newer, similarity): for each memory that has them, the closest newer
    memory of one layer (and one sharing) with an overlapping scope and nearly the same
    words.

    A similarity join, not a comparison of every pair: word sets are bit masks over the
    vocabulary ranked rarest first; memories are taken smallest first, each probes the
    index with the first |s| - ceil(t|s|) + 1 of its words and is indexed under the
    first |s| - ceil(2t/(1+t)|s|) + 1 (two sets with Jaccard >= t share a word of
    those prefixes), and a pair is compared only when its sizes allow Jaccard >= t.
    """
    if threshold <= 0:
        return []
    sets = [words(e.what) for e in entries]
    freq: Counter[str] = Counter(w for s in sets for w in s)
    rank = {w: i for i, (w, _) in enumerate(sorted(freq.items(), key=lambda p: (p[1], p[0])))}
    order = sorted((i for i, s in enumerate(sets) if s), key=lambda i: len(sets[i]))
    masks: dict[int, int] = {}
    index: dict[tuple[str, bool, int], list[int]] = {}
    best: dict[int, tuple[float, int]] = {}
    half = 2 * threshold / (1 + threshold)
    for i in order:
        e = entries[i]
        toks = sorted(rank[w] for w in sets[i])
        size = len(toks)
        mask = 0
        for t in toks:
            mask |= 1 << t
        masks[i] = mask
        group = (e.layer, _is_personal(e.path))
        seen: set[int] = set()
        smallest = threshold * size
        for t in toks[: size - math.ceil(threshold * size) + 1]:
            for j in index.get((*group, t), ()):
                if j in seen:
                    continue
                seen.add(j)
                other = len(sets[j])
                if other < smallest:
                    continue
                inter = (mask & masks[j]).bit_count()
                sim = inter / (size + other - inter)
                if sim < threshold or not overlap(e.compiled, entries[j].compiled):
                    continue
                older, newer = _older(entries, i, j)
                if sim > best.get(older, (0.0, -1))[0]:
                    best[older] = (sim, newer)
        for t in toks[: size - math.ceil(half * size) + 1]:
            index.setdefault((*group, t), []).append(i)
    return [(entries[o], entries[n], sim) for o, (sim, n) in best.items()]


def _older(entries: list[Entry], i: int, j: int) -> tuple[int, int]:
    a, b = entries[i], entries[j]
    if (a.updated_at, a.uuid) <= (b.updated_at, b.uuid):
        return i, j
    return j, i
