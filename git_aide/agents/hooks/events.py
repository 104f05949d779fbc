"""`git aide hook EVENT`: an agent's hook event in on stdin, context for it out on stdout.

An agent runs these on every session, prompt and file it touches, so they follow the
recall hot path (spawn -> app.context -> sources, no click, no rich, no pydantic) and they
never get in the agent's way: whatever happens they exit 0, print the agent's JSON or
nothing, and say anything else on stderr. `GIT_AIDE_HOOKS=0` turns them off.

This module reads the command line and the event, normalizes each agent's field names,
and hands the event to its handler, whose module alone is imported: session-start
(sessionstart.py), pre-tool-use (filememories.py), post-tool-use (fetched.py),
user-prompt (prompts.py), stop and pre-compact (sessionend.py). The reply is written in
the agent's own dialect (replies.py). The files a tool call is about are toolpaths.py's,
the session record sessions.py's, and what an agent already loads from its own rules
files (never sent again) setup/native.py's.

Per-session state (which memories this session was already given) lives in
`<git common dir>/aide/sessions/`, never in the working tree.
"""

from __future__ import annotations

import os
import sys

from git_aide.agents.hooks.handling import say
from git_aide.agents.hooks.replies import reply
from git_aide.agents.hooks.toolpaths import PATH_KEYS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from git_aide.app.context import Contexts
    from git_aide.core.jsonvalue import JSON, JSONObject

    #: A hook event's work: (event, agent, what opens its contexts) in, the text to send
    #: out.
    Handler = Callable[[JSONObject, str, Contexts], str | None]

EVENTS = ("session-start", "pre-tool-use", "post-tool-use", "user-prompt", "stop",
          "pre-compact")


AGENTS = ("claude", "codex", "copilot", "cursor", "gemini", "vscode")


USAGE = ("usage: git aide hook {session-start|pre-tool-use|post-tool-use|user-prompt|stop|"
         "pre-compact} [--agent claude|codex|copilot|cursor|gemini|vscode]")


def main(argv: list[str], contexts: Contexts | None = None,
         event: bytes | None = None) -> int | None:
    """Run one hook; always 0. Errors are said on stderr by the one error boundary
    (app/boundary.py), the cache's notices after the hook's work, as the CLI says them.

    `contexts`: a warm server's (None: the hook opens its own, app/context.Contexts);
    `event`: the event's bytes, when a server was handed them (None: read on stdin).
    None, with nothing done, when `contexts` do not serve the event's folder (a server's
    for another repository: the client runs the hook itself)."""
    if contexts is None:
        from git_aide.app.context import Contexts

        contexts = Contexts()
    try:
        return _main(argv, contexts, event)
    except BaseException as e:  # noqa: BLE001 -- a hook never breaks the agent's session
        from git_aide.app.boundary import error_line, failure

        message, _status = failure(e)
        if message is not None:
            sys.stderr.write(error_line(message) + "\n")
        return 0
    finally:
        _notices(contexts)


def _notices(contexts: Contexts) -> None:
    """Say the notices of the contexts this hook opened (a damaged cache file it
    rebuilt) in one line on stderr: the agent's own channel stays the reply's."""
    if not contexts.opened:
        return
    from git_aide.app.boundary import notice_line

    line = notice_line(contexts.take_notices())
    if line is not None:
        sys.stderr.write(line + "\n")


def _main(argv: list[str], contexts: Contexts, raw: bytes | None) -> int | None:
    event, agent = _parse(argv)
    if event is None:
        return 0
    if os.environ.get("GIT_AIDE_HOOKS", "").strip().lower() in ("0", "false", "off", "no"):
        return 0
    data = read_event(raw)
    if data is None:
        return 0
    if any(isinstance(data.get(k), str) and "\0" in data[k] for k in ("cwd", "transcript_path")):
        say("the event's cwd or transcript_path holds a NUL byte; nothing to do")
        return 0
    folder = where(data)
    if folder is not None:
        if not contexts.serves(folder):
            return None
        os.chdir(folder)
    text = _handler(event)(data, agent, contexts)
    if text is not None:
        answer = reply(agent, event, text, data)
        if answer is not None:
            import json

            from git_aide.core import controls

            # ensure_ascii=False keeps C1 controls and DEL raw; escaped, still valid JSON.
            sys.stdout.write(controls.escape(json.dumps(answer, ensure_ascii=False)) + "\n")
    return 0


def _in_repo(folder: str) -> bool:
    """Tell whether `folder` or a folder above it holds a `.git` (a look, not a git call)."""
    path = os.path.abspath(folder)
    while True:
        if os.path.exists(os.path.join(path, ".git")):
            return True
        up = os.path.dirname(path)
        if up == path:
            return False
        path = up


def where(data: JSONObject) -> str | None:
    """Return the folder to run in: the event's cwd when it is in a repository, else the folder
    of the file the tool touches, else a workspace root (Cursor sends workspace_roots),
    else the cwd anyway."""
    candidates: list[JSON] = [data.get("cwd")]
    tool_input = data.get("tool_input")
    if isinstance(tool_input, dict):
        for k in PATH_KEYS:
            path = tool_input.get(k)
            if isinstance(path, str) and os.path.isabs(path):
                folder = os.path.dirname(path)
                while not os.path.isdir(folder) and os.path.dirname(folder) != folder:
                    folder = os.path.dirname(folder)  # a file about to be created
                candidates.append(folder)
    roots = data.get("workspace_roots")
    if isinstance(roots, list):
        candidates += roots
    folders = [c for c in candidates if isinstance(c, str) and c and os.path.isdir(c)]
    return next((f for f in folders if _in_repo(f)), folders[0] if folders else None)


def _parse(argv: list[str]) -> tuple[str | None, str]:
    event: str | None = None
    agent = "claude"
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--agent" and args:
            agent = args.pop(0)
        elif arg.startswith("--agent="):
            agent = arg.split("=", 1)[1]
        elif event is None and not arg.startswith("-"):
            event = arg
        else:
            say(f"unknown argument {arg!r}; {USAGE}")
            return None, agent
    if event not in EVENTS or agent not in AGENTS:
        say(f"unknown {'agent ' + repr(agent) if event in EVENTS else 'event ' + repr(event)}"
             f"; {USAGE}")
        return None, agent
    return event, agent


def read_event(raw: bytes | None = None) -> JSONObject | None:
    """Return the event JSON on stdin (or in `raw`, the bytes a server was handed), with
    the field names the handlers read (`_normalize`); None (and a word on stderr) when
    it is not an object."""
    if raw is None:
        if sys.stdin is None or sys.stdin.isatty():
            return None  # run by hand: nothing to read, and never wait for a terminal
        raw = sys.stdin.buffer.read()
    import json

    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        say("stdin is not a JSON event; nothing to do")
        return None
    return _normalize(data) if isinstance(data, dict) else None


def _normalize(data: JSONObject) -> JSONObject:
    """Return the event with the snake_case names the handlers read, whatever the dialect:
    Copilot CLI sends `toolName`, `toolArgs` (a JSON string, or an object), `toolResult`
    and `sessionId`; VS Code `sessionId` and `hookEventName`."""
    aliases = (("toolName", "tool_name"), ("toolResult", "tool_response"),
               ("sessionId", "session_id"), ("hookEventName", "hook_event_name"),
               ("transcriptPath", "transcript_path"), ("stopHookActive", "stop_hook_active"))
    out = dict(data)
    for camel, snake in aliases:
        if snake not in out and camel in out:
            out[snake] = out[camel]
    args = data.get("toolArgs")
    if "tool_input" not in out and args is not None:
        if isinstance(args, str):
            import json

            try:
                args = json.loads(args)
            except (ValueError, RecursionError):
                args = None
        if isinstance(args, dict):
            out["tool_input"] = args
    return out


def _handler(event: str) -> Handler:
    """Return the function that handles `event`, importing only its own module."""
    if event == "session-start":
        from git_aide.agents.hooks.sessionstart import session_start

        return session_start
    if event == "pre-tool-use":
        from git_aide.agents.hooks.filememories import pre_tool_use

        return pre_tool_use
    if event == "post-tool-use":
        from git_aide.agents.hooks.fetched import post_tool_use

        return post_tool_use
    if event == "user-prompt":
        from git_aide.agents.hooks.prompts import user_prompt

        return user_prompt
    from git_aide.agents.hooks.sessionend import pre_compact, stop

    return stop if event == "stop" else pre_compact
