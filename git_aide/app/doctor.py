"""`git aide doctor`: what is missing or broken in this clone, and the command that fixes it.

A fresh clone has the committed half of the set-up (.gitattributes, .gitignore, the
memories) but not the local half (the merge driver in .git/config, the hooks), so
each check looks at what git itself will do, not only at the files init writes.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from git_aide.app import hooks
from git_aide.cache.folder import Cache
from git_aide.core.memory import MEMORIES_DIR, PERSONAL_DIR
from git_aide.gitio import folders
from git_aide.gitio.repo import Repo

if TYPE_CHECKING:
    from git_aide.agents.config import Answer, Server

#: The oldest git git-aide is known to work with (rev-parse --absolute-git-dir, %P).
MIN_GIT: tuple[int, int] = (2, 20)
#: A path that stands for any memory when asking git about attributes and ignores.
PROBE = f"{MEMORIES_DIR}/technical/00000000-0000-4000-8000-000000000000.json"
_PERSONAL_PROBE = f"{PERSONAL_DIR}/00000000-0000-4000-8000-000000000000.json"
_INSTALL = "pip install git-aide (or put git-aide on PATH)"


@dataclass(frozen=True)
class Finding:
    """The outcome of one check."""

    #: Which check: git, driver, textconv, attributes, hooks, cache, personal, folder, audit.
    check: str
    #: True when nothing is wrong.
    ok: bool
    #: What was found.
    message: str
    #: The command that fixes it (problems only).
    fix: str | None = None
    #: A remark worth reading that is not a problem (printed as `note:`).
    note: bool = False

    def line(self) -> str:
        """One line: `ok: message`, `note: message` or `problem: message; fix: command`."""
        if self.note:
            return f"note: {self.message}"
        if self.ok:
            return f"ok: {self.message}"
        return f"problem: {self.message}; fix: {self.fix}"

    def as_json(self) -> dict[str, Any]:
        """The finding as `doctor --json` lists it."""
        return {"check": self.check, "ok": self.ok, "message": self.message, "fix": self.fix}


def diagnose(repo: Repo) -> list[Finding]:
    """Every check, in order; the problems are those with `ok` false."""
    repo.require_worktree("doctor")
    out = [_git_version()]
    out.append(_folder(repo))
    out.extend(_links(repo))
    out.extend(_driver(repo))
    out.append(_textconv(repo))
    out.append(_attribute(repo, "merge", "the git-aide line, or a later one overrides it"))
    out.append(_attribute(repo, "diff", "'diff=aide' on the git-aide line"))
    out.extend(_hooks(repo))
    out.append(_cache(repo))
    out.extend(_personal(repo))
    orphans = _orphans(repo)
    if orphans is not None:
        out.append(orphans)
    out.extend(_agents(repo))
    return out


def _agents(repo: Repo) -> list[Finding]:
    """Per agent whose project settings exist: is git-aide set up in them, does the server
    they start answer in time, do the files reach the team, and which one-time approval
    the user still owes the agent."""
    from git_aide.agents import config

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
    for rel, rule in config.ignored(top, list(dict.fromkeys(shared))).items():
        out.append(Finding("agent", False, f"{rel} is ignored by git ({rule}), so the team "
                           "never gets it", f"git add -f {shlex.quote(rel)}"))
    found = config.servers(top)
    for (command, args), group in config.by_command(found).items():
        answer = config.probe(top, command, args,
                              min(config.MAX_WAIT, max(s.wait for s in group)))
        for s in group:
            out.append(_answered(s, answer))
    for agent in dict.fromkeys(s.agent for s in found):
        out.extend(_trust(agent, top))
    return out


def _answered(s: Server, answer: Answer) -> Finding:
    """Whether the server `s` names answered `initialize` within the agent's wait."""
    from git_aide.agents.config import NAMES, seconds, slow_fix

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


def _user_json(path: str) -> Any:
    """A user's JSON settings file (comments allowed, as the agents allow), or None when
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
    """The spellings of the working tree's path an agent may key its settings by."""
    return list(dict.fromkeys([top, os.path.realpath(top)]))


def _trust(agent: str, top: str) -> list[Finding]:
    """The agent's one-time approval of this project's git-aide set-up, where doctor can
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
    """Claude Code approves each server of a project's .mcp.json once."""
    from git_aide.agents.config import SERVER

    home = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.expanduser("~/.claude")
    state = os.path.join(os.environ.get("CLAUDE_CONFIG_DIR") or os.path.expanduser("~"),
                         ".claude.json")
    places: list[tuple[str, Any]] = [
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


def _names(value: Any, name: str) -> bool:
    """Whether a settings list names the server."""
    return isinstance(value, list) and name in value


def _tilde(path: str) -> str:
    """A path under the home folder written with ~, as the agents' docs write it."""
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if path.startswith(home + os.sep) else path


def _gemini(top: str) -> Finding:
    """Gemini CLI starts a project's MCP servers and hooks only in a trusted folder."""
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
    """Codex loads a project's .codex/ only when the project is trusted, then runs each
    hook only once the user trusted it in /hooks."""
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
    """A path as a quoted TOML key."""
    import json

    return json.dumps(path)


def _git_version() -> Finding:
    """Is git new enough?"""
    proc = subprocess.run(["git", "--version"], capture_output=True, text=True)
    m = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", proc.stdout)
    if not m:
        return Finding("git", False, f"cannot tell the git version from {proc.stdout.strip()!r}",
                       "install git 2.20 or newer")
    have = (int(m[1]), int(m[2]))
    text = m[0]
    if have < MIN_GIT:
        return Finding("git", False, f"git {text} is older than {MIN_GIT[0]}.{MIN_GIT[1]}",
                       f"upgrade git to {MIN_GIT[0]}.{MIN_GIT[1]} or newer")
    return Finding("git", True, f"git {text}")


def _folder(repo: Repo) -> Finding:
    """Does the memories folder exist?"""
    top = repo.require_worktree("doctor")
    if os.path.isdir(os.path.join(top, MEMORIES_DIR)):
        return Finding("folder", True, f"{MEMORIES_DIR}/ exists")
    return Finding("folder", False, f"{MEMORIES_DIR}/ does not exist", "git aide init")


def _links(repo: Repo) -> list[Finding]:
    """Does any memory folder lead out of the working tree (a committed symlink, say)?"""
    top = repo.require_worktree("doctor")
    return [Finding("folder", False, message,
                    f"rm {shlex.quote(rel)} && mkdir {shlex.quote(rel)} (and commit that)")
            for rel, message in folders.problems(top)]


def _driver(repo: Repo) -> list[Finding]:
    """Is the merge driver configured, and can git start it?"""
    value = repo.git("config", "--get", "merge.aide.driver", check=False
                     ).stdout.decode(errors="replace").strip()
    if not value:
        return [Finding("driver", False, "the merge driver is not configured in this clone "
                        "(merge.aide.driver); git falls back to a text merge", "git aide init")]
    words, program = _command(value)
    if "merge-driver" not in words:
        return [Finding("driver", False, f"merge.aide.driver is {value!r}, which is not "
                        "git-aide's merge driver", "git aide init")]
    if not (shutil.which(program) or os.access(program, os.X_OK)):
        return [Finding("driver", False, f"the merge driver runs {program}, which is not on PATH",
                        _INSTALL)]
    return [Finding("driver", True, f"merge driver configured ({value})")]


def _command(value: str) -> tuple[list[str], str]:
    """A configured command's words and the program git would start for it."""
    try:
        words = shlex.split(value)
    except ValueError:
        words = value.split()
    program = words[0] if words else ""
    if program == "git" and len(words) > 1:
        program = f"git-{words[1]}"
    return words, program


def _textconv(repo: Repo) -> Finding:
    """Is the textconv diff driver configured, and can git start it?"""
    value = repo.git("config", "--get", "diff.aide.textconv", check=False
                     ).stdout.decode(errors="replace").strip()
    if not value:
        return Finding("textconv", False, "the textconv diff driver is not configured in this "
                       "clone (diff.aide.textconv); git diff shows memories as raw JSON",
                       "git aide init")
    words, program = _command(value)
    if "textconv" not in words:
        return Finding("textconv", False, f"diff.aide.textconv is {value!r}, which is not "
                       "git-aide's textconv", "git aide init")
    if not (shutil.which(program) or os.access(program, os.X_OK)):
        return Finding("textconv", False, f"the textconv runs {program}, which is not on PATH",
                       _INSTALL)
    return Finding("textconv", True, f"textconv diff driver configured ({value})")


def _attribute(repo: Repo, name: str, lacking: str) -> Finding:
    """Do memory files get `name`=aide (merge, diff) from .gitattributes?"""
    out = repo.git("check-attr", name, "--", PROBE, check=False).stdout.decode(errors="replace")
    value = out.strip().rsplit(": ", 1)[-1] if out.strip() else "unspecified"
    if value == "aide":
        return Finding("attributes", True, f"memory files use {name}=aide")
    return Finding("attributes", False, f"the {name} attribute of memory files is {value!r}, "
                   f"not 'aide' (.gitattributes lacks {lacking})", "git aide init")


def _hooks(repo: Repo) -> list[Finding]:
    """Are the hooks installed, current and executable, and git-aide on PATH?"""
    found = [Finding("hooks", False, p.message, p.fix) for p in hooks.problems(repo)]
    if not shutil.which("git-aide"):
        found.append(Finding("hooks", False, "git-aide is not on PATH, so the hooks skip it",
                             _INSTALL))
    if not found:
        found.append(Finding("hooks", True, "hooks installed: " + ", ".join(hooks.HOOKS)))
    return found


def _cache(repo: Repo) -> Finding:
    """Can the cache be read and written?"""
    root = repo.cache_dir
    for folder in (os.path.dirname(root), root):  # `aide/`, then this Python's folder in it
        if not os.path.lexists(folder):
            return Finding("cache", True, "cache not built yet (the next command builds it)")
        if not os.path.isdir(folder) or not os.access(folder, os.R_OK | os.W_OK | os.X_OK):
            return Finding("cache", False, f"the cache {folder} is not a folder git-aide can "
                           "read and write", f"rm -rf {shlex.quote(folder)} (it is rebuilt)")
    cache = Cache(root)
    cache.load_records()
    note = "; repaired: " + "; ".join(cache.notices) if cache.notices else ""
    return Finding("cache", True, f"cache healthy ({len(cache.metas)} entries){note}")


def _personal(repo: Repo) -> list[Finding]:
    """Are personal memories ignored, and none in the index?"""
    out: list[Finding] = []
    ignored = repo.git("check-ignore", "-q", "--no-index", "--", _PERSONAL_PROBE, check=False)
    if ignored.returncode == 0:
        out.append(Finding("personal", True, f"{PERSONAL_DIR}/ is ignored"))
    else:
        out.append(Finding("personal", False, f"{PERSONAL_DIR}/ is not ignored, so a private "
                           "memory could be committed", "git aide init"))
    listed = repo.git("ls-files", "-z", "--", PERSONAL_DIR, check=False
                      ).stdout.decode(errors="replace").split("\0")
    tracked = [p for p in listed if p and p.rsplit("/", 1)[-1] not in (".gitignore", ".gitkeep")]
    if tracked:
        out.append(Finding("personal", False, f"{len(tracked)} personal memory file(s) are in "
                           "the index (staged or committed)",
                           f"git rm --cached -r -q -- {PERSONAL_DIR}"))
    return out


def _orphans(repo: Repo) -> Finding | None:
    """A word about memories whose code is gone: not a set-up problem, so not a failure."""
    from git_aide.app.audit import orphaned_count
    from git_aide.core.errors import AideError
    from git_aide.read.load import load

    try:
        n = orphaned_count(repo, load(repo, Cache(repo.cache_dir)))
    except AideError:
        return None
    if not n:
        return None
    return Finding("audit", True, f"{n} memor{'ies' if n > 1 else 'y'} with a scope that "
                   "matches no file any more: `git aide audit` lists them", note=True)
