"""A term's postings worked out as Whoosh's W3PostingsWriter writes them (its blocks'
bytes and its term info's sums) apart from the writer, so that a child process can work
out a share of a large segment's terms while this one writes the others.

A first index spends most of its segment's time here: each block of up to 128 postings
is pickled and compressed (zlib: a third of it), which no other step needs. Each term's
bytes depend on its postings alone, so a second process (fork: it has the postings
already) works out the last terms, in the order they are written, and hands back their
bytes through a pipe; this one writes the first terms meanwhile, then copies the
child's. Anything amiss with the child (no fork, a failure, bytes that do not unpack),
and this process works them out itself: the bytes are the same either way.
"""

from __future__ import annotations

import marshal
import os
from array import array
from itertools import chain
from operator import sub
from pickle import dumps
from zlib import compress

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from whoosh.codec.whoosh3 import W3PostingsWriter
    from whoosh.formats import Format

    #: What a block is written with: (the writer's block limit, its compression, its
    #: format's fixed value size, Whoosh's block header magic, its length_to_byte,
    #: its pack_int).
    Params = tuple[int, int, "int | None", bytes, Callable[[int | None], int],
                   Callable[[int], bytes]]
    #: A term's postings: (documents ascending, their weights, their values, each
    #: document's length as its length byte says it or None for a field without).
    Postings = tuple[array[int], list[float], list[bytes], "list[int | None] | None"]
    #: A term worked out: (its bytes, (weight, doc frequency, min length, max length,
    #: max weight, min id, max id, blocks)).
    Worked = tuple[bytes, tuple[float, int, "int | None", int, float, int, int, int]]

#: A segment with fewer postings than this is written by this process alone (a fork
#: costs a few milliseconds, and more as the process grows).
SHARED_FROM = 200_000
#: Whether a child process may work out a share of a large segment's terms (tests turn
#: it off, or lower SHARED_FROM, to compare).
SHARING = True


#: What starting and finishing a term costs, in postings worked out (about).
TERM_COST = 40


def params(pw: W3PostingsWriter, fmt: Format) -> Params:
    """Return what a block of a field of format `fmt` is written with by a writer made as
    `pw` is."""
    from whoosh.codec.whoosh3 import WHOOSH3_HEADER_MAGIC
    from whoosh.system import pack_int
    from whoosh.util.numeric import length_to_byte

    return (pw._blocklimit, pw._compression, fmt.fixed_value_size(),
            WHOOSH3_HEADER_MAGIC, length_to_byte, pack_int)


def work(postings: Postings, p: Params) -> Worked:
    """Work out a term's blocks as W3PostingsWriter's _write_block() writes them (the same
    bytes, the same sums in the term's info, the last block marked last): a block is a
    few calls in C, where Whoosh's own takes a few calls and generator steps a posting
    (delta_encode, its weights' checks)."""
    docs, weights, values, lengths = postings
    n = len(docs)
    if n == 1:  # most terms: each blob id's, and the rare words'
        return _one(docs[0], weights[0], values[0],
                    None if lengths is None else lengths[docs[0]], p)
    limit, comp, fixed, magic, length_to_byte, pack_int = p
    out = [magic]
    weight = 0.0
    minlength: int | None = None
    maxlength = 0
    maxweight: float = 0
    blocks = 0
    for start in range(0, n, limit):
        ids = docs[start:start + limit]
        exact = weights[start:start + limit]
        held = array("f", exact)  # as Whoosh holds a block's weights
        top = max(0, max(exact))  # max(0, *exact), which unpacks them
        known = [] if lengths is None else list(filter(None, map(lengths.__getitem__, ids)))
        shortest = min(known) if known else None
        longest = max(known) if known else 0
        # The term info's add_block().
        weight += sum(held)
        minlength = shortest if minlength is None else min(minlength, shortest)  # type: ignore[type-var]
        maxlength = max(maxlength, longest)
        maxweight = max(maxweight, top)
        # _mini_ids(), _mini_weights(), _mini_values().
        deltas = tuple(map(sub, ids, chain((0,), ids)))
        low, high = min(held), max(held)
        mini = None if low == high == 1.0 else held[0] if low == high else tuple(held)
        given = list(filter(None, values[start:start + limit]))
        kept = tuple(given) if fixed is None or fixed < 0 else None if fixed == 0 \
            else b"".join(given)
        data = dumps((deltas, mini, kept), 2)
        if comp:
            data = compress(data, comp)
        head = dumps((len(ids), ids[-1], top, comp, length_to_byte(shortest),
                      length_to_byte(longest)), 2)
        size = len(head) + len(data)
        out += (pack_int(-size if start + limit >= n else size), head, data)
        blocks += 1
    return b"".join(out), (weight, n, minlength, maxlength, maxweight, docs[0], docs[-1],
                           blocks)


def _one(doc: int, weight: float, value: bytes, length: int | None, p: Params) -> Worked:
    """Work out a term of one posting as work() does, without its slices and loops: a
    first index of 100,000 memories has 100,000 such terms, one per blob id."""
    _limit, comp, fixed, magic, length_to_byte, pack_int = p
    held = array("f", (weight,))[0]  # as Whoosh holds a block's weights
    top = max(0, weight)
    shortest = length or None
    longest = length or 0
    given = (value,) if value else ()
    kept = given if fixed is None or fixed < 0 else None if fixed == 0 else b"".join(given)
    data = dumps(((doc,), None if held == 1.0 else held, kept), 2)
    if comp:
        data = compress(data, comp)
    head = dumps((1, doc, top, comp, length_to_byte(shortest), length_to_byte(longest)), 2)
    return (b"".join((magic, pack_int(-(len(head) + len(data))), head, data)),
            (0.0 + held, 1, shortest, longest, top, doc, doc, 1))


def put(pw: W3PostingsWriter, worked: Worked) -> None:
    """Write a term worked out into `pw`, which started it (start_postings()) and holds
    nothing of it yet; then finish_postings() has nothing left to write but the term's
    extent."""
    data, (weight, df, minlength, maxlength, maxweight, minid, maxid, blocks) = worked
    pw._postfile.write(data)
    info = pw._terminfo
    info._weight += weight
    info._df += df
    info._minlength = minlength
    info._maxlength = maxlength
    info._maxweight = maxweight
    info._minid = minid
    info._maxid = maxid
    pw._blockcount += blocks
    pw._new_block()


class Shared:
    """Work out the terms from `start` on in a child process, while this one writes the
    others: `take(i)` gives term i worked out, the child's or (when it failed) this
    process's own."""

    def __init__(self, postings: Callable[[int], Postings], params_of: Sequence[Params],
                 start: int) -> None:
        self._postings = postings
        self._params = params_of
        self.start = start
        self._theirs: list[Worked] | None = None
        self._pid = -1
        self._fd = -1
        if start < len(params_of):
            self._fork()

    def _fork(self) -> None:
        try:
            r, w = os.pipe()
        except OSError:
            return
        try:
            pid = os.fork()
        except OSError:
            os.close(r)
            os.close(w)
            return
        if pid == 0:  # the child: work out its terms, hand them over, and end
            status = 1
            try:
                os.close(r)
                data = marshal.dumps([work(self._postings(i), self._params[i])
                                      for i in range(self.start, len(self._params))])
                view = memoryview(data)
                while view:
                    view = view[os.write(w, view):]
                status = 0
            finally:
                os._exit(status)
        os.close(w)
        self._pid, self._fd = pid, r

    def _gather(self) -> list[Worked]:
        """Read what the child worked out, and wait for it; [] when it failed."""
        if self._pid < 0:
            return []
        chunks = []
        try:
            with os.fdopen(self._fd, "rb") as f:
                while chunk := f.read(1 << 20):
                    chunks.append(chunk)
        except OSError:
            chunks = []
        finally:
            _pid, status = os.waitpid(self._pid, 0)
            self._pid = -1
        try:
            got = marshal.loads(b"".join(chunks)) if status == 0 else []
        except (EOFError, ValueError, TypeError):
            got = []
        return got if isinstance(got, list) and len(got) == len(self._params) - self.start \
            else []

    def take(self, i: int) -> Worked:
        """Return term i worked out."""
        if i >= self.start:
            if self._theirs is None:
                self._theirs = self._gather()
            if self._theirs:
                return self._theirs[i - self.start]
        return work(self._postings(i), self._params[i])

    def close(self) -> None:
        """Wait for a child not asked for anything (this process failed meanwhile)."""
        if self._pid >= 0:
            os.close(self._fd)
            os.waitpid(self._pid, 0)
            self._pid = -1


def split(costs: Sequence[int]) -> int:
    """Return where the child's share starts: the last terms, about half of the cost (this
    process also starts and finishes every term in Whoosh's writer)."""
    if not SHARING or sum(costs) < SHARED_FROM or not forkable():
        return len(costs)
    half = sum(costs) // 2
    run = 0
    for i in range(len(costs) - 1, -1, -1):
        run += costs[i]
        if run >= half:
            return i
    return 0


def forkable() -> bool:
    """Tell whether this process may fork a child to work out terms: it can, and it runs no
    other thread (a fork copies none of their state: a lock one holds stays held)."""
    import threading

    return hasattr(os, "fork") and threading.active_count() == 1
