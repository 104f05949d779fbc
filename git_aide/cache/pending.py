"""Documents a long-lived process has analysed but not yet written to the full-text
index: scored after the postings tables on disk, as if written.

Writing one document into Whoosh's index (its writer, a commit, a postings table, a new
id table) costs a warm search about 30 ms, many times the rest of it, and an agent edits
a memory and searches again at once. So the MCP server (warm/state.py) defers the write
of what a call would add: those documents are analysed as the write would analyse them,
put in one postings table held in memory, and scored after the tables on disk with the
statistics of the index as the write would leave it (how many documents, each term's
document frequency, each field's total length). The server writes them when it is idle
or its client leaves.

The answer equals the one a command run at that moment gets (it writes, then reads its
tables), exactly: a write is deferred only when Whoosh would commit it without merging
segments (index.py merges only past MAX_SEGMENTS), so the totals it would record are
the last table's plus the new documents' own lengths; and the documents counted are
exactly those the call would have written, in its order (`set` each call; a call that
adds nothing counts none, `begin`).
"""

from __future__ import annotations

from git_aide.cache import postings, postings_build

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection
    from types import ModuleType
    from typing import Any

    from whoosh.fields import Schema

#: At most this many documents are deferred; a call that would add more writes them.
MOST = 64


class Pending:
    """Hold the documents a warm process would have written, and their table in memory."""

    def __init__(self) -> None:
        #: (blob id, record), in the order they would have been written.
        self.docs: list[tuple[str, dict[str, Any]]] = []
        #: Whether the call under way asked for them: only then are they scored.
        self.live = False
        #: The table of `docs`, and the tables on disk it was made for: (those, table).
        self._made: tuple[Any, postings.Table] | None = None
        #: Whoosh's analysis, kept (it remembers each token's terms) for one schema.
        self._analysis: tuple[Any, Any] | None = None

    def begin(self) -> None:
        """Begin a new call: nothing it asked for yet."""
        self.live = False

    def set(self, docs: list[tuple[str, dict[str, Any]]]) -> None:
        """Set what the call under way would write: its first addition's documents, then
        those of its later ones that are new (a recall with a question adds up to
        three times, and the first writes what the later find already written)."""
        if self.live:
            have = {b for b, _r in self.docs}
            more = [(b, r) for b, r in docs if b not in have]
            if more:
                self.docs = [*self.docs, *more]
                self._made = None
        elif [b for b, _r in docs] != [b for b, _r in self.docs]:
            self.docs = list(docs)
            self._made = None
        self.live = True

    def adding(self, docs: list[tuple[str, dict[str, Any]]]) -> int:
        """Count the documents that would be pending if the call under way added these."""
        if not self.live:
            return len(docs)
        have = {b for b, _r in self.docs}
        return len(self.docs) + sum(1 for b, _r in docs if b not in have)

    def discard(self, blobs: Collection[str]) -> None:
        """Drop these, which were written (by this process or another): pending no more."""
        kept = [(b, r) for b, r in self.docs if b not in blobs]
        if len(kept) != len(self.docs):
            self.docs = kept
            self._made = None

    def restore(self, docs: list[tuple[str, dict[str, Any]]]) -> None:
        """Put back documents taken to be written and not written after all (the index was
        busy): pending again, before any pended since."""
        have = {b for b, _r in docs}
        self.docs = [*docs, *(d for d in self.docs if d[0] not in have)]
        self._made = None

    def take(self) -> list[tuple[str, dict[str, Any]]]:
        """Take the documents to write now; none are pending after."""
        docs, self.docs, self._made, self.live = self.docs, [], None, False
        return docs

    def table(self, w: ModuleType, schema: Schema, disk: postings.Tables,
              values: Callable[[str, dict[str, Any]], dict[str, str]]) -> postings.Table:
        """Return the documents' postings table, to be read after the tables `disk` (`values`:
        a record's fields as the index gets them): their
        terms, lengths and stems as the write would record them, with the totals
        Whoosh would record after a commit that merges nothing."""
        # The very tables object, held (an id could be reused by the next state's).
        if self._made is not None and self._made[0] is disk:
            return self._made[1]
        from whoosh.util.numeric import byte_to_length, length_to_byte

        from git_aide.cache.segment import Analysis

        if self._analysis is None or self._analysis[0] is not schema:
            self._analysis = (schema, Analysis(w, schema, remember=True))
        analysis = self._analysis[1]
        batch = postings_build.Batch()
        for blob, record in self.docs:
            batch.add(blob, analysis.fields(values(blob, record)))
        # The stems of every word met so far: a word's stem is the same whoever met it.
        batch.stems = analysis.stems
        fields = list(batch.lengths)
        before = disk.tables[-1].totals if disk.tables else {}
        totals = {f: int(before.get(f, 0)) + sum(batch.lengths[f])
                  for f in fields if schema[f].scorable}
        table = postings_build.in_memory(
            batch, {f: float(schema[f].format.field_boost) for f in fields},
            {f: bool(schema[f].scorable) for f in fields},
            (length_to_byte, byte_to_length), totals)
        self._made = (disk, table)
        return table
