"""What an agent holds already, so that a compact answer leaves it out: the memories its
session's hooks gave it (agents/hooks/sessions.py), and what its own rules files hold
(agents/setup/native.py); and whether a recall should bring the always-on memories."""

from __future__ import annotations

import os
import time

from git_aide.agents.mcp.toolwork import asks_full

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from git_aide.agents.setup.native import Loaded
    from git_aide.core.jsonvalue import JSONObject
    from git_aide.warm.state import ServerState

    #: What an agent holds already: short ids, the files it opened (repo-relative), and
    #: what its own rules files hold.
    Given = tuple[frozenset[str], tuple[str, ...], Callable[[], Loaded | None]]


def given_to(mem: ServerState, a: JSONObject, paths: list[str]) -> Given | None:
    """Return what the agent holds already, for a compact answer by paths or words: the
    memories its session's hooks gave it (the session record started since the server
    did, when it is the only one), and what its own rules files hold (its client named in
    `initialize`, read when asked), those it loaded on opening the files its hooks saw
    included; None for a full answer or by ids. (What this
    connection's own answers gave is given again: an agent asks again for what it no
    longer holds.)"""
    if asks_full(a) or a.get("ids"):
        return None
    ids: set[str] = set()
    repo = mem.repo()
    record = _session_record(mem)
    opened: list[str] = []
    if record is not None:
        from git_aide.agents.hooks.sessions import opened_in

        ids.update(u[:8] for u in record.get("seen", ()) if isinstance(u, str))
        opened = opened_in(record)
    agent, top = _agent_of(mem.client), repo.worktree

    def reads() -> Loaded | None:
        if agent is None or top is None:
            return None
        from git_aide.agents.setup import native

        rels = [os.path.relpath(os.path.abspath(p), top) for p in paths]
        # the rules files it loaded on opening files (its hooks saw them) are held too
        rels = list(dict.fromkeys(opened + rels))
        loaded = native.loaded(agent, top, [r for r in rels if not r.startswith("..")])
        return loaded if loaded.files else None

    return frozenset(ids), tuple(opened), reads


def _agent_of(client: str | None) -> str | None:
    """Return the agent a client's `initialize` name says (None: another client)."""
    name = (client or "").lower()
    for word, agent in (("claude", "claude"), ("codex", "codex"), ("gemini", "gemini"),
                        ("cursor", "cursor"), ("copilot", "copilot"),
                        ("visual studio code", "vscode")):
        if word in name:
            return agent
    return None


#: How recent a change of the sessions folder is too recent to vouch for what was read
#: (a file system's clock ticks every few milliseconds).
RACY_SECONDS = 0.1

#: How long before the server started a session start may have come (an agent runs its
#: SessionStart hooks and starts its MCP servers at once).
SESSION_START_SLACK = 120.0


def always_wanted(mem: ServerState) -> bool:
    """Return whether a recall should bring the always-on memories: once a connection,
    and not when a session-start hook gave them to this session already (a session
    record started since the server did)."""
    if mem.always_given:
        return False
    if _session_records(mem):
        mem.always_given = True
        return False
    return True


def _session_records(mem: ServerState) -> list[JSONObject]:
    """Return the hooks' session records started since the server did (its agent's
    session, when one agent works in the repository): read again only when the sessions
    folder changed (every record is written by a rename in it), not at every call (a
    stat of each of hundreds of records took most of a warm call)."""
    from git_aide.agents.hooks.sessions import started_since
    from git_aide.core.files import stat_sig

    cache_dir = mem.repo().cache_dir
    sig = stat_sig(os.path.join(cache_dir, "sessions"))
    kept = mem.sessions_seen
    if kept is not None and kept[0] == sig:
        return kept[1]
    if sig is None:  # no sessions folder (no hook ran here): none, until one is made
        mem.sessions_seen = (None, [])
        return []
    read_at = time.time()
    records = started_since(cache_dir, mem.born - SESSION_START_SLACK)
    # As git's racy index: a folder changed in the last moments may change again within
    # the same tick of its clock, and look the same: kept only once older than that.
    racy = sig[1] / 1e9 > read_at - RACY_SECONDS
    mem.sessions_seen = None if racy else (sig, records)
    return records


def _session_record(mem: ServerState) -> JSONObject | None:
    """Return this connection's session record: the only one started since the server
    did (two agents at work in one repository: neither, to be safe)."""
    records = _session_records(mem)
    return records[0] if len(records) == 1 else None
