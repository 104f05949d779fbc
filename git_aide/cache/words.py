"""Saved vocabularies: the words of a view's contents, by memory (read/vocabulary.py), kept
in `words/` so that a new long-lived process reads them instead of making them again
(a second of work at 10,000 memories, on the way of its first calls).

A vocabulary depends only on the contents of the view, in its order, and on how words
are cut: the file is named by a digest of the view's blob ids, where each content starts
and the words' pattern (Kept.name), so a view that changed names another file, and a
file is never stale. Its payload is (the words,
each ending in a newline; where each word's memories start in the run of memory
numbers, as a 32-bit array; that run), framed and checked as every cache file is
(disk.py); the MAX_VIEWS used last are kept, as views are.
"""

from __future__ import annotations

import contextlib
import os
from hashlib import blake2b

from git_aide.cache.views import evict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from array import array
    from collections.abc import Sequence

    from git_aide.cache.folder import Cache

    #: A vocabulary as saved: (words, each ended by a newline; offsets; memory numbers).
    Saved = tuple[bytes, bytes, bytes]

#: The cache's folder of saved vocabularies.
FOLDER = "words"


class Kept:
    """Find a view's vocabulary in the cache (`load`) and save it there (`save`), under
    the name of the view's contents: its blob ids `order`, where each starts in their
    run (`starts`), and the run's `size`."""

    __slots__ = ("_cache", "_order", "_starts", "_size", "_name")

    def __init__(self, cache: Cache, order: Sequence[str], starts: array[int],
                 size: int) -> None:
        self._cache = cache
        self._order = order
        self._starts = starts
        self._size = size
        self._name: str | None = None

    @property
    def name(self) -> str:
        """Return the file name: a digest of the view's contents (worked out once)."""
        if self._name is None:
            from git_aide.core.words import NAME_WORD

            digest = blake2b(NAME_WORD.pattern, digest_size=16)  # how words are cut
            digest.update("\n".join(self._order).encode())
            digest.update(self._starts.tobytes())
            digest.update(str(self._size).encode())
            self._name = digest.hexdigest()
        return self._name

    def load(self) -> Saved | None:
        """Return the vocabulary saved for the view, or None (not saved; damaged: dropped)."""
        cache, name = self._cache, self.name
        got = cache.read(FOLDER, name)
        if got is None:
            return None
        if not (isinstance(got, tuple) and len(got) == 3
                and all(isinstance(part, bytes) for part in got)):
            cache.damaged(cache.path(FOLDER, name))
            return None
        with contextlib.suppress(OSError):  # recently used: kept by the eviction
            os.utime(cache.path(FOLDER, name))
        return got

    def save(self, saved: Saved) -> None:
        """Save the view's vocabulary (best effort), and drop those not used lately."""
        self._cache.write(saved, FOLDER, self.name)
        evict(self._cache, FOLDER)
