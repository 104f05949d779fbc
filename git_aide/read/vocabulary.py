"""The words of a view's contents, by memory: which memories hold a word, so that a
long-lived process finds the few memories that may name a path (rank/mentions.py) without
searching the contents of all of them on every recall of a new file.

A word here is a run of ASCII letters and digits, lower-cased: every name a path
recall looks for stands alone (a boundary before and after it), so each such run of
the name is a whole word of any content that names it, and the memories holding all
of its words are a superset of those naming it. The finder still searches their
contents, so the answer is the one a search of every content gives.

A view never changes, so its vocabulary is made once, in steps between calls
(read/later.py; a store of 100,000 memories takes seconds of work), and used as far as
it is made: the contents of the memories it has not reached yet are searched whole.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right

from git_aide.core.words import name_words

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    #: For each thing a finder looks for, its words: each as the spellings it may take
    #: (a stem's last word may take a plural "s"); a content naming it holds one
    #: spelling of every word.
    Needs = Sequence[Sequence[tuple[bytes, ...]]]

    from git_aide.cache.words import Kept, Saved

#: How many memories one step reads (a millisecond or two of work): a call waits for
#: a step under way at most that long.
STEP = 50


class Vocabulary:
    """Hold which memories of a view hold each word; made in steps (`steps`), used as far
    as it is made (`made`); or read whole, as the last process to make it saved it."""

    __slots__ = ("_body", "_starts", "_at", "_saved", "made", "ready", "kept")

    def __init__(self, body: bytes, starts: Sequence[int], kept: Kept | None = None) -> None:
        self._body = body
        #: Where each memory's content starts in the run (the view's order).
        self._starts = starts
        #: word -> the memories that hold it (indices in the view's order), ascending;
        #: a word of one memory maps to its index.
        self._at: dict[bytes, int | array[int]] = {}
        #: Read as saved (`_take`): word -> its number, where each number's memories
        #: start in the run, the run of memories; None while made here.
        self._saved: tuple[dict[bytes, int], array[int], array[int]] | None = None
        #: How many memories' words it holds: the first ones, in the view's order.
        self.made = 0
        #: Whether it holds the words of every memory.
        self.ready = False
        #: Where it is saved (cache/words.py): read there first, saved there once made.
        self.kept = kept

    def _take(self, saved: Saved) -> bool:
        """Hold it as `saved` (saved()), whole; False when its parts do not fit together
        (its file's checksum vouches for the rest, and its name for the view)."""
        words, offsets, memories = saved
        at = array("I")
        at.frombytes(offsets)
        run = array("I")
        run.frombytes(memories)
        names = words.split(b"\n")
        del names[-1]  # each word ends in a newline
        if len(at) != len(names) + 1 or at[0] != 0 or at[-1] != len(run):
            return False
        self._saved = (dict(zip(names, range(len(names)), strict=True)), at, run)
        self._body = b""
        self.made, self.ready = len(self._starts), True
        return True

    def saved(self) -> Saved:
        """Return it, made, as a file keeps it (cache/words.py): its words, each ended by
        a newline; where each word's memories start in the run of them; that run."""
        starts = array("I", [0])
        run = array("I")
        for found in self._at.values():
            if isinstance(found, int):
                run.append(found)
            else:
                run.extend(found)
            starts.append(len(run))
        return b"".join(w + b"\n" for w in self._at), starts.tobytes(), run.tobytes()

    def steps(self) -> Iterator[None]:
        """Read it as saved, else make it, STEP memories at a time, and save it (each
        yield is a pause between steps)."""
        kept = self.kept
        saved = kept.load() if kept is not None else None
        if saved is not None:
            yield  # the file read: a step of its own
            if self._take(saved):
                return
        body, starts = self._body, self._starts
        # Arrays from the start: lists of ints would hold 36 bytes a memory and word
        # (hundreds of MB at 100,000 memories), arrays hold 4; a word of one memory
        # (an id, a time) is held as that memory's number, not as an array of one.
        found: dict[bytes, int | array[int]] = {}
        self._at, self.made = found, 0  # what a call reads between the steps
        n = len(starts)
        for first in range(0, n, STEP):
            last = min(first + STEP, n)
            for i in range(first, last):
                end = starts[i + 1] if i + 1 < n else len(body)
                for word in set(name_words(body[starts[i]:end])):
                    at = found.get(word)
                    if at is None:
                        found[word] = i
                    elif isinstance(at, int):
                        found[word] = array("I", (at, i))
                    else:
                        at.append(i)
            self.made = last
            yield
        self._body = b""  # the run is the view's: not held twice
        self.ready = True
        if kept is not None:
            yield
            kept.save(self.saved())

    def holding(self, needs: Needs) -> list[int]:
        """Return the memories (indices, ascending) that may hold one of the things looked for:
        for each, those holding a spelling of each of its words."""
        out: set[int] = set()
        held = self._held()

        for words in needs:
            # The rarest word first; each other one keeps those of them that hold it
            # (set.intersection walks the other's list at C speed).
            each = sorted(([held(s) for s in spellings] for spellings in words),
                          key=lambda lists: sum(map(len, lists)))
            if not each:
                continue
            got: set[int] = set().union(*each[0])
            for lists in each[1:]:
                if not got:
                    break
                got = set().union(*(got.intersection(held) for held in lists))
            out |= got
        return sorted(out)

    def _held(self) -> Callable[[bytes], Sequence[int]]:
        """Return what gives the memories that hold a word (ascending)."""
        if self._saved is not None:
            index, at, run = self._saved

            def saved(word: bytes) -> Sequence[int]:
                i = index.get(word)
                return () if i is None else run[at[i]:at[i + 1]]

            return saved
        found = self._at

        def made(word: bytes) -> Sequence[int]:
            got = found.get(word, ())
            return (got,) if isinstance(got, int) else got

        return made

    def run(self, body: bytes, needs: Needs) -> tuple[bytes, Callable[[int], int]]:
        """Join in one run the contents a search for `needs` reads: those of the memories
        made so far that may hold a match (`holding`), then every content not made yet;
        with what turns an offset in it into one in the view's run (`body`)."""
        starts = self._starts
        n = len(starts)
        pieces = []
        begins: list[int] = []
        origins: list[int] = []
        length = 0
        for i in self.holding(needs):
            end = starts[i + 1] if i + 1 < n else len(body)
            begins.append(length)
            origins.append(starts[i])
            length += end - starts[i]
            pieces.append(body[starts[i]:end])
        if self.made < n:
            begins.append(length)
            origins.append(starts[self.made])
            pieces.append(body[starts[self.made]:])

        def back(at: int) -> int:
            k = bisect_right(begins, at) - 1
            return origins[k] + at - begins[k]

        return b"".join(pieces), back
