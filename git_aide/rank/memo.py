"""What ranking works out about memories and keeps between calls, owned by whoever
ranks: a command makes one for its one answer; a long-lived process (the MCP server,
warm/state.py) makes one and passes it to every call, since it compares the same
memories again. Everything here is keyed by blob id (a blob's words never change),
except what belongs to one view (its bits, its supersession candidates).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from git_aide.rank.candidates import Candidates, Key
    from git_aide.rank.mentions import Run
    from git_aide.rank.wordbits import Bits
    from git_aide.read.record import Entry

#: How many word sets (and subjects, exact words) are kept (about 1.5 KB each) before
#: they start again: ten times the most that one search or recall compares
#: (rank/recall.SUPERSESSION_MOST).
KNOWN_MAX = 10_000
#: How many memories' words worked out ahead are kept (a few hundred bytes each).
AHEAD_MAX = 250_000
#: How many joined groups are kept, the one used last kept longest.
KEPT_JOINS = 64


class RankMemo:
    """Hold what comparing and weighing memories worked out, for as long as its owner
    lives."""

    __slots__ = ("word_sets", "subjects", "exacts", "ahead", "spelled", "joined", "bits",
                 "candidates", "made", "too_many", "mentions", "runs")

    def __init__(self) -> None:
        #: Word sets, subjects and exact words by blob id (rank/duplicates.py,
        #: rank/supersede.py): reading `what` to split it costs more than comparing.
        self.word_sets: dict[str, frozenset[str]] = {}
        self.subjects: dict[str, frozenset[str]] = {}
        self.exacts: dict[str, frozenset[str]] = {}
        #: Each memory's word set, subject and exact words worked out ahead for a whole
        #: view between a long-lived process's calls (supersede.warm), by blob id, as
        #: one tuple: (how many words the subject has, how many of the word set's are
        #: exact, the subject's words, then the word set's, its exact words first). A
        #: frozenset of 20 words costs 1.2 KB; the tuple a fifth of that, and the set
        #: made of it when asked takes under a microsecond, where reading `what` and
        #: splitting it takes 20.
        self.ahead: dict[str, tuple[Any, ...]] = {}
        #: The words of `ahead`'s tuples, one string each.
        self.spelled: dict[str, str] = {}
        #: The pairs of the groups joined lately, by the threshold and the group's blob
        #: ids: after a hand edit only the edited memory's group is joined again.
        self.joined: dict[tuple[float, tuple[str, ...]], list[tuple[int, int, float]]] = {}
        #: The last view's words as bits (rank/wordbits.py), once worked out.
        self.bits: Bits | None = None
        #: The supersession candidates of each memory of the last view worked out ahead
        #: (rank/candidates.py), and how many times they were made (a reader of them can
        #: tell it is the one it read).
        self.candidates: dict[Key, Candidates] = {}
        self.made = 0
        #: The size of the smallest view found to have too many pairs alike in words to
        #: relate (rank/candidates.MOST): not tried again.
        self.too_many: int | None = None
        #: Which memories hold each word, by the word: (the blob ids searched, those
        #: holding it) (rank/mentions.held), and the runs of stored texts searched lately.
        self.mentions: dict[bytes, tuple[set[str], set[str]]] = {}
        self.runs: dict[tuple[str, ...], Run] = {}

    def known_ahead(self, blob: str) -> bool:
        """Tell whether a memory's words were worked out ahead."""
        return blob in self.ahead

    def keep_ahead(self, blob: str, word_set: frozenset[str], subject: frozenset[str],
                   exact: frozenset[str]) -> None:
        """Keep a memory's word set, subject and exact words (a part of its word set)."""
        if len(self.ahead) >= AHEAD_MAX:
            self.ahead.clear()
            self.spelled.clear()
        one = self.spelled.setdefault
        exact = exact & word_set
        self.ahead[blob] = (len(subject), len(exact), *(one(w, w) for w in subject),
                            *(one(w, w) for w in exact),
                            *(one(w, w) for w in word_set - exact))

    def words_ahead(self, blob: str) -> tuple[str, ...] | None:
        """Return a memory's word set's words worked out ahead, or None."""
        worked = self.ahead.get(blob)
        return None if worked is None else worked[worked[0] + 2:]

    def of_what(self, kept: dict[str, frozenset[str]], e: Entry,
                make: Callable[[str], frozenset[str]],
                ahead: Callable[[tuple[Any, ...]], frozenset[str]], keep: bool = True
                ) -> frozenset[str]:
        """Return make(e.read_what()), once per blob while `kept` keeps it; `ahead` takes it
        from the memory's tuple worked out ahead instead, when there is one. `keep`:
        False for one reading of a whole view, which would push out what a search
        keeps."""
        found = kept.get(e.blob)
        if found is None:
            worked = self.ahead.get(e.blob)
            found = make(e.read_what()) if worked is None else ahead(worked)
            if keep:
                if len(kept) >= KNOWN_MAX:
                    kept.clear()
                kept[e.blob] = found
        return found

    def join(self, blobs: list[str], threshold: float,
             join: Callable[[], list[tuple[int, int, float]]]
             ) -> list[tuple[int, int, float]]:
        """Return join() (a group's pairs at `threshold`), kept by the group's blob ids."""
        key = (threshold, tuple(blobs))
        got = self.joined.pop(key, None)
        if got is None:
            got = join()
            while len(self.joined) >= KEPT_JOINS:
                self.joined.pop(next(iter(self.joined)))
        self.joined[key] = got  # the newest last: the oldest go first
        return got
