"""The JSON each agent takes for a hook's text, event by event: Claude Code, Codex and
VS Code read `hookSpecificOutput`, Gemini CLI the same under its own event names, Cursor
and Copilot CLI flat fields (Copilot CLI configured with VS Code's event names speaks
VS Code's)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.jsonvalue import JSONObject

#: Each event's name in the protocols that take `hookSpecificOutput.hookEventName`.
_CLAUDE_NAMES = {"session-start": "SessionStart", "pre-tool-use": "PreToolUse",
                 "post-tool-use": "PostToolUse", "user-prompt": "UserPromptSubmit"}


#: The events of those protocols whose `additionalContext` reaches the model.
_CLAUDE_CONTEXT = frozenset({"SessionStart", "PreToolUse", "PostToolUse", "UserPromptSubmit",
                             "SubagentStart"})


#: Gemini CLI has no context channel before a tool runs: init hooks pre-tool-use on
#: AfterTool, whose additionalContext is appended to what the tool returned.
_GEMINI_NAMES = {"session-start": "SessionStart", "pre-tool-use": "AfterTool",
                 "post-tool-use": "AfterTool", "user-prompt": "BeforeAgent"}


#: The Gemini CLI events whose `additionalContext` reaches the model.
_GEMINI_CONTEXT = frozenset({"SessionStart", "AfterTool", "BeforeAgent"})


def _flat_copilot(agent: str, data: JSONObject) -> bool:
    """Tell whether the event is Copilot CLI's own camelCase dialect (its `.github/hooks`
    file with event names like `preToolUse`), which answers in flat fields; configured
    with VS Code's event names, or run by VS Code, it sends `hook_event_name` or
    `hookEventName`."""
    return agent == "copilot" and "hook_event_name" not in data and "hookEventName" not in data


def reply(agent: str, event: str, text: str, data: JSONObject) -> JSONObject | None:
    """Return the agent's JSON for `text` on this event; None where it has no channel
    for it."""
    if event == "stop":
        if agent == "cursor":
            return {"followup_message": text}
        if agent == "gemini":
            return {"decision": "deny", "reason": text}
        out: JSONObject = {"decision": "block", "reason": text}
        if agent == "vscode" or (agent == "copilot" and not _flat_copilot(agent, data)):
            # VS Code reads a Stop hook's decision from hookSpecificOutput
            out["hookSpecificOutput"] = {"hookEventName": "Stop", "decision": "block",
                                         "reason": text}
        return out
    if agent == "cursor":
        if event == "session-start":
            return {"additional_context": text}
        if event == "pre-tool-use":
            # no "permission": the user's own approval settings decide, not a memory hook
            return {"agent_message": text}
        return None
    if _flat_copilot(agent, data):
        return {"additionalContext": text} if event in _CLAUDE_NAMES else None
    fired = data.get("hook_event_name")
    if agent == "gemini":
        name = fired if fired in _GEMINI_CONTEXT else _GEMINI_NAMES.get(event)
    else:  # claude, codex, vscode, copilot as VS Code
        # the event that fired, when it has a context channel: an agent rejects a reply
        # that names another event (a hook installed on PostToolUse, say)
        name = fired if fired in _CLAUDE_CONTEXT else _CLAUDE_NAMES.get(event)
    if name is None:
        return None
    return {"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}
