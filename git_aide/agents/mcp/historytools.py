"""The MCP tools that read the memories' history: aide_diff and aide_log."""

from __future__ import annotations

import json

from git_aide.agents.mcp.toolwork import budget

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.agents.mcp.toolwork import Answer
    from git_aide.core.jsonvalue import JSONObject
    from git_aide.warm.state import ServerState


def aide_diff(mem: ServerState, a: JSONObject) -> Answer:
    """Return what changed between two sources (as `diff --json`)."""
    from git_aide.agents.mcp.answersize import bound
    from git_aide.agents.mcp.text import diff_text
    from git_aide.app.diff import diff_doc

    repo = mem.repo()
    doc = diff_doc(repo, mem.cache(repo), list(a["args"] or []), cached=a["cached"],
                   paths=tuple(a["paths"] or ()))
    limit = budget(repo)
    doc = bound(doc, ("added", "forgotten", "changed"), limit,
                'aide_recall {"ids": [these ids]} shows an added or changed memory; '
                "aide_diff with paths narrows the comparison")
    return doc, diff_text(doc, limit)


def aide_log(mem: ServerState, a: JSONObject) -> Answer:
    """Return the commits that changed memories (as `log --json`), from `skip` on."""
    from git_aide.agents.mcp.answersize import bound_log
    from git_aide.agents.mcp.text import log_text
    from git_aide.app.log import log_doc

    repo = mem.repo()
    skip, limit, reverse = a["skip"], a["limit"], a["reverse"]
    # No revisions is `git aide log`'s default (HEAD, or nothing before the first
    # commit), not a literal HEAD that git would refuse there. `skip` counts from the
    # newest, as `git log --skip` does before --reverse.
    doc = log_doc(repo, mem.cache(repo), list(a["revs"] or []), uuid=a["uuid"],
                  paths=tuple(a["paths"] or ()), reverse=reverse and not skip,
                  limit=None if limit is None else limit + skip, all_refs=a["all"])
    if skip:
        doc["commits"] = doc["commits"][skip:]
        if reverse:
            doc["commits"].reverse()
    total = len(doc["commits"])

    def hint(shown: int) -> str:
        # Oldest first, the newer commits are the rest: the same skip, a smaller limit.
        more = ({"skip": skip, "limit": total - shown} if reverse
                else {"skip": skip + shown} | ({"limit": limit - shown} if limit else {}))
        return (f"call aide_log again with {json.dumps(more)[1:-1]} (and the same revs, "
                "uuid and paths)")

    cap = budget(repo)
    doc = bound_log(doc, cap, hint)
    return doc, log_text(doc, cap)
