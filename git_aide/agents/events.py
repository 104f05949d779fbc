"""`git aide hook EVENT`: an agent's hook event in on stdin, context for it out on stdout.

An agent runs these on every session, prompt and file it touches, so they follow the
recall hot path (spawn -> commands -> sources, no click, no rich, no pydantic) and they
never get in the agent's way: whatever happens they exit 0, print the agent's JSON or
nothing, and say anything else on stderr. `GIT_AIDE_HOOKS=0` turns them off.

Per-session state (which memories this session was already given) lives in
`<git common dir>/aide/sessions/`, never in the working tree.
"""

from __future__ import annotations

import os
import sys

from git_aide.agents.sessions import Session, prune, session_id

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EVENTS = ("session-start", "pre-tool-use", "post-tool-use", "user-prompt", "stop",
          "pre-compact")
AGENTS = ("claude", "codex", "cursor", "gemini")
USAGE = ("usage: git aide hook {session-start|pre-tool-use|post-tool-use|user-prompt|stop|"
         "pre-compact} [--agent claude|codex|cursor|gemini]")

#: Each event's name in the protocols that take `hookSpecificOutput.hookEventName`.
_CLAUDE_NAMES = {"session-start": "SessionStart", "pre-tool-use": "PreToolUse",
                 "post-tool-use": "PostToolUse", "user-prompt": "UserPromptSubmit"}
#: Gemini CLI has no context channel before a tool runs: init hooks pre-tool-use on
#: AfterTool, whose additionalContext is appended to what the tool returned.
_GEMINI_NAMES = {"session-start": "SessionStart", "pre-tool-use": "AfterTool",
                 "post-tool-use": "AfterTool", "user-prompt": "BeforeAgent"}
#: Where a file tool names its file, across the agents' tools.
_PATH_KEYS = ("file_path", "absolute_path", "path", "target_file")
#: What reads as a correction or a decision worth keeping.
_DECISION = (r"\b(no,? (use|don'?t|do not|we)|from now on|going forward|we always|we never|"
             r"always use|never use|do not ever|don'?t ever|remember (that|to)|instead of|"
             r"actually,? (use|we|it)|that'?s wrong|stop using|prefer\b)")
NUDGE = ("This prompt reads like a correction or a decision. If it should hold beyond this "
         "session, call aide_remember (what, why, and a scope glob where it applies).")
REFLECT = ("Before you stop: did this session settle anything worth remembering (a "
           "decision, a constraint, a gotcha the code does not show)? If so, call "
           "aide_remember; if not, just stop.")


def main(argv: list[str]) -> int:
    """Run one hook; always 0."""
    try:
        return _main(argv)
    except BaseException as e:  # noqa: BLE001 -- a hook never breaks the agent's session
        if isinstance(e, SystemExit) and e.code in (0, None):
            return 0
        # one plain line: the message, never the exception's class name
        lines = str(e).strip().splitlines()
        _say(lines[0] if lines else "could not run this hook")
        return 0


def _say(message: str) -> None:
    sys.stderr.write(f"git-aide: hook: {message}\n")


def _main(argv: list[str]) -> int:
    event, agent = _parse(argv)
    if event is None:
        return 0
    if os.environ.get("GIT_AIDE_HOOKS", "").strip().lower() in ("0", "false", "off", "no"):
        return 0
    data = _read_event()
    if data is None:
        return 0
    where = _where(data)
    if where is not None:
        os.chdir(where)
    text = HANDLERS[event](data, agent)
    if text is not None:
        reply = _reply(agent, event, text)
        if reply is not None:
            import json

            from git_aide import controls

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
        for k in _PATH_KEYS:
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
    except ValueError:
        _say("stdin is not a JSON event; nothing to do")
        return None
    return data if isinstance(data, dict) else None


def _reply(agent: str, event: str, text: str) -> dict[str, Any] | None:
    """The agent's JSON for `text` on this event; None where it has no channel for it."""
    if event == "stop":
        if agent == "cursor":
            return {"followup_message": text}
        return {"decision": "deny" if agent == "gemini" else "block", "reason": text}
    if agent in ("claude", "codex"):
        name = _CLAUDE_NAMES.get(event)
    elif agent == "gemini":
        name = _GEMINI_NAMES.get(event)
    else:  # cursor
        if event == "session-start":
            return {"additional_context": text}
        if event == "pre-tool-use":
            # no "permission": the user's own approval settings decide, not a memory hook
            return {"agent_message": text}
        return None
    if name is None:
        return None
    return {"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}


# -- rendering within a budget -------------------------------------------------------------

def _line(record: dict[str, Any]) -> str:
    what = " ".join(record["what"].split())
    why = f" (why: {' '.join(record['why'].split())})" if record.get("why") else ""
    scope = record.get("scope") or "project"
    return f"- {what}{why} [{scope}] id:{record['uuid'][:8]}"


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


# -- the events ----------------------------------------------------------------------------

def _open(cached: bool = False, warn_now: bool = True) -> tuple[Any, Any, Any]:
    """(repo, cache, worktree snapshot), with git's questions started first.

    `warn_now=False`: the caller says the snapshot's warnings once it has its answer,
    so that the view is decoded while git still compares the working tree."""
    from git_aide.spawn import early

    asked = early(cached, None)
    from git_aide import commands
    from git_aide.sources import load

    repo, cache = commands.context(asked)
    snap = load(repo, cache, "worktree", None, asked=asked)
    if warn_now:
        _warn(snap)
    return repo, cache, snap


def _warn(snap: Any) -> None:
    for w in snap.warnings:
        _say(w)


def pre_tool_use(data: dict[str, Any], agent: str) -> str | None:
    """The scoped memories of the file the tool is about to touch, each once a session."""
    tool_input = data.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    path = next((tool_input[k] for k in _PATH_KEYS if isinstance(tool_input.get(k), str)
                 and tool_input[k]), None)
    if path is None:
        return None
    from git_aide.answers import recall_hits
    from git_aide.errors import AideError

    repo, cache, snap = _open(warn_now=False)
    try:
        hits = recall_hits(repo, cache, snap, [path], count=False, scoped_only=True)
    except AideError:
        return None  # outside the repository, say: nothing to add
    _warn(snap)
    session = Session(repo.cache_dir, session_id(data))
    fresh = [h for h in hits if h.entry.compiled is not None
             and h.entry.uuid not in session.seen]
    if not fresh:
        return None
    cap = repo.config_int("aide.hooks.fileChars", 1200)
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(repo.worktree or "."))
    header = f"Project memory for {rel} (git-aide; follow it):"
    text, shown = fit(header, [_line(h.entry.record) for h in fresh], cap,
                      "{n} more: call aide_recall for " + rel)
    if not shown:
        return text or None  # not even one fits: at most say where they are
    session.seen.update(h.entry.uuid for h in fresh[:shown])
    session.save()
    from git_aide.memory import now

    cache.count_recall([h.entry.uuid for h in fresh[:shown]], now())
    return text


def session_start(data: dict[str, Any], agent: str) -> str | None:
    """The always-on memories, then what this branch changed since it left its base."""
    repo, cache, snap = _open()
    prune(repo.cache_dir)
    session = Session(repo.cache_dir, session_id(data))
    session.clear()  # a new, cleared or compacted context holds nothing yet
    cap = repo.config_int("aide.hooks.sessionChars", 2000)
    order = {"guidelines": 1, "preferences": 2}
    chosen = []
    for e in snap.entries:
        if e.layer in order:
            chosen.append((order[e.layer], e))
        else:
            r = e.record
            if r.get("priority") == "always":
                chosen.append((0, e))
    chosen.sort(key=lambda pe: pe[1].updated_at, reverse=True)  # newest first...
    chosen.sort(key=lambda pe: pe[0])  # ...within: priority always, guidelines, preferences
    records = [e.record for _rank, e in chosen]
    parts: list[str] = []
    used = 0
    if records:
        text, shown = fit("Project memory (git-aide): always apply these.",
                          [_line(r) for r in records], cap,
                          "{n} more: call aide_memories (layer guidelines or preferences)")
        if text:
            parts.append(text)
        used = len(text)
        session.seen.update(r["uuid"] for r in records[:shown])
    try:
        branch = _branch_changes(repo, cache)
    except Exception as e:  # noqa: BLE001 -- the always-on memories still go in
        _say(f"what this branch changed: {e}")
        branch = None
    if branch is not None and cap - used > 80:
        base, lines, uuids = branch
        text, shown = fit(f"\nMemories this branch added or changed since {base}:", lines,
                          cap - used, "{n} more: call aide_diff with args [\"" + base + "\"]")
        if shown:
            parts.append(text)
            session.seen.update(uuids[:shown])
    session.save()
    return "\n".join(parts) if parts else None


def _branch_changes(repo: Any, cache: Any) -> tuple[str, list[str], list[str]] | None:
    """(base, lines, uuids) of the memories added or changed since the merge base with
    the upstream or default branch; None when there is no such base."""
    from git_aide.history import diff_doc

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
    lines: list[str] = []
    uuids: list[str] = []
    for m in doc.get("added", []):
        lines.append(_line(m).replace("- ", "- added: ", 1))
        uuids.append(m["uuid"])
    for c in doc.get("changed", []):
        after = c.get("after") or {}
        if "uuid" in after:
            lines.append(_line(after).replace("- ", "- changed: ", 1))
            uuids.append(after["uuid"])
    if not lines:
        return None
    return short, lines, uuids


def post_tool_use(data: dict[str, Any], agent: str) -> str | None:
    """Record the memories the agent fetched itself, so hooks do not inject them again."""
    tool = str(data.get("tool_name") or "")
    if not tool.endswith(("aide_recall", "aide_search", "aide_memories")):
        return None
    import re

    response = data.get("tool_response")
    found = set(_structured_uuids(response))
    text = _strings(response)
    found |= set(re.findall(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
                            text))
    # the text content names memories by their first 8 hex digits (`1a2b3c4d`)
    short = set(re.findall(r"(?<![0-9a-f-])[0-9a-f]{8}(?![0-9a-f-])", text))
    if not found and not short:
        return None
    if short:
        repo, _cache, snap = _open()
        found |= {e.uuid for e in snap.entries if e.uuid[:8] in short}
    else:
        from git_aide.repo import open_repo

        repo = open_repo()
    if not found:
        return None
    session = Session(repo.cache_dir, session_id(data))
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
        except ValueError:
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
    """Every string inside a JSON value, one per line (tool responses come in many shapes)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(_strings(v) for v in value.values())
    if isinstance(value, list):
        return "\n".join(_strings(v) for v in value)
    return ""


def user_prompt(data: dict[str, Any], agent: str) -> str | None:
    """A nudge to remember, when the prompt reads as a correction or a decision."""
    import re

    prompt = data.get("prompt")
    if not isinstance(prompt, str) or not re.search(_DECISION, prompt, re.IGNORECASE):
        return None
    return NUDGE


def stop(data: dict[str, Any], agent: str) -> str | None:
    """With aide.hooks.reflect: every few stops, ask whether anything is worth keeping."""
    if data.get("stop_hook_active"):
        return None  # the agent is already continuing because of a stop hook
    from git_aide.repo import open_repo

    repo = open_repo()
    if not repo.config_bool("aide.hooks.reflect", False):
        return None
    every = max(1, repo.config_int("aide.hooks.reflectEvery", 5))
    session = Session(repo.cache_dir, session_id(data))
    session.stops += 1
    session.save()
    return REFLECT if session.stops % every == 1 or every == 1 else None


def pre_compact(data: dict[str, Any], agent: str) -> str | None:
    """Clear the session record: after compaction, what was injected is gone."""
    from git_aide.repo import open_repo

    Session(open_repo().cache_dir, session_id(data)).clear()
    return None


HANDLERS = {"session-start": session_start, "pre-tool-use": pre_tool_use,
            "post-tool-use": post_tool_use, "user-prompt": user_prompt, "stop": stop,
            "pre-compact": pre_compact}
