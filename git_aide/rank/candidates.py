"""Supersession worked out ahead: for each memory of a view, the newer memories that
could replace it, found once for the whole view between a long-lived process's calls,
not among the best matches of every query.

supersede.superseded compares the best 150 matches of a search pair by pair: 1.3 ms of
a 4 ms answer at 10,000 memories. Which memories could replace which depends on their
contents alone (their words, scope, layer, date and whether each is personal), so it is
worked out once per memory, by blob id, for every memory of a view (relate(), in steps
of about a ms): a search then only looks up, among each match's candidates, the first
that is among the matches too. A candidate is what duplicates.pairs would compare: a
newer memory of the same layer and sharing, scopes overlapping, words at least
supersede.WORDS alike; kept best first (most alike, then newest), each with whether it
supersedes (supersede.passes). Known for every memory of a list, supersession among the
list is read from them (among()); else, or with a model's meaning to weigh, it is
compared as before. Only the last view's are kept (in the caller's RankMemo):
memories known from two views apart were never compared with each other.
"""

from __future__ import annotations

import time
from array import array

from git_aide.rank.duplicates import groups, is_personal, join_rows, overlap, word_set

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    from git_aide.rank.memo import RankMemo
    from git_aide.read.record import Entry

    #: A memory as related() knows it: its blob id, and whether it is personal.
    Key = tuple[str, bool]
    #: Its candidates' blob ids, best first, whether each supersedes it (1 or 0), and
    #: how alike in words each is (app/columns.py weighs a hand edit's against them).
    Candidates = tuple[tuple[str, ...], bytes, array[float]]

#: The similarities of no candidates (shared by every memory that has none).
_NONE: array[float] = array("d")
#: How many pairs alike in words a view may have (each costs about 100 bytes while
#: relate() works, 10 once kept): a store whose memories are much alike, beyond
#: that, compares the matches of each query instead.
MOST = 1_000_000
#: How many memories of a larger view are joined first, to tell how many pairs it has.
SAMPLE = 1_000
#: How long a step of relate() lasts, about, in seconds.
STEP = 0.001


def among(entries: Sequence[Entry], memo: RankMemo) -> list[tuple[Entry, Entry]] | None:
    """Do supersede.superseded(entries) without a model, read from the candidates worked
    out ahead: (older, newer) for each memory whose best candidate among `entries`
    supersedes it; None when some memory's are not known (or two entries share a blob:
    a memory and its copy, which the pairwise comparison tells apart by place)."""
    known = memo.candidates
    if not known:
        return None
    at: dict[str, int] = {}
    found: list[Candidates] = []
    personal: list[bool] = []
    for i, e in enumerate(entries):
        blob, mine = e.blob, is_personal(e.path)
        got = known.get((blob, mine))
        if got is None or blob in at:
            return None
        at[blob] = i
        found.append(got)
        personal.append(mine)
    out: list[tuple[Entry, Entry]] = []
    inside = at.__contains__
    for i, (blobs, passes, _sims) in enumerate(found):
        # Most candidates are not among the list: they are passed over in C.
        for blob in filter(inside, blobs):
            j = at[blob]
            if personal[j] == personal[i]:
                if passes[blobs.index(blob)]:
                    out.append((entries[i], entries[j]))
                break
    return out


def relate(entries: Sequence[Entry], threshold: float,
           passes: Callable[[Entry, Entry], bool], memo: RankMemo) -> Iterator[None]:
    """Work out the candidates of every memory of a view (`entries`), in steps of about
    STEP seconds (read/later.py): words alike from `threshold`; `passes(older, newer)`
    says whether the newer supersedes. Kept all at once at the end, or not at all when
    the view has more than MOST of them. Every pair of the view's memories is
    compared, so the candidates answer for any list of them, in this view or the next
    (a blob's contents never change); a memory without any has empty ones."""
    keys = [(e.blob, is_personal(e.path)) for e in entries]
    if all(k in memo.candidates for k in keys) or (
            memo.too_many is not None and len(entries) >= memo.too_many):
        return
    began = time.perf_counter()
    sets, ages = [], []
    for e in entries:
        sets.append(word_set(e, memo, keep=False))
        ages.append((e.updated_at, e.uuid))
        if time.perf_counter() - began > STEP:
            yield
            began = time.perf_counter()
    compared = groups(entries, sets)
    if len(entries) > SAMPLE:
        # Pairs grow with the square of the memories: those of an even sample, scaled
        # up, say whether the whole view would have more than MOST (a view of 100,000
        # memories as alike as the bench's has some 25 million), before any is made.
        every = len(entries) // SAMPLE
        sample = 0
        for members in compared:
            some = members[::every]
            sample += sum(len(row) for _p, row in join_rows([sets[i] for i in some], threshold))
            yield
        if sample * every * every > MOST:
            memo.too_many = min(len(entries), memo.too_many or len(entries))
            return
    ranked: dict[int, list[tuple[float, tuple[str, str], str, int]]] = {}
    count = 0
    for members in compared:
        for p, row in join_rows([sets[i] for i in members], threshold):
            a = members[p]
            scope = entries[a].compiled
            for q, sim in row:
                b = members[q]
                if scope is not None and not overlap(scope, entries[b].compiled):
                    continue
                older, newer = (a, b) if ages[a] <= ages[b] else (b, a)
                ranked.setdefault(older, []).append(
                    (sim, ages[newer], keys[newer][0],
                     1 if passes(entries[older], entries[newer]) else 0))
            count += len(row)
            if count > MOST:
                memo.too_many = min(len(entries), memo.too_many or len(entries))
                return
            if time.perf_counter() - began > STEP:
                yield
                began = time.perf_counter()
    made: dict[Key, Candidates] = {}
    for i, key in enumerate(keys):
        found = ranked.get(i)
        if not found:
            made[key] = ((), b"", _NONE)
            continue
        found.sort(reverse=True)
        made[key] = (tuple(c[2] for c in found), bytes(c[3] for c in found),
                     array("d", [c[0] for c in found]))
    # Only the last view's: two memories known from two other views were never compared
    # (a merge brings together memories of two branches, each joined on its own).
    memo.candidates = made
    memo.made += 1
