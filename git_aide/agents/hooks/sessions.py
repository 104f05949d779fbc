"""The record of one agent session: which memories it was already given (hooks inject
each memory once per session), kept in `<git common dir>/aide/sessions/`, never in the
working tree. Losing a record only costs a memory injected twice.

The record also follows the agent's transcript, to know when the conversation really was
compressed: Gemini CLI fires `PreCompress` before every model request, before it decides
whether to compress, so the event alone says nothing. A transcript that shrank, or (Gemini
CLI) one whose history holds a compression summary it did not hold before, means the
context lost what it was given.
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.jsonvalue import JSON, JSONObject


#: In a Gemini CLI transcript (an append-only JSONL file), the model's turn that follows
#: each compression summary, a literal of its chat compression service, as the rewrite of
#: the history that a compression starts writes it: a message with a new id and no other
#: field (the rewrites its masking of old tool outputs makes give the turn `thoughts` and
#: `tokens` too, and a new id each time). `$rewindTo` is a rewind, which drops messages.
_GEMINI_COMPRESSED = re.compile(
    rb'\{"id":"([^"\\]{1,100})","timestamp":"[^"\\]{0,64}","type":"gemini","content":'
    rb'\[\{"text":"Got it\. Thanks for the additional context!"\}\]\}|(\{"\$rewindTo":)')
#: The most bytes of a transcript read at once: the newest ones (a compression's history
#: is written whole, and every later rewrite of it names the same summary again).
MAX_TRANSCRIPT_READ = 32 << 20
#: The most compression summaries a record remembers.
MAX_SUMMARIES = 16
#: The most files a record remembers the agent opened (the newest).
MAX_OPENED = 128


def session_id(data: JSONObject) -> JSON:
    """Return the session's id: `session_id` (Claude Code, Codex, Gemini CLI), `conversation_id`
    (Cursor), `sessionId` (Copilot CLI, VS Code)."""
    return data.get("session_id") or data.get("conversation_id") or data.get("sessionId")


def record_name(session_id: JSON) -> str:
    """Return the file name of a session's record: its id made safe, and a checksum of the
    whole id, so that two ids made safe alike stay apart (zlib, not hashlib: hooks
    start on every file an agent touches, and hashlib's import is slow)."""
    from zlib import crc32

    text = str(session_id or "unknown")
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "_"
                   for c in text[:48])
    return f"{safe}-{crc32(text.encode('utf-8', 'surrogatepass')):08x}.json"


class Session:
    """Keep what one agent session was already given, in the cache folder."""

    def __init__(self, cache_dir: str, session_id: JSON) -> None:
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
        #: The bytes of the agent's transcript read so far (-1: not looked at yet).
        self.transcript_size = -1
        #: The ids of the compression summaries in that transcript (Gemini CLI); None: not
        #: known (the record started in the middle of a conversation).
        self.summaries: list[str] | None = None
        #: The files (repo-relative) the agent opened in this session, oldest first: the
        #: rules files an agent loads when it opens a file (Claude's nested `CLAUDE.md`)
        #: are in its context from then on.
        self.opened: list[str] = []
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
        transcript = saved.get("transcript")
        if isinstance(transcript, dict):
            size, summaries = transcript.get("size"), transcript.get("summaries")
            if isinstance(size, int) and not isinstance(size, bool) and 0 <= size < 2**53:
                self.transcript_size = size
            if isinstance(summaries, list):
                self.summaries = [x for x in summaries if isinstance(x, str)][-MAX_SUMMARIES:]
        self.opened = opened_in(saved)

    def note_opened(self, rels: list[str]) -> bool:
        """Add files the agent opened (repo-relative); return whether the record changed."""
        new = [r for r in dict.fromkeys(rels) if r not in self.opened]
        if new:
            self.opened = (self.opened + new)[-MAX_OPENED:]
        return bool(new)

    def save(self) -> None:
        """Write the record atomically; a failure only costs a repeat injection."""
        import json

        from git_aide.core.files import write_atomic

        data = json.dumps({"seen": sorted(self.seen), "stops": self.stops,
                           "reflected": self.reflected, "started": self.started,
                           "transcript": {"size": self.transcript_size,
                                          "summaries": self.summaries},
                           "opened": self.opened})
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
        self.transcript_size, self.summaries, self.opened = -1, None, []

    def follow(self, transcript: JSON, agent: str, fresh: bool = False) -> bool:
        """Read what the agent's `transcript` gained since the record last looked; when the
        conversation was compressed meanwhile, forget what the session was given (and say
        True). The state changes only in memory: the caller saves the record.

        Compressed: the transcript shrank (rewritten shorter), or, for Gemini CLI, its
        history holds a compression summary (or a rewind) it did not hold before. The first
        look only takes note (the record may start in the middle of a conversation);
        `fresh`: the conversation starts now, so any summary to come is new."""
        if not isinstance(transcript, str) or not os.path.isabs(transcript):
            return False
        import stat

        try:
            st = os.stat(transcript)
        except (OSError, ValueError):
            return False
        if not stat.S_ISREG(st.st_mode):
            return False
        size, known = st.st_size, self.transcript_size
        if known < 0 or fresh:
            self.transcript_size = size
            if fresh:
                self.summaries = []
            return False
        if size < known:
            self.transcript_size = size  # rewritten shorter: what it held is gone
            self.seen = set()
            return True
        if size == known or agent != "gemini":
            self.transcript_size = size
            return False
        start = max(known, size - MAX_TRANSCRIPT_READ)
        try:
            with open(transcript, "rb") as f:
                f.seek(start)
                new = f.read(size - start)
        except OSError:
            return False
        end = new.rfind(b"\n") + 1  # whole lines only: the rest is read next time
        self.transcript_size = start + end
        found: list[str] = []
        rewound = False
        for m in _GEMINI_COMPRESSED.finditer(new, 0, end):
            if m.group(2):
                rewound = True
            elif (uuid := m.group(1).decode("utf-8", "replace")) not in found:
                found.append(uuid)
        summaries = self.summaries
        compressed = rewound or (summaries is not None and any(
            uuid not in summaries for uuid in found))
        self.summaries = ((summaries or []) + [u for u in found if u not in (summaries or [])]
                          )[-MAX_SUMMARIES:]
        if compressed:
            self.seen = set()
        return compressed


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


def opened_in(record: JSONObject) -> list[str]:
    """Return the files a saved session record says the agent opened (repo-relative)."""
    opened = record.get("opened")
    if not isinstance(opened, list):
        return []
    return [p for p in opened if isinstance(p, str) and p][-MAX_OPENED:]


def started_since(cache_dir: str, since: float) -> list[JSONObject]:
    """Return the session records (as saved) of the sessions started at `since` or later:
    what a long-lived process (the MCP server) asks of its own agent's session."""
    import json

    folder = os.path.join(cache_dir, "sessions")
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    out = []
    for name in names:
        path = os.path.join(folder, name)
        try:
            if os.stat(path).st_mtime < since:
                continue  # written before it started
            with open(path, encoding="utf-8") as f:
                record = json.load(f)
        except (OSError, ValueError, RecursionError):
            continue
        started = record.get("started") if isinstance(record, dict) else None
        if isinstance(started, (int, float)) and not isinstance(started, bool) and \
                started >= since:
            out.append(record)
    return out
