"""Memories written out as agents' rules files: `git aide export` (docs/rules-files.md).

Always-on memories (guidelines, shared preferences, `priority: always`; project-wide,
never personal) go into a marked block of the agent's always-read file (CLAUDE.md,
AGENTS.md, GEMINI.md, .github/copilot-instructions.md), or into a generated always-on
rule for Cursor and Windsurf. Scoped memories go into one glob-scoped rule per scope
where the agent has such rules (Cursor, Copilot, Windsurf); Claude, Codex and Gemini get
a line pointing at `git aide recall` instead, because their hooks and MCP server already
hand an agent the memories of the file it opens, and a session-start file holding every
scoped memory would cost each session what only a few files need. Project-wide technical
facts become a rule the agent reads on request where it has those (Cursor, Windsurf).

A memory that a rules file the agent reads by itself already says (imported from it, say)
is not written again, so an agent reads each rule once: its own files, what they import
with `@path`, the nested CLAUDE.md of a folder, and another agent's block in a file it
reads too (CLAUDE.md saying `@AGENTS.md`). Memories keep the headings of their source
(`### Testing` inside a section). The bytes depend on the memories and those files alone
(sorted, no timestamps), so `--check` can tell whether the files are up to date.

This module plans every file of an export and writes them. The block's text is
exportblock.py's, the agents' files and the whole rule files rulefiles.py's, the block
inside a file a person wrote blocksplice.py's, and what each agent reads already
alreadyread.py's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from git_aide.agents.rules.alreadyread import (
    AlreadyRead,
    read_text,
    scope_folder,
    unread,
    written_in_folder,
)
from git_aide.agents.rules.blocksplice import block_of, spliced
from git_aide.agents.rules.exportblock import block, budgeted, select
from git_aide.agents.rules.markdown import BEGIN
from git_aide.agents.rules.rulefiles import AGENTS, ALWAYS_FILE, RULES_DIR, rule_file, slug
from git_aide.core.errors import AideError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.cache.folder import Cache
    from git_aide.core.jsonvalue import JSONObject
    from git_aide.gitio.repo import Repo


@dataclass
class Plan:
    """Hold what an export would leave on disk."""

    #: Repo-relative path -> the bytes it should hold (None: remove it).
    files: dict[str, bytes | None] = field(default_factory=dict)
    #: What was left out (--max-chars) and the rules files not read, one line each.
    notes: list[str] = field(default_factory=list)


def plan(top: str, records: list[JSONObject], agents: list[str],
         max_chars: int | None) -> Plan:
    """Plan the files an export for these agents leaves, and what it had to leave out.

    Nothing an agent already reads by itself is written for it again: its own rules
    files, what they import with `@path`, the nested CLAUDE.md of a folder, and the
    block another agent's file holds when this agent reads that file too (CLAUDE.md
    saying `@AGENTS.md`). An agent whose file is read by another is planned first."""
    always, scoped, other = select(records)
    out = Plan()
    native = AlreadyRead(top)
    agents = list(dict.fromkeys(agents))
    mains = {a: os.path.realpath(os.path.join(top, ALWAYS_FILE[a])) for a in agents
             if a in ALWAYS_FILE}
    native.mains = {f: ALWAYS_FILE[a] for a, f in mains.items()}
    agents.sort(key=lambda a: sum(f in native.real_files(a) for b, f in mains.items()
                                  if b != a and f != mains.get(a)))
    for agent in agents:
        rules_dir = RULES_DIR.get(agent)
        if agent in ALWAYS_FILE and mains[agent] not in native.planned:
            path = ALWAYS_FILE[agent]
            has = native.reader(agent, path)
            # Copilot gets the scoped memories as instructions; the others only a pointer.
            pending = sum(not has(r) for r in other) + (0 if rules_dir else sum(
                not native.reader(agent, path, scope_folder(scope))(r)
                for scope, group in scoped.items() for r in group))
            notes = [f"_Not listed here: {pending} memor{'y' if pending == 1 else 'ies'} "
                     "scoped to paths or looked up when needed; run `git aide recall PATH` "
                     "before changing a file._"] if pending else []
            old = read_text(top, path)
            mine = [r for r in always if not has(r)]
            text, left = budgeted(mine, notes, max_chars)
            _note_left(out, path, left, max_chars)
            native.planned[mains[agent]] = [r for r in mine if r not in left]
            new = spliced(path, old, text, bool(mine or notes))
            if new is not None:
                out.files[path] = new
        if rules_dir is None:
            continue
        folder, suffix = rules_dir
        generated = _generated(top, folder, suffix)
        present = written_in_folder(top, folder, suffix, generated, out.notes)
        has = native.reader(agent, None)
        wanted: dict[str, bytes] = {}
        if agent != "copilot":
            mine = unread(always, present, has)
            if mine:
                text, left = budgeted(mine, [], max_chars)
                path = f"{folder}/git-aide-always{suffix}"
                _note_left(out, path, left, max_chars)
                wanted[path] = rule_file(agent, "always", None, text)
            mine = unread(other, present, has)
            if mine:
                wanted[f"{folder}/git-aide-technical{suffix}"] = rule_file(
                    agent, "other", None, block(mine, []))
        for scope, group in scoped.items():
            mine = unread(group, present, native.reader(agent, None, scope_folder(scope)))
            if mine:
                wanted[f"{folder}/{slug(scope)}{suffix}"] = rule_file(
                    agent, "scoped", scope, block(mine, []))
        out.files.update(wanted)
        for path in generated:
            if path not in wanted:
                out.files[path] = None
    return out


def _note_left(out: Plan, path: str, left: list[JSONObject], max_chars: int | None
               ) -> None:
    """Add a line to the plan's notes for each memory left out of `path`."""
    for r in left:
        first = r["what"].strip().split("\n")[0]
        short = first if len(first) <= 60 else first[:57] + "..."
        out.notes.append(f"{path}: left out {r['uuid'][:8]} ({r['layer']}) to stay within "
                         f"{max_chars} characters: {short}")


def _generated(top: str, folder: str, suffix: str) -> list[str]:
    """Return the git-aide rule files already in a folder (named git-aide-*, holding a block)."""
    from git_aide.agents.rules.importer import read_rules

    try:
        names = sorted(os.listdir(os.path.join(top, folder)))
    except OSError:
        return []
    found = []
    marker = BEGIN.encode()
    for name in names:
        if not (name.startswith("git-aide-") and name.endswith(suffix)):
            continue
        try:
            data = read_rules(os.path.join(top, folder, name), f"{folder}/{name}")
        except AideError:
            continue  # not a file export wrote; if the plan needs its name, export says why
        if data is not None and marker in data:
            found.append(f"{folder}/{name}")
    return found


def _through_link(top: str, path: str) -> str:
    """Return where to write `path`: a symlink (CLAUDE.md -> AGENTS.md) is kept and its target
    written, as long as the target is inside the working tree (and not in a `.git`)."""
    full = os.path.join(top, path)
    if not os.path.islink(full):
        return full
    target = os.path.realpath(full)
    root = os.path.realpath(top)
    if os.path.commonpath([root, target]) != root:
        raise AideError(f"{path} is a symbolic link out of the working tree; not written")
    # .git/config reached through a committed link would take the block as git config.
    if any(part.lower() == ".git" for part in os.path.relpath(target, root).split(os.sep)):
        raise AideError(f"{path} is a symbolic link into the repository's .git folder; "
                        "not written")
    return target


def _folder_problem(top: str, path: str, data: bytes | None) -> str | None:
    """Return why `path` may not be written (or removed): a folder on the way that is a symbolic
    link, or not a folder, would take the write out of the working tree."""
    from git_aide.gitio.folders import problem

    folder = path.rpartition("/")[0]
    message = problem(top, folder) if folder else None
    if message is None:
        return None
    return f"{path} cannot be {'removed' if data is None else 'written'}: {message}"


def exported_agents(top: str) -> list[str]:
    """Return the agents an export wrote for already: those whose always-read file holds a
    git-aide block, or whose rules folder holds a rule file export wrote (a file that
    cannot be read counts as none)."""
    from git_aide.agents.rules.importer import read_rules

    found = []
    for agent in AGENTS:
        path = ALWAYS_FILE.get(agent)
        if path is not None:
            try:
                data = read_rules(os.path.join(top, path), path)
            except AideError:
                data = None
            if data is not None and block_of(data.decode("utf-8", "replace")) is not None:
                found.append(agent)
                continue
        folder = RULES_DIR.get(agent)
        if folder is not None and _generated(top, *folder):
            found.append(agent)
    return found


def max_chars_of(repo: Repo, given: int | None) -> int | None:
    """Return the cap of the always-on block: `--max-chars`, else aide.export.maxChars (0: none)."""
    if given is not None:
        return given
    return repo.settings.export_max_chars or None


def changes(repo: Repo, cache: Cache, agents: list[str], *, max_chars: int | None = None,
            cached: bool = False) -> tuple[list[tuple[str, bytes | None, bytes | None, str]],
                                           list[str]]:
    """Return what an export would do to each file of its plan: ([(path, the bytes it should
    hold (None: removed), the bytes it holds, the file written (a link's target))],
    notes). Every file is read and every destination checked, so that an export
    refused for one file writes none. `cached`: planned from the staged memories."""
    from git_aide.agents.rules.importer import read_rules
    from git_aide.app.context import Context

    top = repo.require_worktree("export")
    records = [e.read_record() for e in Context(repo, cache).snapshot(cached).entries]
    p = plan(top, records, agents, max_chars)
    out: list[tuple[str, bytes | None, bytes | None, str]] = []
    for path, data in sorted(p.files.items()):
        full = os.path.join(top, path)
        current = read_rules(full, path)
        if data != current:
            message = _folder_problem(top, path, data)
            if message:
                raise AideError(message)
            if data is not None:
                full = _through_link(top, path)
        out.append((path, data, current, full))
    return out, p.notes


def export(repo: Repo, cache: Cache, agents: list[str], *, check: bool = False,
           max_chars: int | None = None) -> tuple[list[tuple[str, str]], list[str]]:
    """Write (or with `check`, compare) the files: ([(path, what happened)], notes)."""
    from git_aide.core.files import write_atomic

    planned, notes = changes(repo, cache, agents, max_chars=max_chars)
    done: list[tuple[str, str]] = []
    for path, data, current, full in planned:
        if data == current:
            done.append((path, "unchanged"))
            continue
        state = "stale" if data is None else "missing" if current is None else "out of date"
        if check:
            done.append((path, state))
            continue
        if data is None:
            os.unlink(full)
            done.append((path, "removed"))
        else:
            write_atomic(full, data)
            done.append((path, "created" if current is None else "updated"))
    return done, notes
