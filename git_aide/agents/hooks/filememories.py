"""`git aide hook pre-tool-use`: the scoped memories of the files a tool touches, each
once a session, but those the agent loads itself from its own rules files. The prompt
hook (prompts.py) gives the files a prompt mentions the same way."""

from __future__ import annotations

import os

from git_aide.agents.hooks.geminimask import keep_line, kept_by_masking, masks
from git_aide.agents.hooks.handling import (
    event_cwd,
    followed_session,
    open_snapshot,
    program,
    warn,
)
from git_aide.agents.hooks.lines import FILE_HEADER, Rendered, fit, memory_line
from git_aide.agents.hooks.toolpaths import tool_paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.app.context import Contexts
    from git_aide.core.jsonvalue import JSONObject


def pre_tool_use(data: JSONObject, agent: str, contexts: Contexts) -> str | None:
    """Return the scoped memories of the files the tool is about to touch (or, on
    Gemini's AfterTool, has just read), each once a session, but those the agent loads
    itself."""
    paths = tool_paths(data)
    return file_memories(data, agent, paths, contexts) if paths else None


def file_memories(data: JSONObject, agent: str, paths: list[str],
                  contexts: Contexts, reserve: int = 0) -> str | None:
    """Return the scoped memories of `paths` (absolute) not given to this session yet and
    not in the agent's own rules files, within aide.hooks.fileChars less `reserve` (what
    the reply holds besides)."""
    from git_aide.app.answers import recall_hits
    from git_aide.app.queries import RecallQuery
    from git_aide.core.errors import AideError

    repo, cache, snap = open_snapshot(contexts, warn_now=False)
    top = repo.worktree
    if top is None:
        return None
    from git_aide.core.files import relative_inside

    rels = [r for r in (relative_inside(top, p) for p in paths) if r]
    if not rels:
        return None  # outside the repository, say: nothing to add
    try:
        hits = recall_hits(repo, cache, snap, RecallQuery(
            [os.path.join(top, r) for r in rels], scoped_only=True), count=False,
            memo=contexts.memo())
    except AideError:
        return None
    warn(snap)
    session, followed = followed_session(repo.cache_dir, data, agent)
    followed = session.note_opened(rels) or followed
    fresh = [h.entry for h in hits if h.entry.compiled is not None
             and h.entry.uuid not in session.seen]
    if not session.started:
        # No session start came (a client without that hook): the always-on memories
        # come with the first file, once.
        from git_aide.app.answers import always_on

        have_ids = {e.uuid for e in fresh}
        fresh += [e for e in always_on(snap) if e.uuid not in session.seen
                  and e.uuid not in have_ids]
    # Each memory's record read once (its rules-file check and its line share it).
    records = [(e, e.read_record()) for e in fresh]
    if records:
        from git_aide.agents.setup import native

        have = native.loaded(program(agent, data), top, rels, event_cwd(data))
        if have.files:
            records = [(e, r) for e, r in records if not have.has(r)]
    fresh = [e for e, _r in records]
    if not fresh:
        if followed:
            session.save()
        return None
    cap = max(0, repo.settings.hooks_file_chars - reserve)
    named = ", ".join(rels[:3]) + (f" and {len(rels) - 3} more" if len(rels) > 3 else "")
    header = f"{FILE_HEADER}{named} (git-aide; follow it):"
    # Rendered as fit() reaches them: a file under a rules file of hundreds of memories
    # shows the first few.
    lines = Rendered(records, lambda er: memory_line(er[1], er[0].path))
    more = "{n} more: call aide_recall for " + ", ".join(rels[:3])
    text, shown = fit(header, lines, cap, more)
    if shown and masks(agent, data) and not kept_by_masking(data, text, records[0][1]):
        # the most specific memory once more, last, where Gemini CLI's masking keeps it
        keep = keep_line(records[0][1], rels[0])
        kept, n = fit(header, lines, cap - len(keep) - 1, more)
        if n:
            text, shown = kept + "\n" + keep, n
    if not shown:
        if followed:
            session.save()
        return text or None  # not even one fits: at most say where they are
    session.seen.update(e.uuid for e in fresh[:shown])
    session.save()
    from git_aide.app.stats import count

    count(cache, "recall", "hook", [e.uuid for e in fresh[:shown]])
    return text
