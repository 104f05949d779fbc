"""`git aide hook EVENT`: an agent's hook event in on stdin, context for it out on stdout.

An agent runs these on every session, prompt and file it touches, so they follow the
recall hot path (spawn -> app.context -> sources, no click, no rich, no pydantic) and they
never get in the agent's way: whatever happens they exit 0, print the agent's JSON or
nothing, and say anything else on stderr. `GIT_AIDE_HOOKS=0` turns them off.

Each agent speaks its own dialect: Claude Code, Codex and VS Code take
`hookSpecificOutput`, Gemini CLI the same under its own event names, Cursor and Copilot
CLI flat fields (Copilot CLI configured with VS Code's event names speaks VS Code's). The
files an event is about come from each agent's tools: a file tool's path, the files of a
Codex or VS Code `apply_patch`, the files a shell command reads (`cat`, `sed -n`, `rg`
...), Gemini's `read_many_files`. What an agent already loads from its own rules files
(native.py) is never sent again.

Per-session state (which memories this session was already given) lives in
`<git common dir>/aide/sessions/`, never in the working tree.

Longer than most modules, on purpose: six events in six agents' dialects are one
table of behaviour (what each event injects, in which field each agent reads it), kept
together so that a change to one event is seen against the others; which files a tool
call is about is toolpaths.py's, the session record sessions.py's.
"""

from __future__ import annotations

import os
import re
import sys

from git_aide.agents.hooks.sessions import Session, prune, session_id
from git_aide.agents.hooks.toolpaths import (
    MAX_EVENT_PATHS,
    PATH_KEYS,
    absolute,
    aide_tool,
    tool_paths,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from git_aide.app.context import Context
    from git_aide.cache.folder import Cache
    from git_aide.gitio.repo import Repo
    from git_aide.read.snapshot import Snapshot

EVENTS = ("session-start", "pre-tool-use", "post-tool-use", "user-prompt", "stop",
          "pre-compact")
AGENTS = ("claude", "codex", "copilot", "cursor", "gemini", "vscode")
USAGE = ("usage: git aide hook {session-start|pre-tool-use|post-tool-use|user-prompt|stop|"
         "pre-compact} [--agent claude|codex|copilot|cursor|gemini|vscode]")

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
#: The most characters of one memory's `what` a hook shows.
MAX_WHAT_CHARS = 400
#: The most characters of one memory's `why` a hook shows.
MAX_WHY_CHARS = 160
#: Gemini CLI masks an older tool output to its first and last this many characters.
MASK_KEEP = 250
#: What reads as a decision or a correction worth keeping, in one sentence of the user's:
#: a decision stated ("we decided", "we've agreed", "the decision is", "let's go with"), a
#: rule from now on, an imperative "always ..." or "never ..." opening the sentence, a
#: correction ("no, use ...", "use X instead of Y", "stop using").
_DECISION = (
    r"\bwe(?:'ve|'d|\s+have|\s+had)?(?:\s+(?!not\b|never\b)[a-z]+)?\s+"
    r"(?:decided|agreed|settled\s+on|standardi[sz]ed\s+on)\b"
    r"|\b(?:the|our)\s+(?:team'?s\s+)?decision\s+(?:is|was)\b"
    r"|\blet'?s\s+(?:go\s+with|stick\s+with|standardi[sz]e\s+on|always|never)\b"
    r"|\b(?:from\s+now\s+on|going\s+forward|from\s+here\s+on|henceforth)\b"
    r"|^(?:(?:please|so|and|also|then|but|ok|okay),?\s+)?(?:always|never)\s+[a-z]"
    r"|\b(?:always|never)\s+use\b|\bwe\s+(?:always|never)\b|\b(?:do\s+not|don'?t)\s+ever\b"
    r"|^no,?\s+(?:use|don'?t|do\s+not|we)\b|^actually,?\s+(?:use|we|it)\b"
    r"|\bremember\s+(?:that|to)\b|\bthat'?s\s+wrong\b|\bstop\s+using\b"
    r"|\b(?:use|prefer|call)\s+\S+(?:\s+\S+){0,4}\s+instead\s+of\b"
    r"|\b(?:we|i)\s+prefer\b|^prefer\b")
#: A sentence that asks rather than states: a question mark, or a question's opening
#: ("can you ...", "should we ...", "what did we ...").
_QUESTION = (
    r"\?[\"')\]]*$"
    r"|^(?:can|could|would|will|should|shall|do|does|did|is|are|was|were|have|has|had)\s+"
    r"(?:we|you|i|it|they|this|that|there|the)\b"
    r"|^(?:what|why|how|which|when|where|who|whether)\s+(?:do|does|did|is|are|was|were|"
    r"should|would|could|can|will|have|has|had)\b")
NUDGE = ("This prompt reads like a correction or a decision. If it should hold beyond this "
         "session, call aide_remember (what, why, and a scope glob where it applies).")
REFLECT = ("Before you stop: did this session settle anything worth remembering (a "
           "decision, a constraint, a gotcha the code does not show)? If so, call "
           "aide_remember; if not, just stop.")
#: The first line of each block of memories the hooks send (user_prompt knows its own
#: text by them when an agent hands it back inside the user's prompt).
SESSION_HEADER = "Project memory (git-aide): always apply these."
FILE_HEADER = "Project memory for "


def main(argv: list[str]) -> int:
    """Run one hook; always 0. Errors are said on stderr by the one error boundary
    (app/boundary.py), the cache's notices after the hook's work, as the CLI says them."""
    opened: list[Context] = []
    try:
        return _main(argv, opened)
    except BaseException as e:  # noqa: BLE001 -- a hook never breaks the agent's session
        from git_aide.app.boundary import error_line, failure

        message, _status = failure(e)
        if message is not None:
            sys.stderr.write(error_line(message) + "\n")
        return 0
    finally:
        _notices(opened)


def _notices(opened: list[Context]) -> None:
    """The notices of the contexts this hook opened (a damaged cache file it rebuilt),
    in one line on stderr: the agent's own channel stays the reply's."""
    if not opened:
        return
    from git_aide.app.boundary import notice_line

    line = notice_line(list(dict.fromkeys(n for c in opened for n in c.take_notices())))
    if line is not None:
        sys.stderr.write(line + "\n")


def _say(message: str) -> None:
    sys.stderr.write(f"git-aide: hook: {message}\n")


def _main(argv: list[str], opened: list[Context]) -> int:
    event, agent = _parse(argv)
    if event is None:
        return 0
    if os.environ.get("GIT_AIDE_HOOKS", "").strip().lower() in ("0", "false", "off", "no"):
        return 0
    data = _read_event()
    if data is None:
        return 0
    data = _normalize(data)
    if any(isinstance(data.get(k), str) and "\0" in data[k] for k in ("cwd", "transcript_path")):
        _say("the event's cwd or transcript_path holds a NUL byte; nothing to do")
        return 0
    where = _where(data)
    if where is not None:
        os.chdir(where)
    text = HANDLERS[event](data, agent, opened)
    if text is not None:
        reply = _reply(agent, event, text, data)
        if reply is not None:
            import json

            from git_aide.core import controls

            # ensure_ascii=False keeps C1 controls and DEL raw; escaped, still valid JSON.
            sys.stdout.write(controls.escape(json.dumps(reply, ensure_ascii=False)) + "\n")
    return 0


def _in_repo(folder: str) -> bool:
    """Whether `folder` or a folder above it holds a `.git` (a look, not a git call)."""
    path = os.path.abspath(folder)
    while True:
        if os.path.exists(os.path.join(path, ".git")):
            return True
        up = os.path.dirname(path)
        if up == path:
            return False
        path = up


def _where(data: dict[str, Any]) -> str | None:
    """The folder to run in: the event's cwd when it is in a repository, else the folder
    of the file the tool touches, else a workspace root (Cursor sends workspace_roots),
    else the cwd anyway."""
    candidates: list[Any] = [data.get("cwd")]
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
            _say(f"unknown argument {arg!r}; {USAGE}")
            return None, agent
    if event not in EVENTS or agent not in AGENTS:
        _say(f"unknown {'agent ' + repr(agent) if event in EVENTS else 'event ' + repr(event)}"
             f"; {USAGE}")
        return None, agent
    return event, agent


def _read_event() -> dict[str, Any] | None:
    """The event JSON on stdin; None (and a word on stderr) when it is not an object."""
    if sys.stdin is None or sys.stdin.isatty():
        return None  # run by hand: nothing to read, and never wait for a terminal
    raw = sys.stdin.buffer.read()
    import json

    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        _say("stdin is not a JSON event; nothing to do")
        return None
    return data if isinstance(data, dict) else None


def _normalize(data: dict[str, Any]) -> dict[str, Any]:
    """The event with the snake_case names the handlers read, whatever the dialect:
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


def _flat_copilot(agent: str, data: dict[str, Any]) -> bool:
    """Whether the event is Copilot CLI's own camelCase dialect (its `.github/hooks` file
    with event names like `preToolUse`), which answers in flat fields; configured with
    VS Code's event names, or run by VS Code, it sends `hook_event_name`/`hookEventName`."""
    return agent == "copilot" and "hook_event_name" not in data and "hookEventName" not in data


def _reply(agent: str, event: str, text: str, data: dict[str, Any]) -> dict[str, Any] | None:
    """The agent's JSON for `text` on this event; None where it has no channel for it."""
    if event == "stop":
        if agent == "cursor":
            return {"followup_message": text}
        if agent == "gemini":
            return {"decision": "deny", "reason": text}
        reply: dict[str, Any] = {"decision": "block", "reason": text}
        if agent == "vscode" or (agent == "copilot" and not _flat_copilot(agent, data)):
            # VS Code reads a Stop hook's decision from hookSpecificOutput
            reply["hookSpecificOutput"] = {"hookEventName": "Stop", "decision": "block",
                                           "reason": text}
        return reply
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


# -- rendering within a budget -------------------------------------------------------------

#: The `why` of an imported rule that only says where it came from (`AGENTS.md:12`).
_ORIGIN_ONLY = re.compile(r"\s*\S+:\d+\s*")


def _line(record: dict[str, Any], path: str = "") -> str:
    """A memory as a hook gives it (`path`: its file's, which tells a memory of the
    user's own store: marked `yours`)."""
    from git_aide.core.memory import folded, imported_from, in_user_store

    what = _clip(folded(record["what"]), MAX_WHAT_CHARS)
    if "\n" in what:  # code: its lines under the rule, a fence cut short closed again
        what = what.replace("\n", "\n  ") + ("\n  ```" if what.count("```") % 2 else "")
    why = record.get("why")
    if isinstance(why, str) and imported_from(record) and _ORIGIN_ONLY.fullmatch(why):
        why = None  # only where an imported rule came from: bookkeeping, not a reason
    why = f" (why: {_clip(' '.join(why.split()), MAX_WHY_CHARS)})" if why else ""
    scope = record.get("scope") or "project"
    if record.get("priority") == "always":
        scope += ", always-on"
    if in_user_store(path):
        scope += ", yours"
    return f"- {what}{why} [{scope}] id:{record['uuid'][:8]}"


def _clip(text: str, most: int) -> str:
    """`text` cut at a word before `most` characters, with an ellipsis: one long memory (a
    procedure with its steps and code) must not take a whole budget; its id follows, for
    aide_recall to give the rest."""
    if len(text) <= most:
        return text
    cut = text[:most - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > most // 2 else cut) + "…"


def fit(header: str, lines: list[str], cap: int, more: str) -> tuple[str, int]:
    """`header` and as many `lines` as fit in `cap` characters, with `more` (a format
    taking the count left out) when some did not: (text, how many lines went in). When
    not even one line fits, the `more` line alone, or "" where that does not fit either:
    never a header with nothing under it."""
    text = header
    for i, line in enumerate(lines):
        tail = "" if i == len(lines) - 1 else "\n" + more.format(n=len(lines) - i - 1)
        if len(text) + 1 + len(line) + len(tail) > cap:
            note = more.format(n=len(lines) - i)
            if i == 0:
                return (note if len(note) <= cap else ""), 0
            return (text + "\n" + note if len(text) + 1 + len(note) <= cap else text), i
        text += "\n" + line
    return text, len(lines)




def _relative(top: str, path: str) -> str | None:
    """A path made repo-relative; None when it lies outside the working tree."""
    real_top = os.path.realpath(top)
    real = os.path.realpath(path)
    if real == real_top:
        return ""
    if not real.startswith(real_top.rstrip(os.sep) + os.sep):
        return None
    return os.path.relpath(real, real_top).replace(os.sep, "/")


# -- the events ----------------------------------------------------------------------------

def _open(opened: list[Context], warn_now: bool = True) -> tuple[Repo, Cache, Snapshot]:
    """(repo, cache, worktree snapshot), with git's questions started first; the context
    is added to `opened`, whose notices main() says.

    `warn_now=False`: the caller says the snapshot's warnings once it has its answer,
    so that the view is decoded while git still compares the working tree."""
    from git_aide.gitio.spawn import early

    asked = early(False, None)
    from git_aide.app.context import open_context

    ctx = open_context(asked)
    opened.append(ctx)
    snap = ctx.snapshot(asked=asked, early=not warn_now, users=True)
    if warn_now:
        _warn(snap)
    return ctx.repo, ctx.cache, snap


def _warn(snap: Snapshot) -> None:
    for w in snap.warnings:
        _say(w)


def _program(agent: str, data: dict[str, Any]) -> str:
    """The program that sent the event, for what it loads by itself: VS Code runs the
    hooks of `.claude/settings.json` and `.github/hooks/` too, and says so with its own
    `hookEventName` field."""
    return "vscode" if "hookEventName" in data else agent


def _cwd(data: dict[str, Any]) -> str | None:
    cwd = data.get("cwd")
    return cwd if isinstance(cwd, str) and os.path.isabs(cwd) else None


def pre_tool_use(data: dict[str, Any], agent: str, opened: list[Context]) -> str | None:
    """The scoped memories of the files the tool is about to touch (or, on Gemini's
    AfterTool, has just read), each once a session, but those the agent loads itself."""
    paths = tool_paths(data)
    return _file_memories(data, agent, paths, opened) if paths else None


def _file_memories(data: dict[str, Any], agent: str, paths: list[str],
                   opened: list[Context], reserve: int = 0) -> str | None:
    """The scoped memories of `paths` (absolute) not given to this session yet and not in
    the agent's own rules files, within aide.hooks.fileChars less `reserve` (what the
    reply holds besides)."""
    from git_aide.app.answers import recall_hits
    from git_aide.core.errors import AideError

    repo, cache, snap = _open(opened, warn_now=False)
    top = repo.worktree
    if top is None:
        return None
    rels = [r for r in (_relative(top, p) for p in paths) if r]
    if not rels:
        return None  # outside the repository, say: nothing to add
    try:
        hits = recall_hits(repo, cache, snap, [os.path.join(top, r) for r in rels],
                           count=False, scoped_only=True)
    except AideError:
        return None
    _warn(snap)
    session, followed = _session(repo.cache_dir, data, agent)
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
    if fresh:
        from git_aide.agents.setup import native

        have = native.loaded(_program(agent, data), top, rels, _cwd(data))
        if have.files:
            fresh = [e for e in fresh if not have.has(e.record)]
    if not fresh:
        if followed:
            session.save()
        return None
    cap = max(0, repo.settings.hooks_file_chars - reserve)
    named = ", ".join(rels[:3]) + (f" and {len(rels) - 3} more" if len(rels) > 3 else "")
    header = f"{FILE_HEADER}{named} (git-aide; follow it):"
    lines = [_line(e.record, e.path) for e in fresh]
    more = "{n} more: call aide_recall for " + ", ".join(rels[:3])
    text, shown = fit(header, lines, cap, more)
    if shown and _masks(agent, data) and not _kept_by_masking(data, text, fresh[0].record):
        # the most specific memory once more, last, where Gemini CLI's masking keeps it
        keep = _keep_line(fresh[0].record, rels[0])
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


def _masks(agent: str, data: dict[str, Any]) -> bool:
    """Whether the reply is appended to a tool's output that Gemini CLI masks once it is
    old (its AfterTool; BeforeAgent's context goes in the prompt, never masked)."""
    return agent == "gemini" and "tool_name" in data and data.get(
        "hook_event_name", "AfterTool") == "AfterTool"


def _gemini_masked(data: dict[str, Any], text: str) -> str:
    """What Gemini CLI 0.61 keeps of the tool's output with `text` appended, once it masks
    it (ToolOutputMaskingService), as JSON text: the reply goes after the tool's text in
    `<hook_context>`, `<` and `>` as entities; a shell command's output keeps its last
    section whole, or the last 10 lines of its Output section; any other output, as
    indented JSON (`{"output": ...}`), its first and last MASK_KEEP characters when over
    twice that. An output given in parts (read_many_files) counts as long."""
    import json
    import re

    response = data.get("tool_response")
    llm = response.get("llmContent") if isinstance(response, dict) else None
    if not isinstance(llm, str):
        llm = " " * (4 * MASK_KEEP)
    output = llm + ("\n\n<hook_context>" + text.replace("<", "&lt;").replace(">", "&gt;")
                    + "</hook_context>")
    if data.get("tool_name") == "run_shell_command":
        sections = list(re.finditer(r"^(Output|Error|Exit Code|Signal|Background PIDs|"
                                    r"Process Group PGID): ", output, re.M))
        if sections and sections[-1].group(1) != "Output":
            kept = output[sections[-1].start():]
        else:
            kept = "\n".join(output.split("\n")[-10:])
        return json.dumps(kept, ensure_ascii=False)
    whole = json.dumps({"output": output}, indent=2, ensure_ascii=False)
    if len(whole) <= 2 * MASK_KEEP:
        return whole
    return whole[:MASK_KEEP] + "\n... [TRUNCATED] ...\n" + whole[-MASK_KEEP:]


def _as_masked(text: str) -> str:
    """`text` as it stands in Gemini CLI's masked JSON (entities, then JSON escapes)."""
    import json

    return json.dumps(text.replace("<", "&lt;").replace(">", "&gt;"), ensure_ascii=False)[1:-1]


def _kept_by_masking(data: dict[str, Any], text: str, record: dict[str, Any]) -> bool:
    """Whether the start of `record`'s text (what the model needs to know the rule)
    is still there once Gemini CLI masks the tool output `text` is appended to."""
    what = " ".join(record["what"].split())
    return _as_masked(what[:40]) in _gemini_masked(data, text)


def _keep_line(record: dict[str, Any], rel: str) -> str:
    """The line that restates `record` in few enough characters to stay whole in what
    Gemini CLI's masking keeps of the end of a tool output (MASK_KEEP less its own JSON
    and the closing tag)."""
    name = rel.rsplit("/", 1)[-1]
    tail = f" id:{record['uuid'][:8]}"
    room = MASK_KEEP - len('</hook_context>"\n}') - 2  # and the escaped line break

    def cost(text: str) -> int:  # JavaScript counts UTF-16 code units
        return len(_as_masked(text).encode("utf-16-le")) // 2

    what = " ".join(record["what"].split())
    line = f"Most specific to {name}: {what}{tail}"
    most = len(what)
    while cost(line) > room and most > 20:
        most -= max(1, (cost(line) - room) // 2)
        line = f"Most specific to {name}: {_clip(what, most)}{tail}"
    return line


def _session(cache_dir: str, data: dict[str, Any], agent: str) -> tuple[Session, bool]:
    """The session's record, after a look at what its transcript gained: (record, whether
    that look changed it, so that it must be saved). A conversation compressed since the
    last look (Gemini CLI says so only in its transcript) has forgotten what it was given."""
    session = Session(cache_dir, session_id(data))
    before = (session.transcript_size, session.summaries)
    session.follow(data.get("transcript_path"), agent)
    return session, (session.transcript_size, session.summaries) != before


def _repeatable_start(agent: str, data: dict[str, Any]) -> bool:
    """Whether this agent may send SessionStart more than once for one session: VS Code
    runs the hooks of `.claude/settings.json` and `.github/hooks/` alike (two git-aide
    hooks, one session), and Copilot CLI has fired it on every prompt. Those add only what
    the session was not given yet, as does a resumed session; the others start afresh,
    as a new context holds nothing."""
    source = data.get("source")
    if source in ("clear", "compact"):
        return False
    if source == "resume":
        return True  # the resumed transcript holds what the session was given
    return agent in ("copilot", "vscode") or "hookEventName" in data  # VS Code's own field


def _importance(entry: Any, record: dict[str, Any]) -> tuple[int, int, int, int, str, int]:
    """The order of always-on memories: priority `always` first, team guidelines before
    personal preferences, memories written by hand (newest first: a stable sort keeps
    that) before imported rules, which keep their file's own order."""
    rank = 0 if record.get("priority") == "always" else 1
    layer = {"guidelines": 0, "preferences": 1}.get(entry.layer, 0)
    from git_aide.agents.setup.native import imported_from

    origin = imported_from(record)
    if origin is None:
        return (rank, layer, 0, 0, "", 0)
    return (rank, layer, 1, origin[0].count("/"), origin[0], origin[1])


def session_start(data: dict[str, Any], agent: str, opened: list[Context]) -> str | None:
    """The always-on memories by importance, then what this branch changed since it left
    its base, but what the agent already loads from its own rules files."""
    repo, cache, snap = _open(opened)
    prune(repo.cache_dir)
    session = Session(repo.cache_dir, session_id(data))
    if not (_repeatable_start(agent, data) and session.started):
        session.clear()  # a new, cleared or compacted context holds nothing yet
    # a conversation that starts now: any compression summary its transcript gets is new
    session.follow(data.get("transcript_path"), agent,
                   fresh=data.get("source") in ("startup", "clear"))
    import time

    session.started = time.time()
    cap = repo.settings.hooks_session_chars
    chosen = []
    for e in snap.entries:
        if e.uuid in session.seen:
            continue
        if e.layer in ("guidelines", "preferences"):
            chosen.append((e, e.record))
        else:
            r = e.record
            if r.get("priority") == "always":
                chosen.append((e, r))
    top = repo.worktree
    have = None
    if top is not None:
        from git_aide.agents.setup import native

        have = native.loaded(_program(agent, data), top, (), _cwd(data))
        if have.files:
            chosen = [(e, r) for e, r in chosen if not have.has(r)]
            chosen = _not_restated(repo, cache, have, chosen)
    chosen.sort(key=lambda er: er[0].updated_at, reverse=True)
    chosen.sort(key=lambda er: _importance(*er))
    records = [r for _e, r in chosen]
    parts: list[str] = []
    gave: list[str] = []  # for the per-machine counts
    used = 0
    if records:
        text, shown = fit(SESSION_HEADER, [_line(r, e.path) for e, r in chosen], cap,
                          "{n} more: call aide_memories (layer guidelines or preferences)")
        if text:
            parts.append(text)
        used = len(text)
        gave += [r["uuid"] for r in records[:shown]]
        session.seen.update(gave)
    try:
        branch = _branch_changes(repo, cache)
    except Exception as e:  # noqa: BLE001 -- the always-on memories still go in
        _say(f"what this branch changed: {e}")
        branch = None
    if branch is not None and cap - used > 80:
        base, changed = branch
        changed = [(kind, r) for kind, r in changed if r["uuid"] not in session.seen
                   and not (have is not None and have.files and have.has(r))]
        lines = [_line(r).replace("- ", f"- {kind}: ", 1) for kind, r in changed]
        text, shown = fit(f"\nMemories this branch added or changed since {base}:", lines,
                          cap - used - 1, "{n} more: run `git aide diff " + base + "`")
        if shown:
            parts.append(text)
            gave += [r["uuid"] for _kind, r in changed[:shown]]
            session.seen.update(r["uuid"] for _kind, r in changed[:shown])
    session.save()
    if gave:
        from git_aide.app.stats import count

        count(cache, "session", "hook", gave)
    return "\n".join(parts) if parts else None


#: The cosine from which a memory restates a rule the agent loads (all-MiniLM-L6-v2:
#: a rule and its rewording 0.8 to 0.95, rules that share only a topic up to 0.75; see
#: app/meaning.py's DUPLICATE_COSINE).
RESTATED_COSINE = 0.8


def _not_restated(repo: Any, cache: Any, have: Any, chosen: list[Any]) -> list[Any]:
    """Leave out the (entry, record) pairs whose memory says by meaning what a rule the
    agent loads says, when a model is configured (at a session start: the rules' vectors
    are kept with the memories', by their text, so a rules file is embedded once)."""
    if not chosen or not repo.config("aide.semantic.model"):
        return chosen
    try:
        import hashlib

        from git_aide.agents.setup.native import names_held
        from git_aide.app.semantic import Semantic

        sem = Semantic(repo, cache)
        if not sem.ready(say=False):
            return chosen
        rules = {hashlib.sha1(b"rule\0" + t.encode()).hexdigest(): t
                 for t in have.rule_texts() if len(t.split()) >= 4}
        if not rules:
            return chosen
        vecs = sem.vectors
        missing = vecs.missing(rules)
        if missing:
            vecs.add_missing(missing, lambda ids: sem.embedder.embed([rules[i] for i in ids]))
        sem.embed_entries([e for e, _r in chosen])
        ids, rows = vecs.of(rules)
        blobs, mine = vecs.of([e.blob for e, _r in chosen])
        if not ids or not blobs:
            return chosen
        sims = mine @ rows.T
        said = set()
        for i, blob in enumerate(blobs):
            for j in (sims[i] >= RESTATED_COSINE).nonzero()[0]:
                if names_held(_what_of(chosen, blob), rules[ids[int(j)]]):
                    said.add(blob)
                    break
        return [(e, r) for e, r in chosen if e.blob not in said]
    except Exception as e:  # noqa: BLE001 -- by words alone, as without a model
        _say(f"restated rules by meaning: {e}")
        return chosen


def _what_of(chosen: list[Any], blob: str) -> str:
    return next(str(r["what"]) for e, r in chosen if e.blob == blob)


def _branch_changes(repo: Any, cache: Any) -> tuple[str, list[tuple[str, dict[str, Any]]]] | None:
    """(base, [(added|changed, record)]) of the memories added or changed since the merge
    base with the upstream or default branch; None when there is no such base."""
    from git_aide.app.diff import diff_doc

    base = None
    for candidate in ("@{upstream}", "refs/remotes/origin/HEAD", "main", "master"):
        proc = repo.git("rev-parse", "--verify", "--quiet", "--symbolic-full-name",
                        candidate, check=False)
        name = proc.stdout.decode().strip()
        if proc.returncode == 0 and name:
            base = name
            break
    if base is None:
        return None
    head = repo.git("rev-parse", "--verify", "--quiet", "HEAD", check=False).stdout.strip()
    mb = repo.git("merge-base", base, "HEAD", check=False)
    if mb.returncode != 0 or not head:
        return None
    point = mb.stdout.decode().strip()
    current = repo.git("symbolic-ref", "--quiet", "HEAD", check=False).stdout.decode().strip()
    if current == base:
        return None  # on the base branch itself: nothing is "this branch's"
    doc = diff_doc(repo, cache, [point])
    short = base.removeprefix("refs/heads/").removeprefix("refs/remotes/")
    changed: list[tuple[str, dict[str, Any]]] = []
    for m in doc.get("added", []):
        changed.append(("added", m))
    for c in doc.get("changed", []):
        after = c.get("after") or {}
        if "uuid" in after:
            changed.append(("changed", after))
    if not changed:
        return None
    return short, changed


def post_tool_use(data: dict[str, Any], agent: str, opened: list[Context]) -> str | None:
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
        repo, _cache, snap = _open(opened)
        found |= {e.uuid for e in snap.entries if e.uuid[:8] in short}
    else:
        from git_aide.gitio.repo import open_repo

        repo = open_repo()
    if not found:
        return None
    session, _followed = _session(repo.cache_dir, data, agent)
    session.seen |= found
    session.save()
    return None


def _structured_uuids(value: Any) -> list[str]:
    """The `memories[].uuid` of structured content, wherever it sits in a tool response
    (whole, under structuredContent, or as JSON text in a content block)."""
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


def _strings(value: Any) -> str:
    """Every string inside a JSON value, one per line (tool responses come in many shapes),
    less what a cut MCP answer names without showing it (agents/mcp/text.py): its `more`
    and the line "N more ... not shown: ids" of its text."""
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


def users_words(prompt: str) -> str:
    """What the user wrote, without what hooks put around it: Gemini CLI hands the
    session-start context to BeforeAgent inside the first prompt (`<hook_context>...`),
    and git-aide's own memory lines are never the user's words."""
    import re

    prompt = re.sub(r"<hook_context>.*?(?:</hook_context>|\Z)", " ", prompt, flags=re.S)
    own = re.compile(r"^(?:- (?:added: |changed: )?.* id:[0-9a-f]{8}|"
                     + re.escape(SESSION_HEADER) + "|" + re.escape(FILE_HEADER)
                     + r".*\(git-aide; follow it\):|Memories this branch added or changed "
                     r"since .*:|\d+ more: (?:call aide_\w+ |run `git aide ).*)$")
    return "\n".join(line for line in prompt.splitlines() if not own.match(line.strip()))


def prompt_paths(data: dict[str, Any]) -> list[str]:
    """The files a prompt brings into the context, as absolute paths that exist: the
    `@path` mentions of the user's words (Claude Code, Gemini CLI and Codex attach those
    files themselves, no tool event follows) and the files Gemini CLI read for them
    (`Content from @path:`, what its read_many_files read)."""
    import re

    prompt = data.get("prompt")
    if not isinstance(prompt, str) or "@" not in prompt:
        return []
    cwd = _cwd(data) or os.getcwd()
    prompt = re.sub(r"<hook_context>.*?(?:</hook_context>|\Z)", " ", prompt[:65536], flags=re.S)
    found: list[str] = []
    for m in re.finditer(r"(?:^|(?<=[\s(]))@((?:\\ |[^\s`'\"(),;])+)", prompt):
        raw = m.group(1).replace("\\ ", " ").rstrip(".:!?]}>")
        path = absolute(raw, cwd, glob=True)
        if path and path not in found and os.path.exists(path):
            found.append(path)
        if len(found) >= MAX_EVENT_PATHS:
            break
    return found


def decides(words: str) -> bool:
    """Whether the user's words state a decision or a correction worth keeping: some
    sentence of them does, and is not a question (a question about a decision decides
    nothing; nor does "decide which file to read")."""
    import re

    text = words.replace("\u2019", "'").replace("\u2018", "'")
    for sentence in re.split(r"(?<=[.!?;])\s+|\n+", text):
        sentence = sentence.strip().strip("*_>-#` ").strip()
        if not sentence or re.search(_QUESTION, sentence, re.IGNORECASE):
            continue
        if re.search(_DECISION, sentence, re.IGNORECASE):
            return True
    return False


def user_prompt(data: dict[str, Any], agent: str, opened: list[Context]) -> str | None:
    """The memories of the files the prompt mentions with `@path`, and a nudge to remember
    when the prompt reads as a correction or a decision."""
    prompt = data.get("prompt")
    if not isinstance(prompt, str):
        return None
    nudge = NUDGE if decides(users_words(prompt)) else None
    paths = prompt_paths(data)
    files = None
    if paths and agent != "cursor":  # Cursor's prompt hook has no context channel
        files = _file_memories(data, agent, paths, opened, len(nudge) + 2 if nudge else 0)
    parts = [t for t in (files, nudge) if t]
    return "\n\n".join(parts) if parts else None


def stop(data: dict[str, Any], agent: str, opened: list[Context]) -> str | None:
    """With aide.hooks.reflect: every few stops, ask whether anything is worth keeping."""
    if data.get("stop_hook_active"):
        return None  # the agent is already continuing because of a stop hook
    from git_aide.gitio.repo import open_repo

    repo = open_repo()
    if not repo.settings.hooks_reflect:
        return None
    every = repo.settings.hooks_reflect_every
    session = Session(repo.cache_dir, session_id(data))
    session.stops += 1
    if session.reflected and "stop_hook_active" not in data:
        # an agent that does not say a stop hook made it go on (Copilot CLI, Cursor):
        # the stop right after our question is its answer, never asked again
        session.reflected = False
        session.save()
        return None
    ask = session.stops % every == 1 or every == 1
    session.reflected = ask
    session.save()
    return REFLECT if ask else None


def pre_compact(data: dict[str, Any], agent: str, opened: list[Context]) -> str | None:
    """Clear the session record: after compaction, what was injected is gone.

    Gemini CLI fires PreCompress (trigger `auto`) before every model request, before it
    checks whether the conversation is large enough to compress, which it seldom is: that
    event does nothing at all here (not even open the repository). A compression it did
    make is found in its transcript by the next hook that reads the record (_session);
    `/compress` (trigger `manual`) always compresses."""
    if agent == "gemini" and data.get("trigger") != "manual":
        return None
    from git_aide.gitio.repo import open_repo

    Session(open_repo().cache_dir, session_id(data)).clear()
    return None


HANDLERS = {"session-start": session_start, "pre-tool-use": pre_tool_use,
            "post-tool-use": post_tool_use, "user-prompt": user_prompt, "stop": stop,
            "pre-compact": pre_compact}
