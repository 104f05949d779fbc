"""Memories as the hooks show them: one line each, cut short, and as many lines under a
header as fit in a budget of characters."""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, Protocol

    from git_aide.core.jsonvalue import JSONObject

    class Lines(Protocol):
        """Lines that fit() reads by position: a list, or Rendered."""

        def __len__(self) -> int: ...
        def __getitem__(self, i: int, /) -> str: ...

#: The most characters of one memory's `what` a hook shows.
MAX_WHAT_CHARS = 400
#: The most characters of one memory's `why` a hook shows.
MAX_WHY_CHARS = 160
#: The first line of each block of memories the hooks send (prompts.py knows its own
#: text by them when an agent hands it back inside the user's prompt).
SESSION_HEADER = "Project memory (git-aide): always apply these."
FILE_HEADER = "Project memory for "

#: The `why` of an imported rule that only says where it came from (`AGENTS.md:12`).
_ORIGIN_ONLY = re.compile(r"\s*\S+:\d+\s*")


def memory_line(record: JSONObject, path: str = "") -> str:
    """Return a memory as a hook gives it (`path`: its file's, which tells a memory of
    the user's own store: marked `yours`)."""
    from git_aide.core.memory import folded, imported_from, in_user_store

    what = clip(folded(record["what"]), MAX_WHAT_CHARS)
    if "\n" in what:  # code: its lines under the rule, a fence cut short closed again
        what = what.replace("\n", "\n  ") + ("\n  ```" if what.count("```") % 2 else "")
    why = record.get("why")
    if isinstance(why, str) and imported_from(record) and _ORIGIN_ONLY.fullmatch(why):
        why = None  # only where an imported rule came from: bookkeeping, not a reason
    why = f" (why: {clip(' '.join(why.split()), MAX_WHY_CHARS)})" if why else ""
    scope = record.get("scope") or "project"
    if record.get("priority") == "always":
        scope += ", always-on"
    if in_user_store(path):
        scope += ", yours"
    return f"- {what}{why} [{scope}] id:{record['uuid'][:8]}"


def clip(text: str, most: int) -> str:
    """Cut `text` at a word before `most` characters, with an ellipsis: one long memory
    (a procedure with its steps and code) must not take a whole budget; its id follows,
    for aide_recall to give the rest."""
    if len(text) <= most:
        return text
    cut = text[:most - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > most // 2 else cut) + "…"


def fit(header: str, lines: Lines, cap: int, more: str) -> tuple[str, int]:
    """Return `header` and as many `lines` as fit in `cap` characters, with `more` (a
    format taking the count left out) when some did not: (text, how many lines went in).
    When not even one line fits, the `more` line alone, or "" where that does not fit
    either: never a header with nothing under it. Only the lines it looks at are asked
    for: `lines` may render each on demand (Rendered)."""
    text = header
    count = len(lines)
    for i in range(count):
        line = lines[i]
        tail = "" if i == count - 1 else "\n" + more.format(n=count - i - 1)
        if len(text) + 1 + len(line) + len(tail) > cap:
            note = more.format(n=count - i)
            if i == 0:
                return (note if len(note) <= cap else ""), 0
            return (text + "\n" + note if len(text) + 1 + len(note) <= cap else text), i
        text += "\n" + line
    return text, count


class Rendered:
    """The lines of some items, each made by `render` the first time it is asked for: a
    hook shows the first few of its memories and counts the rest (fit)."""

    def __init__(self, items: Sequence[Any], render: Callable[[Any], str]) -> None:
        self._items = items
        self._render = render
        self._made: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, i: int) -> str:
        line = self._made.get(i)
        if line is None:
            line = self._made[i] = self._render(self._items[i])
        return line
