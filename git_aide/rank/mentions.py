"""The weak signals of a path recall (docs/ranking.md): which memories
outside the path's scopes may be about it (they name the path, its file name or
directory, or the file's stem: its tests, its guide, its callers), and which of the
path's words a memory's stored text holds. Both work on stored bytes at C speed, so
that a recall need not parse the thousands of memories it looks through.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from git_aide.core.words import name_words, words

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from git_aide.rank.memo import RankMemo
    from git_aide.rank.selection import Query
    from git_aide.read.record import Entry


#: A stem shorter than this (`io`, `app`) names too many things to mark a topic.
TOPIC_MIN_STEM = 4
#: A stem found more often than this in the store is a common word there, not a
#: topic: it brings no candidates (and no decoding of the memories that hold it).
TOPIC_MAX_FOUND = 50


def path_words(path: str) -> frozenset[str]:
    """Return a path's words: its segments split like identifiers, without the file extension."""
    segs = [s for s in path.split("/") if s]
    if segs and "." in segs[-1].lstrip("."):
        segs[-1] = segs[-1].rsplit(".", 1)[0]
    return words(" ".join(segs))


def mention_finder(queries: Sequence[Any], folders: Sequence[str] = ()
                   ) -> Callable[[bytes], list[int]] | None:
    """Make a finder of the places where a memory names a query path, its file name or its
    directory (offsets in some bytes; paths are case-sensitive, like git's); None when
    there is nothing to find.

    A name counts when it stands alone: `cart.py` is not found in `mycart.py`, and a
    file's directory `examples/shop` is found as `examples/shop/` or `examples/shop`
    but not as the start of `examples/shop/cart.py`; a queried directory is found
    that way too (a path inside it is about something it holds). `folders`: more
    directories found as a file's directory is (those of files looked for otherwise).
    """
    names: set[bytes] = set()
    dirs: set[bytes] = {f.encode() for f in folders if f}
    inside: set[bytes] = set()
    for q in queries:
        if not q.path:
            continue
        if q.is_dir:
            inside.add(q.path.encode())
            continue
        names.add(q.path.encode())
        head, _, tail = q.path.rpartition("/")
        names.add(tail.encode())
        if head:
            dirs.add(head.encode())
    if not names and not dirs and not inside:
        return None
    before = b"/\\\"'`( \n\t,;:"  # what may stand before a name (a path's "/" too)
    ident = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")

    def found(low: bytes) -> list[int]:
        out: list[int] = []
        for needle, is_dir in ([(n, False) for n in names] + [(d, True) for d in dirs]
                               + [(d, None) for d in inside]):
            at = low.find(needle)
            while at >= 0:
                end = at + len(needle)
                ok = (at == 0 or low[at - 1] in before) and not low.endswith(
                    _SCOPE_KEY, 0, at)  # a scope names paths; that is no mention
                if ok and is_dir is None and low[end:end + 1] == b"/":
                    pass  # the queried directory, or a path inside it
                elif ok and is_dir is not False:
                    if low[end:end + 1] == b"/":
                        end += 1
                    nxt = low[end:end + 1]
                    ok = not nxt or (nxt[0] not in ident and nxt not in (b"/", b"."))
                    if not ok and nxt == b"." and (len(low) == end + 1
                                                   or low[end + 1] not in ident):
                        ok = True  # "...in examples/shop." ends a sentence
                elif ok:
                    nxt = low[end:end + 1]
                    ok = not nxt or nxt[0] not in ident
                if ok:
                    out.append(at)
                at = low.find(needle, at + 1)
        return out

    return found


def file_stem(q: Query) -> str | None:
    """Return a query file's name without its extensions (`throttling` for
    `src/throttling.py`, `history` for `tests/history.test.tsx`), when long enough to
    mark a topic."""
    if q.is_dir or not q.path:
        return None
    stem = q.path.rpartition("/")[2].lstrip(".").split(".", 1)[0]
    return stem if len(stem) >= TOPIC_MIN_STEM else None


_ALNUM = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


class MentionFinder:
    """Find the memory files that may be weak candidates (mentions of a path): those
    naming a query path, its file name or directory (mentions), or a query file's stem
    as a word, scope included (`tests/test_throttling.py`, `throttling.md`,
    "throttling uses the client address"). A superset: `select` checks each.

    Called on a store's contents in one run, each stem is one search (without its first
    letter, then checked in either case), which also finds the file's name and path;
    a stem found more than TOPIC_MAX_FOUND times is a common word there (`index`,
    `utils`), and only the file's name and path are then looked for.
    """

    def __init__(self, queries: Sequence[Any]) -> None:
        #: Per file query with a stem: (stem, the stem's bytes after its first letter,
        #: its first letter in either case, the file query, the bytes of its path up to
        #: the stem).
        self.stems = [(st, st[1:].encode(), frozenset((st[0].lower() + st[0].upper()
                                                       ).encode()), q,
                       q.path[:len(q.path) - len(q.path.rpartition("/")[2])].encode())
                      for q in queries if (st := file_stem(q))]
        #: Stems too common to bring candidates.
        self.common: set[str] = set()
        # Hits per stem so far: without a view, each memory file is searched apart.
        self._found: dict[str, int] = {}
        #: What it looks for: the query paths, and whether each names a folder.
        self._key = ("weak", tuple((q.path, q.is_dir) for q in queries))
        plain = [q for q in queries if not file_stem(q) and q.path]
        #: The folders of the files with a stem (their names are the stems' to find),
        #: found as select() finds a file's folder: alone, not as the start of a path.
        self._folders = [q.path.rpartition("/")[0] for _s, _r, _f, q, _h in self.stems
                         if "/" in q.path]
        self._names = mention_finder(plain, self._folders)
        #: The query paths whose names and folders are looked for as they are.
        self._plain = plain

    def words(self) -> list[list[tuple[bytes, ...]]] | None:
        """Return the words a content naming what it looks for holds (core/words.name_words;
        read/vocabulary.py's Needs); None when something it looks for has no word
        (then every content is searched). Every name looked for stands alone, so its
        words are whole words of the content; a stem's last word may take a plural
        "s"."""
        needs: list[list[tuple[bytes, ...]]] = []
        for stem, _rest, _first, _q, _head in self.stems:
            raw = stem.encode()
            found = name_words(raw)
            if not found:
                return None
            each: list[tuple[bytes, ...]] = [(w,) for w in found]
            if raw[-1:].isalnum() and raw[-1:].isascii():
                each[-1] = (found[-1], found[-1] + b"s")
            needs.append(each)
        # The stems' files' names and paths hold their stems: only the others', and
        # the folders.
        names = list(self._folders)
        for q in self._plain:
            names.append(q.path if q.is_dir else q.path.rpartition("/")[2])
            if not q.is_dir and "/" in q.path:
                names.append(q.path.rpartition("/")[0])
        for name in names:
            found = name_words(name.encode())
            if not found:
                return None
            needs.append([(w,) for w in found])
        return needs

    def active(self) -> bool:
        """Tell whether there is anything to find."""
        return bool(self.stems) or self._names is not None

    def kept(self) -> tuple[Any, Callable[[], Any], Callable[[Any], None]]:
        """Return what it looks for (its query paths), and how to save and restore what it
        counted: a long-lived process keeps what a search of the same bytes found
        (read/contents.mentioning)."""
        return (self._key, self._state, self._restore)

    def _state(self) -> tuple[dict[str, int], set[str]]:
        return dict(self._found), set(self.common)

    def _restore(self, state: tuple[dict[str, int], set[str]]) -> None:
        self._found, self.common = dict(state[0]), set(state[1])

    def __call__(self, data: bytes) -> list[int]:
        """Return the offsets in `data` where a weak candidate may be."""
        out = self._names(data) if self._names is not None else []
        for stem, rest, first, q, head in self.stems:
            mine: list[int] = []
            own: list[int] = []  # the file's whole path: its own notes, or mentions
            at = data.find(rest, 1)
            while at >= 0 and len(mine) + self._found.get(stem, 0) <= TOPIC_MAX_FOUND:
                end = at + len(rest)
                at -= 1  # the first letter
                if end < len(data) and data[end] == 0x73:  # a plural "s"
                    end += 1
                if data[at] in first and (at == 0 or data[at - 1] not in _ALNUM) and (
                        end >= len(data) or data[end] not in _ALNUM):
                    whole = head and data.endswith(head, 0, at)
                    (own if whole else mine).append(at)
                at = data.find(rest, at + 2)
            self._found[stem] = self._found.get(stem, 0) + len(mine)
            if self._found[stem] <= TOPIC_MAX_FOUND:
                out.extend(mine)
                out.extend(own)
            else:  # a common word: only the file's own name and path
                self.common.add(stem)
                names = mention_finder([q])
                assert names is not None
                out.extend(names(data))
        return out

    def names_a_stem(self, text: bytes) -> bool:
        """Tell whether some text names a query file's stem (one not found too common)."""
        for stem, rest, first, _q, _h in self.stems:
            if stem in self.common:
                continue
            at = text.find(rest, 1)
            while at >= 0:
                end = at + len(rest)
                if end < len(text) and text[end] == 0x73:
                    end += 1
                if text[at - 1] in first and (at == 1 or text[at - 2] not in _ALNUM) and (
                        end >= len(text) or text[end] not in _ALNUM):
                    return True
                at = text.find(rest, at + 1)
        return False


#: How a memory file's scope value starts (canonical JSON): the stored bytes are
#: searched for mentions, and a scope is not one.
_SCOPE_KEY = b'"scope": "'


class Run:
    """Hold some memories' stored texts, lower-cased in one run.

    A path recall may have a thousand candidates: their bytes are joined into one run,
    each word is searched in it at C speed, and Python steps once per text that holds
    the word (the search then jumps to the next text).
    """

    __slots__ = ("joined", "starts")

    def __init__(self, texts: list[bytes]) -> None:
        #: The texts, lower-cased, joined by NUL bytes.
        self.joined = b"\0".join(texts).lower()
        #: Where each text starts in the run, and where the run ends.
        self.starts = list(accumulate((len(t) + 1 for t in texts), initial=0))

    def holding(self, needle: bytes) -> list[int]:
        """Return the indices of the texts that hold a lower-case word, in any case."""
        joined, starts = self.joined, self.starts
        got = []
        at = joined.find(needle)
        while at >= 0:
            i = bisect_right(starts, at) - 1
            got.append(i)
            at = joined.find(needle, starts[i + 1])
        return got


#: How many words are kept (the one used last kept longest), and how many blobs each
#: keeps before it starts again.
KEPT_WORDS = 256
KEPT_BLOBS = 50_000
#: How many runs searched lately are kept, by their blob ids: the newest project-wide
#: memories are searched for each new file's new words.
KEPT_RUNS = 8


def held(entries: list[Entry], body: bytes | None, needles: list[bytes], memo: RankMemo
         ) -> dict[bytes, list[int]]:
    """Find, for each of some distinct lower-case words, the indices of the entries whose
    stored texts (stored_text()) hold it, in any case (Run.holding), what each blob
    holds kept in `memo` (RankMemo.mentions: a blob's bytes never change, and a
    long-lived process weighs the same newest project-wide memories on every recall: a
    new file brings few new words, and after a hand edit only the edited memory is
    searched again); an entry whose stored bytes are not at hand (its texts
    stand in for them) is searched each time."""
    blobs = [e[1] for e in entries]
    mentions, runs = memo.mentions, memo.runs
    memos = []
    todo: set[int] = set()
    for n in needles:
        got = mentions.pop(n, None)
        if got is None or len(got[0]) > KEPT_BLOBS:
            while len(mentions) >= KEPT_WORDS:
                mentions.pop(next(iter(mentions)))
            got = (set(), set())
        mentions[n] = got  # the newest last: the oldest go first
        memos.append(got)
        if len(todo) < len(blobs) and not got[0].issuperset(blobs):
            searched = got[0]
            todo.update([i for i, b in enumerate(blobs) if b not in searched]
                        if searched else range(len(blobs)))
    found: dict[bytes, set[str]] = {}
    if todo:
        order = sorted(todo)
        key = tuple(blobs) if len(order) == len(blobs) else tuple([blobs[i] for i in order])
        run = runs.pop(key, None)
        if run is None:
            texts = [stored_bytes(entries[i], body) for i in order]
            run = Run([stored_text(entries[i], body) if t is None else t
                       for i, t in zip(order, texts, strict=True)])
            whole = None not in texts
        else:
            whole = True
        if whole:
            while len(runs) >= KEPT_RUNS:
                runs.pop(next(iter(runs)))
            runs[key] = run  # a new file's new words are searched in the same run
        for n, (searched, holding) in zip(needles, memos, strict=True):
            if searched.issuperset(key):
                continue
            holders = {key[k] for k in run.holding(n)}
            if whole:
                searched.update(key)
                holding.update(holders)
            else:  # what is not at hand is not kept
                found[n] = holding | holders
    at = {b: i for i, b in enumerate(blobs)}
    out: dict[bytes, list[int]] = {}
    for n, (_searched, holding) in zip(needles, memos, strict=True):
        has = found.get(n, holding)
        if len(at) == len(blobs):
            out[n] = sorted([at[b] for b in has.intersection(blobs)])
        else:  # a blob stands twice (two files of the same bytes)
            out[n] = [i for i, b in enumerate(blobs) if b in has]
    return out


def stored_text(e: Entry, body: bytes | None) -> bytes:
    """Return a memory's stored bytes, or (without them at hand) its texts and scope."""
    raw = stored_bytes(e, body)
    if raw is None:
        r = e.read_record()
        raw = " ".join((r["what"], r["why"] or "", r["context_label"] or "",
                        " ".join(r["tags"]), r["scope"] or "")).encode()
    return raw


def stored_bytes(e: Entry, body: bytes | None) -> bytes | None:
    """Return the stored bytes of an entry, when they are at hand without reading the disk."""
    data = e.content
    if isinstance(data, tuple):
        return body[data[0]:data[0] + data[1]] if body is not None else None
    return data
