"""`git aide hook post-tool-use`: the memories an agent fetched itself with git-aide's
MCP tools, recorded in the session so that the hooks do not inject them again."""

from __future__ import annotations

from git_aide.agents.hooks.handling import followed_session, open_snapshot
from git_aide.agents.hooks.toolpaths import aide_tool

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.app.context import Contexts
    from git_aide.core.jsonvalue import JSON, JSONObject


def post_tool_use(data: JSONObject, agent: str, contexts: Contexts) -> str | None:
    """Record the memories the agent fetched itself, so hooks do not inject them again."""
    tool = str(data.get("tool_name") or "")
    if not aide_tool(tool, data):
        return None
    import re

    # Claude Code, Codex, Gemini CLI, VS Code: tool_response; Copilot CLI: toolResult (as
    # tool_response); Cursor: tool_output
    response = next((data[k] for k in ("tool_response", "tool_output", "tool_result")
                     if k in data), None)
    found = set(_structured_uuids(response))
    text = _strings(response)
    found |= set(re.findall(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
                            text))
    # the text content names memories by their first 8 hex digits (`1a2b3c4d`)
    short = set(re.findall(r"(?<![0-9a-f-])[0-9a-f]{8}(?![0-9a-f-])", text))
    if not found and not short:
        return None
    if short:
        repo, _cache, snap = open_snapshot(contexts)
        found |= {e.uuid for e in snap.entries if e.uuid[:8] in short}
    else:
        repo = contexts.open().repo
    if not found:
        return None
    session, _followed = followed_session(repo.cache_dir, data, agent)
    session.seen |= found
    session.save()
    return None


def _structured_uuids(value: JSON) -> list[str]:
    """Return the `memories[].uuid` of structured content, wherever it sits in a tool
    response (whole, under structuredContent, or as JSON text in a content block)."""
    if isinstance(value, str) and value.lstrip().startswith("{"):
        import json

        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return []
    if isinstance(value, list):
        return [u for v in value for u in _structured_uuids(v)]
    if not isinstance(value, dict):
        return []
    found: list[str] = []
    mems = value.get("memories")
    if isinstance(mems, list):
        found += [m["uuid"] for m in mems if isinstance(m, dict)
                  and isinstance(m.get("uuid"), str)]
    for key, v in value.items():
        if key != "memories":
            found += _structured_uuids(v)
    return found


def _strings(value: JSON) -> str:
    """Return every string inside a JSON value, one per line (tool responses come in many
    shapes), less what a cut MCP answer names without showing it (agents/mcp/answersize.py):
    its `more` and the line "N more ... not shown: ids" of its text."""
    if isinstance(value, str):
        if value.lstrip().startswith("{"):  # structured content given as JSON text
            import json

            try:
                return _strings(json.loads(value))
            except (ValueError, RecursionError):
                pass
        import re

        left_out = re.compile(r"^\s*(?:- )?\d+ more \S.* not shown\b")
        return "\n".join(x for x in value.splitlines() if not left_out.match(x))
    if isinstance(value, dict):
        return "\n".join(_strings(v) for k, v in value.items() if k != "more")
    if isinstance(value, list):
        return "\n".join(_strings(v) for v in value)
    return ""
