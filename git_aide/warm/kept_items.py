"""The compact items of the memories an MCP server answered with, each with its size and
its line of markdown (Items): a memory's item is the same in every answer that holds it,
so a warm server makes it once, not once per answer.

A compact item depends only on the file it was made of (its path and blob id) and on the
newer memory that supersedes it, if any (agents/mcp/text.py's compact): that is its key.
A search after a hand edit answers with the same twenty memories but one, and made,
measured and wrote each of them again.
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.jsonvalue import JSONObject

    #: What makes an item: (path, blob id, the short id of the newer that supersedes it).
    Key = tuple[str, str, str | None]

#: More items kept than this and they are all forgotten (a view's memories, many times
#: over: the server's answers hold far fewer).
MOST_ITEMS = 20_000


class _Kept:
    """Hold one item, its size once measured, and its lines once written."""

    __slots__ = ("item", "size", "lines")

    def __init__(self, item: JSONObject) -> None:
        self.item = item
        self.size: int | None = None
        #: Its line, by whether the answer is ranked (a ranked line names the layer).
        self.lines: dict[bool, str] = {}


class Items:
    """Keep compact items by what makes them (Key), and find an item's own record again
    from the item (by identity: an item held here is not freed, so its id is not
    reused while it is)."""

    def __init__(self) -> None:
        self._by_key: dict[Key, _Kept] = {}
        self._by_id: dict[int, _Kept] = {}

    def item(self, key: Key, make: Callable[[], JSONObject]) -> JSONObject:
        """Return the item kept for `key`, or make() it and keep it. The item is shared by
        the answers that hold it: nothing may change it (answersize.clip copies)."""
        kept = self._by_key.get(key)
        if kept is None:
            if len(self._by_key) >= MOST_ITEMS:
                self._by_key.clear()
                self._by_id.clear()
            kept = self._by_key[key] = _Kept(make())
            self._by_id[id(kept.item)] = kept
        return kept.item

    def _of(self, item: JSONObject) -> _Kept | None:
        """Return the record of an item kept here, or None (another item)."""
        kept = self._by_id.get(id(item))
        return kept if kept is not None and kept.item is item else None

    def size(self, item: JSONObject, measure: Callable[[JSONObject], int]) -> int:
        """Return measure(item), measured once for an item kept here."""
        kept = self._of(item)
        if kept is None:
            return measure(item)
        if kept.size is None:
            kept.size = measure(item)
        return kept.size

    def line(self, item: JSONObject, ranked: bool,
             write: Callable[[JSONObject, bool], str]) -> str:
        """Return write(item, ranked), written once for an item kept here."""
        kept = self._of(item)
        if kept is None:
            return write(item, ranked)
        line = kept.lines.get(ranked)
        if line is None:
            line = kept.lines[ranked] = write(item, ranked)
        return line
