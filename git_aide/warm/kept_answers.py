"""The reading tools' answers an MCP server keeps (Answers), for one state of what they
depend on (ServerState.state), by what identifies a call (call_key): an identical call
is answered again while none of it changed.
"""

from __future__ import annotations

import json
from typing import Generic, TypeVar

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.jsonvalue import JSONObject

#: What a kept answer is (the tools decide).
A = TypeVar("A")
#: What the answers depend on (ServerState.state), compared whole.
State = tuple[object, ...]
#: What identifies a call: its tool, its arguments as JSON text, and what else it names.
CallKey = tuple[str, str, tuple[object, ...]]

#: Answers kept for one state: the identical calls an agent repeats, a few files each.
KEPT_ANSWERS = 64


class Answers(Generic[A]):
    """Keep the reading tools' answers of one state of the memories, config and index."""

    def __init__(self) -> None:
        self._state: State | None = None
        self._kept: dict[CallKey, A] = {}

    def get(self, state: State | None, key: CallKey) -> A | None:
        """Return the answer kept for `key` in this state, or None (a new state forgets the
        answers of the last)."""
        if state is None or state != self._state:
            self.enter(state)
            return None
        return self._kept.get(key)

    def enter(self, state: State | None) -> State | None:
        """Make `state` the current one (the answers of another are forgotten)."""
        if state != self._state:
            self._kept.clear()
            self._state = state
        return state

    def put(self, state: State | None, key: CallKey, answer: A) -> None:
        """Keep an answer worked out in `state` (which must still hold when it ends)."""
        if state is None or state != self._state:
            return
        while len(self._kept) >= KEPT_ANSWERS:
            self._kept.pop(next(iter(self._kept)))
        self._kept[key] = answer

    def clear(self) -> None:
        """Forget every answer (a tool wrote)."""
        self._kept.clear()
        self._state = None


def call_key(name: str, arguments: JSONObject, *more: object) -> CallKey:
    """Return what identifies a call: its tool, its checked arguments, and `more`."""
    return (name, json.dumps(arguments, sort_keys=True, default=str), more)
