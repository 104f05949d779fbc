"""Words as bits (rank/wordbits.py): the masks worked out ahead for a view hold exactly
each memory's word set (its frequent words as bits, the rest beside them), and
comparing a query's best from them finds exactly the pairs, and the same similarities,
that comparing their word sets finds."""

from __future__ import annotations

import random

import pytest
from test_duplicates import every_pair as by_sets
from test_duplicates import zipf_sets

from git_aide.rank import wordbits
from git_aide.rank.memo import RankMemo


class Memory:
    """What build() reads of an entry: its blob id."""

    def __init__(self, blob: str) -> None:
        self.blob = blob


def built(sets: list[frozenset[str]], monkeypatch: pytest.MonkeyPatch, bits: int
          ) -> tuple[list[str], RankMemo]:
    """Build the bits of these word sets (with `bits` words owning one), as the warm
    job does, step by step; their blob ids, and the memo that keeps the bits."""
    monkeypatch.setattr(wordbits, "BITS", bits)
    monkeypatch.setattr(wordbits, "PICK", 7)  # the most frequent picked a few at a time
    memo = RankMemo()
    blobs = [f"{i:040x}" for i in range(len(sets))]
    words = dict(zip(blobs, (tuple(s) for s in sets), strict=True))
    for _step in wordbits.build([Memory(b) for b in blobs], words.get,  # type: ignore[arg-type]
                                memo):
        pass
    return blobs, memo


def spelled(mask: int, rare: tuple[str, ...], owners: list[str]) -> frozenset[str]:
    """The words of a mask (`owners`: the word of each bit) and its rare words."""
    return frozenset([*(owners[b] for b in range(mask.bit_length()) if mask >> b & 1), *rare])


@pytest.mark.parametrize("bits", [1024, 40, 1])
@pytest.mark.parametrize("n,vocabulary,lo,hi", [
    (150, 230, 5, 40),      # the bench's shape: every word frequent
    (150, 5000, 5, 40),     # a large vocabulary: most words rare
    (60, 600, 100, 200),    # sets of more than 127 words
])
def test_comparing_bits_finds_what_comparing_word_sets_finds(
        monkeypatch: pytest.MonkeyPatch, bits: int, n: int, vocabulary: int, lo: int,
        hi: int) -> None:
    rng = random.Random(n * 1000 + vocabulary + bits)
    sets = zipf_sets(rng, n, vocabulary, lo, hi)
    blobs, memo = built(sets, monkeypatch, bits)
    got = wordbits.of([Memory(b) for b in blobs], None, memo)  # type: ignore[arg-type]
    assert got is not None and memo.bits is not None
    masks, rare = got
    # Each mask and its rare words spell the word set; the most frequent words own bits.
    bit = memo.bits.bit
    owners = sorted(bit, key=bit.__getitem__)
    assert [bit[w] for w in owners] == [1 << i for i in range(len(owners))]
    assert len(owners) == min(bits, len({w for s in sets for w in s}))
    for s, m, r in zip(sets, masks, rare, strict=True):
        assert spelled(m, r, owners) == s
        assert not set(r) & set(owners)
    counts = [sum(w in s for s in sets) for w in owners]
    assert counts == sorted(counts, reverse=True)
    sizes = [m.bit_count() + len(r) for m, r in zip(masks, rare, strict=True)]
    assert sizes == [len(s) for s in sets]
    for threshold in (0.25, 0.5, 1.0):
        found = wordbits.every_pair(masks, rare, sizes, threshold)
        assert {(i, j) for i, j, _ in found} == by_sets(sets, threshold)
        assert len(found) == len({(i, j) for i, j, _ in found})
        for i, j, sim in found:
            inter = len(sets[i] & sets[j])
            assert sim == inter / (len(sets[i]) + len(sets[j]) - inter)


def test_a_memory_without_bits_gets_its_own_numbered_as_the_views(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A file edited since the view (or a blob of another): its bits are made from its
    # word set with the view's numbering, and compared as the view's are.
    sets = [frozenset({"a", "b", "c"}), frozenset({"b", "c", "d"})]
    blobs, memo = built(sets, monkeypatch, 3)  # "b" and "c" (in both), then "a": "d" is rare
    edited = frozenset({"a", "c", "d", "e"})
    words = {"f" * 40: edited}
    memories = [Memory(b) for b in [*blobs, "f" * 40]]
    got = wordbits.of(memories, lambda e: words[e.blob], memo)  # type: ignore[arg-type,index]
    assert got is not None and memo.bits is not None
    masks, rare = got
    bit = memo.bits.bit
    assert set(rare[2]) == {"d", "e"} and masks[2] == bit["a"] | bit["c"]
    assert rare[1] == ("d",)
    sizes = [m.bit_count() + len(r) for m, r in zip(masks, rare, strict=True)]
    found = wordbits.every_pair(masks, rare, sizes, 0.25)
    assert {(i, j) for i, j, _ in found} == by_sets([*sets, edited], 0.25)
    # Kept: asked again, it is not made again (its words are not asked for).
    again = wordbits.of(memories, lambda e: pytest.fail("made again"), memo)  # type: ignore[arg-type]
    assert again == got
    # Past OUTSIDE such memories, they are made but no longer kept.
    memo.bits.room = 0
    other = Memory("e" * 40)
    assert wordbits.of([other], lambda e: {"d"}, memo) == ([0], [("d",)])  # type: ignore[arg-type]
    assert "e" * 40 not in memo.bits.masks


def test_no_bits_before_a_view_is_worked_out() -> None:
    assert wordbits.of([Memory("a" * 40)], lambda e: {"x"}, RankMemo()) is None  # type: ignore[arg-type]
