"""What follows a write of memories, whichever front end made it (the command line, the
MCP server): the write counted for `stats` (app/stats.py), and, with aide.export.auto,
the rules files `export` wrote refreshed and staged with the memory (exportsync.py).

The front ends call `after_write` once a remember, update, forget or import has
returned (app/store.py cannot: the rules files are agents/'s, above it). With the
setting off, nothing of export is imported: a write pays for one setting read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.cache.folder import Cache
    from git_aide.core.jsonvalue import JSONObject
    from git_aide.gitio.repo import Repo


@dataclass
class Followed:
    """Record what followed a write: the rules files refreshed (`updated CLAUDE.md (staged)`,
    one line each, and as [{path, state, staged}] for --json) and the warnings."""

    lines: list[str] = field(default_factory=list)
    exported: list[JSONObject] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def after_write(repo: Repo, cache: Cache, kind: str, channel: str, uuids: list[str], *,
                stage: bool = True, changed: bool = True) -> Followed:
    """Count a write (`kind`: remember, update or forget; `channel`: cli or mcp) of the
    memories `uuids`, and refresh the exported rules files when aide.export.auto is set
    and the write `changed` a shared memory (a personal one is never exported).
    `stage`: the write staged its memory, so the refresh stages the files too."""
    from git_aide.app.stats import count

    count(cache, kind, channel, uuids)
    out = Followed()
    if not (changed and repo.worktree is not None and repo.settings.export_auto):
        return out
    from git_aide.agents.rules.exportsync import refresh

    done = refresh(repo, cache, stage=stage)
    out.lines = done.lines()
    out.exported = [{"path": p, "state": s, "staged": staged} for p, s, staged in done.files]
    out.warnings = done.warnings
    return out


def shared(record: JSONObject | None) -> bool:
    """Tell whether a record written is one an export may hold (not a personal memory)."""
    return record is not None and not (record.get("layer") == "preferences"
                                       and record.get("shared") is False)
