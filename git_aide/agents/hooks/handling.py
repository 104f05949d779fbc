"""What every hook handler uses: a word on stderr, the repository and its snapshot, the
event's program and folder, and the session's record once its transcript was read."""

from __future__ import annotations

import os
import sys

from git_aide.agents.hooks.sessions import Session, session_id

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.app.context import Contexts
    from git_aide.cache.folder import Cache
    from git_aide.core.jsonvalue import JSONObject
    from git_aide.gitio.repo import Repo
    from git_aide.read.snapshot import Snapshot


def say(message: str) -> None:
    """Write one line about the hook on stderr (the agent's own channel stays the
    reply's)."""
    sys.stderr.write(f"git-aide: hook: {message}\n")


def open_snapshot(contexts: Contexts, warn_now: bool = True
                  ) -> tuple[Repo, Cache, Snapshot]:
    """Return (repo, cache, worktree snapshot), with git's questions started first; the
    context is opened by `contexts`, whose notices events.main() says.

    `warn_now=False`: the caller says the snapshot's warnings once it has its answer,
    so that the view is decoded while git still compares the working tree."""
    asked = contexts.ask_early()
    ctx = contexts.open(asked)
    snap = contexts.snapshot(ctx, asked=asked, early=not warn_now)
    if warn_now:
        warn(snap)
    return ctx.repo, ctx.cache, snap


def warn(snap: Snapshot) -> None:
    """Say the snapshot's warnings on stderr."""
    for w in snap.warnings:
        say(w)


def program(agent: str, data: JSONObject) -> str:
    """Return the program that sent the event, for what it loads by itself: VS Code runs
    the hooks of `.claude/settings.json` and `.github/hooks/` too, and says so with its
    own `hookEventName` field."""
    return "vscode" if "hookEventName" in data else agent


def event_cwd(data: JSONObject) -> str | None:
    """Return the event's `cwd` when it is an absolute path."""
    cwd = data.get("cwd")
    return cwd if isinstance(cwd, str) and os.path.isabs(cwd) else None


def followed_session(cache_dir: str, data: JSONObject, agent: str) -> tuple[Session, bool]:
    """Return the session's record after a look at what its transcript gained: (record,
    whether that look changed it, so that it must be saved). A conversation compressed
    since the last look (Gemini CLI says so only in its transcript) has forgotten what it
    was given."""
    session = Session(cache_dir, session_id(data))
    before = (session.transcript_size, session.summaries)
    session.follow(data.get("transcript_path"), agent)
    return session, (session.transcript_size, session.summaries) != before
