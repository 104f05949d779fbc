"""Supersession: which memory a newer one replaces (docs/ranking.md).

The newer says the same thing differently: a changed value, a replaced tool. Two
memories that only share a topic ("Tests run in parallel", "Tests run against a real
Postgres") are two facts, both true. Measured on the judged pairs of bench/quality
(`python3 bench/quality/supersession.py`): words alone at a third of them in common
took 20 pairs of which 15 were right (precision 0.75); asking also that the two share
their subject (one of the first three words that name something) and at least three
words took 18, the same 15 right (0.83). With a model, the cosine of the two texts
joins the words: 18 pairs, 16 right (0.89).

A newer memory never hides a fact of the older (issue 41): one that names nothing exact
in place of what the older names (`Session cookies use httpOnly and secure flags` after
`... httpOnly, secure and SameSite=Lax`) says less, and supersedes nothing (`hides`).
Every judged pair of bench/quality replaces a value with another (`2 MiB` -> `4 MiB`,
Jest -> Vitest), so the figures above are unchanged.
"""

from __future__ import annotations

import re
from functools import partial

from git_aide.core.words import STOP, exact
from git_aide.rank import candidates, wordbits
from git_aide.rank.duplicates import pairs, word_set
from git_aide.rank.duplicates import words as word_set_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from typing import Any

    from git_aide.rank.memo import RankMemo
    from git_aide.read.record import Entry

    Meaning = Callable[[Entry, Entry], float | None]

#: The Jaccard similarity of the word sets of `what` from which two memories may be
#: one fact told twice.
WORDS = 0.25
#: With a model: the least similarity of words, and the least cosine + Jaccard.
MEANING_WORDS = 0.15
MEANING = 1.0
#: Words two memories must share at least: two words are a topic, not a fact.
SHARED = 3
#: How many of a text's first naming words make its subject.
SUBJECT = 3

_NAMES = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def subject(text: str) -> frozenset[str]:
    """Return the first few words of a text that name something (its subject, most often)."""
    out: list[str] = []
    for w in _NAMES.findall(text.lower()):
        w = w.strip("._")
        if len(w) > 1 and w not in STOP:
            out.append(w)
            if len(out) == SUBJECT:
                break
    return frozenset(out)


def subject_of(e: Entry, memo: RankMemo) -> frozenset[str]:
    """Return subject(e.what), once per blob while `memo` keeps it."""
    return memo.of_what(memo.subjects, e, subject, _subject_ahead)


def _subject_ahead(worked: tuple[Any, ...]) -> frozenset[str]:
    return frozenset(worked[2:worked[0] + 2])


def exact_of(e: Entry, memo: RankMemo) -> frozenset[str]:
    """Return the exact words of e.what (core/words.exact: its names, numbers, flags and
    identifiers), once per blob while `memo` keeps them."""
    return memo.of_what(memo.exacts, e, exact, _exact_ahead)


def _exact_ahead(worked: tuple[Any, ...]) -> frozenset[str]:
    start = worked[0] + 2
    return frozenset(worked[start:start + worked[1]])


def warm(entries: Sequence[Entry], memo: RankMemo) -> None:
    """Work out ahead what comparing these memories needs (their word sets and subjects,
    RankMemo.ahead): a long-lived process does it for a whole view between its calls
    (read/later.py), and a search of a word not asked before then compares the best
    of its matches without reading and splitting their texts."""
    for e in entries:
        if not memo.known_ahead(e.blob):
            what = e.parse_what()
            memo.keep_ahead(e.blob, word_set_of(what), subject(what), exact(what))


def relate(entries: Sequence[Entry], memo: RankMemo) -> Iterator[None]:
    """Work out ahead, in steps, each memory's words as bits (rank/wordbits.py: what
    comparing a query's best pair by pair reads), then which newer memories could
    supersede each memory of a view (rank/candidates.py), so that superseded() reads it."""
    yield from wordbits.build(entries, memo.words_ahead, memo)
    yield from candidates.relate(entries, WORDS, partial(passes, memo=memo), memo)


def passes(older: Entry, newer: Entry, memo: RankMemo) -> bool:
    """Tell whether two memories alike enough in words are one fact told twice: they share
    SHARED words and their subject, and the newer hides nothing the older holds
    (hides)."""
    mine, theirs = word_set(older, memo), word_set(newer, memo)
    return len(mine & theirs) >= SHARED \
        and bool(subject_of(older, memo) & subject_of(newer, memo)) \
        and not hides(exact_of(older, memo), mine, exact_of(newer, memo), theirs)


def hides(older_exact: frozenset[str], older_words: frozenset[str],
          newer_exact: frozenset[str], newer_words: frozenset[str]) -> bool:
    """Tell whether a newer memory would hide a fact of the older one: the older names
    something exact that the newer lacks (a name, a number, a flag, an identifier:
    `SameSite=Lax`), and the newer names nothing exact in its place. A newer value
    (`2 MiB` then `4 MiB`, Jest then Vitest) replaces the older; a newer text that only
    says less (`httpOnly and secure flags`) does not."""
    return not older_exact <= newer_words and newer_exact <= older_words


def superseded(entries: list[Entry], memo: RankMemo, meaning: Meaning | None = None
               ) -> list[tuple[Entry, Entry]]:
    """List (older, newer) for each memory that a newer one of `entries` supersedes.
    `hybrid`: the cosine of two memories' texts (None when either has no vector)."""
    if meaning is None:
        known = candidates.among(entries, memo)
        if known is not None:
            return known
    found = pairs(entries, MEANING_WORDS if meaning is not None else WORDS, memo)
    out = []
    for older, newer, sim in found:
        # Alike enough first (a cosine is one product), then one fact told twice.
        cos = meaning(older, newer) if meaning is not None else None
        if (sim < WORDS) if cos is None else (cos + sim < MEANING):
            continue
        if passes(older, newer, memo):
            out.append((older, newer))
    return out

