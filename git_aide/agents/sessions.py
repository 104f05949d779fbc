"""The record of one agent session: which memories it was already given (hooks inject
each memory once per session), kept in `<git common dir>/aide/sessions/`, never in the
working tree. Losing a record only costs a memory injected twice.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def session_id(data: dict[str, Any]) -> Any:
    """The session's id: `session_id` (Claude Code, Codex, Gemini CLI), `conversation_id`
    (Cursor), `sessionId` (Copilot CLI, VS Code)."""
    return data.get("session_id") or data.get("conversation_id") or data.get("sessionId")


def record_name(session_id: Any) -> str:
    """The file name of a session's record: its id made safe, and a checksum of the
    whole id, so that two ids made safe alike stay apart (zlib, not hashlib: hooks
    start on every file an agent touches, and hashlib's import is slow)."""
    from zlib import crc32

    text = str(session_id or "unknown")
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "_"
                   for c in text[:48])
    return f"{safe}-{crc32(text.encode('utf-8', 'surrogatepass')):08x}.json"


class Session:
    """What one agent session was already given, kept in the cache folder."""

    def __init__(self, cache_dir: str, session_id: Any) -> None:
        #: The file holding the record.
        self.path = os.path.join(cache_dir, "sessions", record_name(session_id))
        #: uuids already injected or fetched in this session.
        self.seen: set[str] = set()
        #: How many times the agent stopped (for the reflect nudge).
        self.stops = 0
        #: Whether the last stop was answered with the reflect question (for agents that do
        #: not say that a stop hook made them go on).
        self.reflected = False
        #: When the session last started (seconds since the epoch; 0: not recorded).
        self.started = 0.0
        try:
            import json

            with open(self.path, encoding="utf-8") as f:
                saved = json.load(f)
        # A damaged, truncated or deeply nested record, or a folder in its place, is no
        # record: the session starts afresh (a memory may be injected twice, no more).
        except (OSError, ValueError, RecursionError, MemoryError):
            return
        if not isinstance(saved, dict):
            return
        seen, stops = saved.get("seen"), saved.get("stops")
        if isinstance(seen, list):
            self.seen = {u for u in seen if isinstance(u, str)}
        if isinstance(stops, int) and not isinstance(stops, bool) and 0 <= stops < 2**31:
            self.stops = stops
        self.reflected = saved.get("reflected") is True
        started = saved.get("started")
        if isinstance(started, (int, float)) and not isinstance(started, bool) and (
                0 <= started < 2**40):
            self.started = float(started)

    def save(self) -> None:
        """Write the record atomically; a failure only costs a repeat injection."""
        import json

        from git_aide.core.files import write_atomic

        data = json.dumps({"seen": sorted(self.seen), "stops": self.stops,
                           "reflected": self.reflected, "started": self.started})
        try:
            # Not synced to the disk: a hook runs on every file an agent touches, and a
            # record lost in a crash only costs a memory injected twice.
            write_atomic(self.path, data.encode(), sync=False)
        except OSError:
            pass

    def clear(self) -> None:
        """Forget the session (after compaction the context holds none of it)."""
        import contextlib

        with contextlib.suppress(OSError):
            os.unlink(self.path)
        self.seen, self.stops, self.reflected, self.started = set(), 0, False, 0.0


def prune(cache_dir: str, days: float = 7.0) -> None:
    """Drop the records of sessions idle for a week."""
    import time

    folder = os.path.join(cache_dir, "sessions")
    try:
        names = os.listdir(folder)
    except OSError:
        return
    horizon = time.time() - days * 86400
    for name in names:
        path = os.path.join(folder, name)
        try:
            if os.stat(path).st_mtime < horizon:
                os.unlink(path)
        except OSError:
            continue
