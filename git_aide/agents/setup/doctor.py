"""`git aide doctor`'s agent checks: per agent whose project settings exist, is git-aide
set up in them, does the MCP server they start answer in time, do their files reach the
team, and which one-time approval the user still owes the agent (read, never written,
from the user's own settings). The clone's own checks are app/doctor.py's.
"""

from __future__ import annotations

import os
import re
import shlex

from git_aide.app.doctor import Finding
from git_aide.gitio.repo import Repo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.agents.setup.probe import Answer, Server
    from git_aide.core.jsonvalue import JSON


def findings(repo: Repo) -> list[Finding]:
    """Check each agent whose project settings exist: is git-aide set up in them, does the server
    they start answer in time, do the files reach the team, and which one-time approval
    the user still owes the agent."""
    from git_aide.agents.setup import config, probe

    top = repo.require_worktree("doctor")
    out = []
    present = []
    for agent, ok, message, init_fixes in config.found(top):
        present.append(agent)
        if ok:
            out.append(Finding("agent", True, message))
        else:
            hint = f" (git aide init --agent {agent})" if init_fixes else ""
            out.append(Finding("agent", True, message + hint, note=True))
    shared = [rel for agent in present for rel in config.FILES[agent]]
    for rel, rule in probe.ignored(top, list(dict.fromkeys(shared))).items():
        out.append(Finding("agent", False, f"{rel} is ignored by git ({rule}), so the team "
                           "never gets it", f"git add -f {shlex.quote(rel)}"))
    found = probe.servers(top)
    for (command, args), group in probe.by_command(found).items():
        answer = probe.probe(top, command, args,
                              min(probe.MAX_WAIT, max(s.wait for s in group)))
        for s in group:
            out.append(_answered(s, answer))
    for agent in dict.fromkeys(s.agent for s in found):
        out.extend(_trust(agent, top))
    out.append(_server(repo))
    return out


def _server(repo: Repo) -> Finding:
    """Say which warm server answers this working tree's hooks and commands, if any
    (docs/server.md): a note, never a problem."""
    import os

    from git_aide.agents.daemon import said, status

    held = status(os.path.abspath(repo.git_dir))
    if held is None:
        return Finding("server", True, "no warm server runs for this working tree: hooks and "
                       "commands run alone (an agent's MCP server answers them while it "
                       "runs; git aide daemon start)", note=True)
    return Finding("server", True, f"hooks and reading commands are answered by the {said(held)}")


def _answered(s: Server, answer: Answer) -> Finding:
    """Tell whether the server `s` names answered `initialize` within the agent's wait."""
    from git_aide.agents.setup.probe import NAMES, seconds, slow_fix

    what = f"{s.agent}: the MCP server {s.rel} starts ({' '.join((s.command, *s.args))})"
    if answer.seconds is None:
        return Finding("agent", False, f"{what} cannot start: {answer.error}", answer.fix)
    if answer.seconds > s.wait:
        return Finding("agent", False, f"{what} answered initialize in {seconds(answer.seconds)}, "
                       f"later than {NAMES[s.agent]} waits ({s.wait:g} s, {s.why})",
                       slow_fix(s))
    tools = f", {answer.tools} tools" if answer.tools is not None else ""
    return Finding("agent", True, f"{what} answers initialize in {seconds(answer.seconds)} "
                   f"({NAMES[s.agent]} waits {s.wait:g} s){tools}")


# -- the one-time approvals, read (never written) from the user's own settings --------------

#: The largest user settings file read (~/.claude.json keeps history and grows).
_USER_MAX = 32 << 20
#: The same for Codex's config.toml, parsed by tomlkit, which is slow on large files.
_CODEX_MAX = 1 << 20


def _user_json(path: str) -> JSON:
    """Read a user's JSON settings file (comments allowed, as the agents allow), or None when
    it is absent, unreadable, not a regular file, too large or not JSON."""
    import json
    import stat

    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > _USER_MAX:
            return None
        with open(path, "rb") as f:
            text = f.read(_USER_MAX).decode("utf-8", "replace")
    except OSError:
        return None
    try:
        return json.loads(text)
    except ValueError:
        pass
    # JSON with comments: drop // and /* */ outside strings
    cleaned = re.sub(r'("(?:[^"\\]|\\.)*")|//[^\n]*|/\*.*?\*/',
                     lambda m: m.group(1) or "", text, flags=re.S)
    try:
        return json.loads(cleaned)
    except ValueError:
        return None


def _keys(top: str) -> list[str]:
    """Return the spellings of the working tree's path an agent may key its settings by."""
    return list(dict.fromkeys([top, os.path.realpath(top)]))


def _trust(agent: str, top: str) -> list[Finding]:
    """Check the agent's one-time approval of this project's git-aide set-up, where doctor can
    see it: done (ok) or the step still missing with the exact way to do it (a note: it
    is the user's own choice, made once per machine)."""
    if agent == "claude":
        return [_claude(top)]
    if agent == "gemini":
        return [_gemini(top)]
    if agent == "codex":
        return [_codex(top)]
    if agent == "copilot":
        return [Finding("agent", True, "copilot: Copilot CLI loads .github/mcp.json and "
                        ".github/hooks/ only in a folder you trusted: start `copilot` here "
                        "and trust the folder when it asks", note=True)]
    return []


def _claude(top: str) -> Finding:
    """Check Claude Code's approval: it approves each server of a project's .mcp.json once."""
    from git_aide.agents.setup.entries import SERVER

    home = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.expanduser("~/.claude")
    state = os.path.join(os.environ.get("CLAUDE_CONFIG_DIR") or os.path.expanduser("~"),
                         ".claude.json")
    places: list[tuple[str, JSON]] = [
        (".claude/settings.local.json", _user_json(os.path.join(top, ".claude",
                                                                 "settings.local.json"))),
        (".claude/settings.json", _user_json(os.path.join(top, ".claude", "settings.json"))),
        (_tilde(os.path.join(home, "settings.json")),
         _user_json(os.path.join(home, "settings.json")))]
    global_state = _user_json(state)
    projects = global_state.get("projects") if isinstance(global_state, dict) else None
    if isinstance(projects, dict):
        for key in _keys(top):
            places.append((f"{_tilde(state)} (projects[{key!r}])", projects.get(key)))
    for where, doc in places:
        if isinstance(doc, dict) and _names(doc.get("disabledMcpjsonServers"), SERVER):
            return Finding("agent", True, f"claude: you rejected the project's {SERVER} "
                           f"server in Claude Code ({where}): take {SERVER!r} out of "
                           "disabledMcpjsonServers there to use it", note=True)
    for where, doc in places:
        if isinstance(doc, dict) and (_names(doc.get("enabledMcpjsonServers"), SERVER)
                                      or doc.get("enableAllProjectMcpServers") is True):
            return Finding("agent", True, f"claude: Claude Code has approved the project's "
                           f"{SERVER} server ({where})")
    return Finding("agent", True, f"claude: Claude Code has not approved the project's "
                   f"{SERVER} server yet (`claude mcp list` shows it pending): run `claude` "
                   f"here and approve it, or add \"enabledMcpjsonServers\": [\"{SERVER}\"] to "
                   ".claude/settings.local.json", note=True)


def _names(value: JSON, name: str) -> bool:
    """Tell whether a settings list names the server."""
    return isinstance(value, list) and name in value


def _tilde(path: str) -> str:
    """Write a path under the home folder with ~, as the agents' docs write it."""
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if path.startswith(home + os.sep) else path


def _gemini(top: str) -> Finding:
    """Check Gemini CLI's trust: it starts a project's MCP servers and hooks only in a
    trusted folder."""
    env = os.environ.get("GEMINI_CLI_TRUST_WORKSPACE")
    if env in ("true", "false"):
        return Finding("agent", True, f"gemini: GEMINI_CLI_TRUST_WORKSPACE={env} decides "
                       "whether Gemini CLI trusts this folder", note=env == "false")
    settings = _user_json(os.path.expanduser("~/.gemini/settings.json"))
    security = settings.get("security") if isinstance(settings, dict) else None
    folder_trust = security.get("folderTrust") if isinstance(security, dict) else None
    if isinstance(folder_trust, dict) and folder_trust.get("enabled") is False:
        return Finding("agent", True, "gemini: folder trust is off in ~/.gemini/settings.json, "
                       "so Gemini CLI trusts every folder")
    path = os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or os.path.expanduser(
        "~/.gemini/trustedFolders.json")
    rules = _user_json(path)
    level = None
    if isinstance(rules, dict):
        here = os.path.realpath(top)
        best = -1
        for rule, value in rules.items():
            if not isinstance(rule, str) or value not in ("TRUST_FOLDER", "TRUST_PARENT",
                                                          "DO_NOT_TRUST"):
                continue
            base = os.path.dirname(rule) if value == "TRUST_PARENT" else rule
            base = os.path.realpath(os.path.expanduser(base))
            if (here == base or here.startswith(base.rstrip(os.sep) + os.sep)) and \
                    len(rule) > best:
                best, level = len(rule), value
    if level in ("TRUST_FOLDER", "TRUST_PARENT"):
        return Finding("agent", True, f"gemini: Gemini CLI trusts this folder "
                       f"({_tilde(path)})")
    how = ("run `gemini` here and choose \"Trust folder\" (or type /permissions trust in it)"
           "; until then it starts no MCP server or hook of this project")
    if level == "DO_NOT_TRUST":
        return Finding("agent", True, f"gemini: you told Gemini CLI not to trust this folder "
                       f"({_tilde(path)}): {how}", note=True)
    return Finding("agent", True, f"gemini: Gemini CLI does not trust this folder yet: {how}",
                   note=True)


def _codex(top: str) -> Finding:
    """Check Codex's trust: it loads a project's .codex/ only when the project is trusted, then runs
    each hook only once the user trusted it in /hooks."""
    home = os.environ.get("CODEX_HOME") or os.path.expanduser("~/.codex")
    path = os.path.join(home, "config.toml")
    hooks = ("type /hooks in codex and trust git-aide's hooks (until then Codex skips them "
             "without a word)")
    level = None
    try:
        import stat

        st = os.stat(path)
        if stat.S_ISREG(st.st_mode) and st.st_size <= _CODEX_MAX:
            import tomlkit

            with open(path, "rb") as f:
                doc = tomlkit.parse(f.read().decode("utf-8", "replace")).unwrap()
            projects = doc.get("projects")
            if isinstance(projects, dict):
                for key in _keys(top):
                    entry = projects.get(key)
                    if isinstance(entry, dict) and isinstance(entry.get("trust_level"), str):
                        level = entry["trust_level"]
    except Exception:  # an unreadable or invalid file: as if it said nothing
        level = None
    where = _tilde(path)
    if level == "trusted":
        return Finding("agent", True, f"codex: Codex trusts this project ({where}); one step "
                       f"is left, which doctor cannot see: {hooks}", note=True)
    step = (f"run `codex` here and trust the folder (or add [projects.{_toml_key(top)}] "
            f"trust_level = \"trusted\" to {where}); then {hooks}")
    if level == "untrusted":
        return Finding("agent", True, f"codex: you marked this project untrusted in {where}, "
                       f"so Codex ignores .codex/: {step}", note=True)
    return Finding("agent", True, f"codex: Codex does not trust this project yet, so it loads "
                   f"neither .codex/config.toml nor .codex/hooks.json: {step}", note=True)


def _toml_key(path: str) -> str:
    """Quote a path as a TOML key."""
    import json

    return json.dumps(path)
