"""The search of a snapshot's stored contents for the memories that hold a match
(`mentioning`): a recall's weak candidates (the memories that name a query path or a
query file's stem), the always-on memories, a search's fragments.

A view holds every memory's content in one run (Snapshot.body), searched at once; a
long-lived process keeps what a search of it found, and once it has made the view's
vocabulary (vocabulary.py), searches only the contents that hold a match's words.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from git_aide.read.record import Entry, new_entry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from git_aide.core import scope as scopes
    from git_aide.read.snapshot import Snapshot
    from git_aide.read.vocabulary import Needs, Vocabulary

    #: What a finder looks for, its state, and how to restore that state.
    Kept = tuple[Any, Callable[[], Any], Callable[[Any], None]]


#: Searches of a view's contents a long-lived process keeps (one per file or folder
#: asked about lately).
KEPT_SEARCHES = 64


def mentioning(snap: Snapshot, found: Callable[[bytes], list[int]],
               skip: Callable[[scopes.Compiled | None], bool],
               kept: Kept | None = None, needs: Needs | None = None) -> list[Entry]:
    """Find the snapshot's memories outside the groups that `skip` keeps whose file content
    holds a match: `found(bytes)` gives the offsets of the matches in some bytes; `needs`:
    the words every match holds (read/vocabulary.py), when it knows them.

    A view holds every content in one run: it is searched at once, and groups are
    decoded only when something matched. Without one, the contents are joined into
    one run all the same, so that a finder that counts what it sees (a file's stem
    common in the store brings no candidates) counts the same store either way.

    `kept`: (what `found` looks for, its state, a way to restore that state): a
    long-lived process keeps what the view's run gave (a view never changes) and
    searches only the files laid over it the next time the same is looked for.
    """
    view = snap._reader.view
    body = snap.body()
    if body is None:
        every = snap.entries_where(lambda _c: True)
        texts = [e.data() or b"" for e in every]
        begins = [0]
        for t in texts:
            begins.append(begins[-1] + len(t) + 1)  # "\n" between: no match spans two
        picked = {bisect_right(begins, at) - 1 for at in found(b"\n".join(texts))}
        return [every[i] for i in sorted(picked) if not skip(every[i].compiled)]
    offsets = _found_in(snap, body, found, kept, needs)

    def laid() -> list[Entry]:  # the files laid over the view that match
        return [new_entry(Entry, (path, blob, meta, compiled, snap._reader, raw))
                for compiled, payload in snap._extra if not skip(compiled)
                for path, blob, meta, raw in payload if found(raw)]

    if not offsets:  # none in the view: only the files laid over it may match
        return laid()
    if snap.prefetch_ids() and view is not None and view.starts is not None:
        # Each match names the memory whose content holds it: only their groups
        # are decoded.
        assert view.order is not None
        order, starts = view.order, view.starts
        got = snap._view_entries({order[bisect_right(starts, at) - 1] for at in offsets})
        if got is not None:
            return [e for e in got if not skip(e.compiled)] + laid()
    out: list[Entry] = []
    for e in snap.entries_where(lambda c: not skip(c)):
        data = e.content
        if isinstance(data, tuple):  # its slice of the view's run
            i = bisect_left(offsets, data[0])
            if i < len(offsets) and offsets[i] < data[0] + data[1]:
                out.append(e)
        elif data and found(data):  # a file laid over the view
            out.append(e)
    return out


def _found_in(snap: Snapshot, body: bytes, found: Callable[[bytes], list[int]],
              kept: Kept | None, needs: Needs | None) -> list[int]:
    """Return the sorted offsets of `found`'s matches in the view's run, kept by the reader
    of a long-lived process (see mentioning)."""
    memo = snap._reader.found if snap.keep_decoded and kept is not None else None
    if memo is None or kept is None:
        return sorted(found(body))
    key, state, restore = kept
    got = memo.get(key)
    if got is not None:
        restore(got[1])
        return got[0]
    offsets = _search(snap, body, found, needs)
    while len(memo) >= KEPT_SEARCHES:
        memo.pop(next(iter(memo)))
    memo[key] = (offsets, state())
    return offsets


def _search(snap: Snapshot, body: bytes, found: Callable[[bytes], list[int]],
            needs: Needs | None) -> list[int]:
    """Search the view's run for `found`'s offsets, sorted: as far as a long-lived
    process has made the view's vocabulary, only the contents holding the words `needs`
    names are searched, and all the rest (the same offsets, in the same order, in one
    search: the others hold no match)."""
    reader = snap._reader
    view = reader.view
    if needs is None or not snap.prefetch_ids() or view is None or view.starts is None:
        return sorted(found(body))
    vocab = _vocabulary(snap, body)
    if vocab is None or not vocab.made:
        return sorted(found(body))
    run, back = vocab.run(body, needs)
    return sorted(map(back, found(run)))


def _vocabulary(snap: Snapshot, body: bytes, first: bool = False) -> Vocabulary | None:
    """Return the vocabulary of the snapshot's view, asked for between calls while it is
    not made (`first`: before the work asked for so far): there, read as the last
    process to make it saved it (cache/words.py), or made and saved; None without a
    view."""
    from git_aide.read.vocabulary import Vocabulary

    reader = snap._reader
    view = reader.view
    if view is None or view.starts is None:
        return None
    vocab = reader.vocab
    if vocab is None:
        kept = None
        if snap.later is not None:  # a long-lived process: read as saved, or made and saved
            from git_aide.cache.words import Kept

            kept = Kept(reader.cache, view.order or [], view.starts, len(body))
        vocab = reader.vocab = Vocabulary(body, view.starts, kept)
    if not vocab.ready and snap.later is not None:
        snap.later.want(vocab, first=first)
    return vocab


def ahead(snap: Snapshot) -> None:
    """Read what a first recall searches (the view's run of contents and where each
    starts), and ask a long-lived process to make the view's vocabulary before the
    rest of its work between calls: the search of a path's names then reads few
    contents from the first call on."""
    body = snap.body()
    if body is not None and snap.prefetch_ids() and snap.later is not None:
        _vocabulary(snap, body, first=True)
