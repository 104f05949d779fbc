"""The similarity join of rank/duplicates.py finds exactly the pairs that comparing every
pair finds, whatever the vocabulary (a few frequent words everywhere, or rare ones)."""

from __future__ import annotations

import random

import pytest

from git_aide.rank.duplicates import _join


def every_pair(sets: list[frozenset[str]], threshold: float) -> set[tuple[int, int]]:
    """(i, j), i > j, of the pairs whose Jaccard similarity reaches the threshold."""
    out = set()
    for i, a in enumerate(sets):
        for j in range(i):
            inter = len(a & sets[j])
            if inter / (len(a) + len(sets[j]) - inter) >= threshold:
                out.add((i, j))
    return out


def zipf_sets(rng: random.Random, n: int, vocabulary: int, lo: int, hi: int
              ) -> list[frozenset[str]]:
    """n word sets drawn from a vocabulary where a few words are in nearly every set."""
    words = [f"w{i}" for i in range(vocabulary)]
    weights = [1 / (i + 5) ** 1.2 for i in range(vocabulary)]
    out = []
    for _ in range(n):
        size = rng.randint(lo, hi)
        out.append(frozenset(rng.choices(words, weights=weights, k=size)))
    # Near copies, so that there are pairs to find at every threshold.
    for i in range(0, n, 7):
        s = set(out[i])
        s.discard(next(iter(s)))
        s.add(f"rare{i}")
        out.append(frozenset(s))
    return out


@pytest.mark.parametrize("threshold", [0.25, 0.3, 0.5, 0.8, 1.0])
@pytest.mark.parametrize("n,vocabulary,lo,hi", [
    (30, 200, 3, 30),       # few: compared pair by pair, as bit masks
    (100, 300, 10, 25),     # a search's window of 150, one layer's group: as masks too
    (60, 600, 100, 200),    # few sets of more than 127 words
    (300, 230, 5, 40),      # the bench's shape: every word frequent
    (400, 5000, 5, 40),     # a large vocabulary: most words rare
    (150, 600, 100, 200),   # sets of more than 127 words: lanes of two bytes
])
def test_join_finds_the_pairs_that_comparing_every_pair_finds(
        threshold: float, n: int, vocabulary: int, lo: int, hi: int) -> None:
    rng = random.Random(n * 1000 + vocabulary)
    sets = zipf_sets(rng, n, vocabulary, lo, hi)
    want = every_pair(sets, threshold)
    got = _join(sets, threshold)
    assert {(i, j) for i, j, _ in got} == want
    assert len(got) == len(want)
    for i, j, sim in got:
        inter = len(sets[i] & sets[j])
        assert sim == inter / (len(sets[i]) + len(sets[j]) - inter)
