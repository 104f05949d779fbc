"""Memories written out as agents' rules files: `git aide export` (DESIGN section 14).

Always-on memories (guidelines, shared preferences, `priority: always`; project-wide,
never personal) go into a marked block of the agent's always-read file (CLAUDE.md,
AGENTS.md, GEMINI.md, .github/copilot-instructions.md), or into a generated always-on
rule for Cursor and Windsurf. Scoped memories go into one glob-scoped rule per scope
where the agent has such rules (Cursor, Copilot, Windsurf); Claude, Codex and Gemini get
a line pointing at `git aide recall` instead, because their hooks and MCP server already
hand an agent the memories of the file it opens, and a session-start file holding every
scoped memory would cost each session what only a few files need. Project-wide technical
facts become a rule the agent reads on request where it has those (Cursor, Windsurf).

A memory that a rules file written by a person already says (imported from it, say) is
not written again, so an agent reads each rule once. The bytes depend on the memories
and those files alone (sorted, no timestamps), so `--check` can tell whether the files
are up to date.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from typing import Any

from git_aide.agents.rules import BEGIN, END, LAYER_TITLES
from git_aide.errors import AideError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.cache import Cache
    from git_aide.repo import Repo

#: The agents `export` writes for.
AGENTS: tuple[str, ...] = ("claude", "codex", "cursor", "gemini", "copilot", "windsurf")
#: The always-read file each agent has, holding the marked block.
ALWAYS_FILE: dict[str, str] = {"claude": "CLAUDE.md", "codex": "AGENTS.md",
                               "gemini": "GEMINI.md", "copilot": ".github/copilot-instructions.md"}
#: Where an agent keeps glob-scoped rules, and their file suffix.
RULES_DIR: dict[str, tuple[str, str]] = {
    "cursor": (".cursor/rules", ".mdc"),
    "copilot": (".github/instructions", ".instructions.md"),
    "windsurf": (".windsurf/rules", ".md"),
}
#: The first line inside every exported block.
HEADER = ("<!-- Written by `git aide export` from .aide/memories. Change the memories "
          "(git aide remember, update, forget) and export again; edits here are lost. -->")
_ORDER = {layer: i for i, layer in enumerate(LAYER_TITLES)}


@dataclass
class Plan:
    """What an export would leave on disk."""

    #: Repo-relative path -> the bytes it should hold (None: remove it).
    files: dict[str, bytes | None] = field(default_factory=dict)
    #: What was left out, one line each (--max-chars).
    notes: list[str] = field(default_factory=list)


Section = tuple[str, str, "str | None"]  # (layer, priority, scope)


def select(records: list[dict[str, Any]]) -> tuple[
        list[dict[str, Any]], dict[str, list[dict[str, Any]]], list[dict[str, Any]]]:
    """(always-on, scoped by scope, project-wide on request), each sorted; no personal ones."""
    always: list[dict[str, Any]] = []
    scoped: dict[str, list[dict[str, Any]]] = {}
    other: list[dict[str, Any]] = []
    for r in records:
        if r["layer"] == "preferences" and r.get("shared") is False:
            continue
        if r.get("scope") not in (None, "", "project"):  # "project" means project-wide
            scoped.setdefault(r["scope"], []).append(r)
        elif r["layer"] in ("guidelines", "preferences") or r.get("priority") == "always":
            always.append(r)
        else:
            other.append(r)
    for group in (always, other, *scoped.values()):
        group.sort(key=_sort_key)
    return always, dict(sorted(scoped.items())), other


def _sort_key(r: dict[str, Any]) -> tuple[Any, ...]:
    # Oldest first, as they were written (an import keeps its file's order); ties by
    # text, so that memories imported in the same millisecond still sort one way.
    return (_ORDER.get(r["layer"], 9), r.get("priority") != "always",
            str(r.get("created_at")), r["what"].strip(), r["uuid"])


def _section(r: dict[str, Any]) -> Section:
    scope = r.get("scope")
    return (r["layer"], "always" if r.get("priority") == "always" else "normal",
            None if scope in ("", "project") else scope)


def heading(sec: Section) -> str:
    """`## Technical (always) in `src/**``: the line `import` reads a section's fields from."""
    layer, priority, scope = sec
    text = "## " + LAYER_TITLES[layer] + (" (always)" if priority == "always" else "")
    if scope:
        ticks = "``" if "`" in scope else "`"
        text += f" in {ticks}{scope}{ticks}"
    return text


def bullet(what: str) -> list[str]:
    """A memory as a list item; later lines indented two spaces, so it reads back exactly."""
    first, *rest = what.strip().split("\n")
    return ["- " + first, *(("  " + line) if line else "" for line in rest)]


def block(records: list[dict[str, Any]], notes: list[str]) -> str:
    """The marked block: sections of memories, then plain lines that are not memories."""
    lines = [BEGIN, HEADER]
    current: Section | None = None
    for r in records:
        sec = _section(r)
        if sec != current:
            lines += ["", heading(sec), ""]
            current = sec
        lines += bullet(r["what"])
    if notes:
        lines += ["", *notes]
    lines.append(END)
    return "\n".join(lines) + "\n"


def budgeted(records: list[dict[str, Any]], notes: list[str], max_chars: int | None
             ) -> tuple[str, list[dict[str, Any]]]:
    """The block within `max_chars` characters and the memories it left out."""
    text = block(records, notes)
    if max_chars is None or len(text) <= max_chars:
        return text, []
    kept: list[dict[str, Any]] = []
    left: list[dict[str, Any]] = []
    for i, r in enumerate(records):
        trial = kept + [r]
        # Reserve the note for the memories not yet placed, so the final block fits too.
        if len(block(trial, notes + [_left_note(len(left) + len(records) - i - 1,
                                                max_chars)])) <= max_chars:
            kept = trial
        else:
            left.append(r)
    return block(kept, notes + [_left_note(len(left), max_chars)] if left else notes), left


def _left_note(n: int, max_chars: int) -> str:
    return (f"_{n} always-on memor{'y' if n == 1 else 'ies'} left out to keep this block "
            f"within {max_chars} characters: `git aide list` shows every memory._")


def agent_globs(scope: str) -> list[str]:
    """A scope as an agent's globs: braces expanded, folders and bare names made explicit.

    Git-aide scopes are gitignore patterns: `src/auth` means everything under it and
    `*.py` matches at any depth; agents' globs take them literally.
    """
    from git_aide.scope import expand_braces, normalize

    out: list[str] = []
    for alt in expand_braces(normalize(scope)):
        alt = alt.lstrip("/")
        if alt.endswith("/"):
            alt = alt.rstrip("/") + "/**"
        if "/" not in alt.rstrip("/"):
            alt = "**/" + alt
        if not set("*?[") & set(alt):
            out += [alt, alt + "/**"]
        else:
            out.append(alt)
    return list(dict.fromkeys(out))


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def slug(scope: str) -> str:
    """A file name stem for a scope: readable, and unique by a short hash."""
    words = re.sub(r"[^a-z0-9]+", "-", scope.lower()).strip("-")[:40].strip("-") or "all"
    return f"git-aide-{words}-{hashlib.sha1(scope.encode()).hexdigest()[:8]}"


def _rule_file(agent: str, kind: str, scope: str | None, body: str) -> bytes:
    """A whole generated rule: front matter for the agent, then the block."""
    if kind == "always":
        about = "Team guidelines, preferences and always-on memories kept by git-aide"
    elif kind == "other":
        about = "Technical facts about this project kept by git-aide; read when they matter"
    else:
        about = f"git-aide memories for {scope}"
    globs = ", ".join(agent_globs(scope)) if scope else ""
    if agent == "cursor":
        front = [f"description: {_quote(about)}", f"globs: {globs}" if globs else "globs:",
                 f"alwaysApply: {'true' if kind == 'always' else 'false'}"]
    elif agent == "copilot":
        front = [f"applyTo: {_quote(globs)}", f"description: {_quote(about)}"]
    else:
        trigger = {"always": "always_on", "other": "model_decision"}.get(kind, "glob")
        front = [f"trigger: {trigger}", f"description: {_quote(about)}"]
        if globs:
            front.append(f"globs: {globs}")
    return ("---\n" + "\n".join(front) + "\n---\n\n" + body).encode()


def plan(top: str, records: list[dict[str, Any]], agents: list[str],
         max_chars: int | None) -> Plan:
    """The files an export for these agents leaves, and what it had to leave out."""
    always, scoped, other = select(records)
    out = Plan()
    for agent in dict.fromkeys(agents):
        rules_dir = RULES_DIR.get(agent)
        if agent in ALWAYS_FILE:
            # Copilot gets the scoped memories as instructions; the others only a pointer.
            pending = len(other) + (0 if rules_dir else sum(map(len, scoped.values())))
            notes = [f"_Not listed here: {pending} memor{'y' if pending == 1 else 'ies'} "
                     "scoped to paths or looked up when needed; run `git aide recall PATH` "
                     "before changing a file._"] if pending else []
            path = ALWAYS_FILE[agent]
            old = _read_text(top, path)
            present = _written_outside(path, old)
            mine = _fresh(always, present)
            text, left = budgeted(mine, notes, max_chars)
            _note_left(out, path, left, max_chars)
            new = _spliced(path, old, text, bool(mine or notes))
            if new is not None:
                out.files[path] = new
        if rules_dir is None:
            continue
        folder, suffix = rules_dir
        generated = _generated(top, folder, suffix)
        present = _written_in_folder(top, folder, suffix, generated)
        wanted: dict[str, bytes] = {}
        if agent != "copilot":
            if _fresh(always, present):
                text, left = budgeted(_fresh(always, present), [], max_chars)
                path = f"{folder}/git-aide-always{suffix}"
                _note_left(out, path, left, max_chars)
                wanted[path] = _rule_file(agent, "always", None, text)
            if _fresh(other, present):
                wanted[f"{folder}/git-aide-technical{suffix}"] = _rule_file(
                    agent, "other", None, block(_fresh(other, present), []))
        for scope, group in scoped.items():
            if _fresh(group, present):
                wanted[f"{folder}/{slug(scope)}{suffix}"] = _rule_file(
                    agent, "scoped", scope, block(_fresh(group, present), []))
        out.files.update(wanted)
        for path in generated:
            if path not in wanted:
                out.files[path] = None
    return out


def _note_left(out: Plan, path: str, left: list[dict[str, Any]], max_chars: int | None
               ) -> None:
    for r in left:
        first = r["what"].strip().split("\n")[0]
        short = first if len(first) <= 60 else first[:57] + "..."
        out.notes.append(f"{path}: left out {r['uuid'][:8]} ({r['layer']}) to stay within "
                         f"{max_chars} characters: {short}")


def _generated(top: str, folder: str, suffix: str) -> list[str]:
    """The git-aide rule files already in a folder (named git-aide-*, holding a block)."""
    try:
        names = sorted(os.listdir(os.path.join(top, folder)))
    except OSError:
        return []
    found = []
    for name in names:
        if not (name.startswith("git-aide-") and name.endswith(suffix)):
            continue
        try:
            with open(os.path.join(top, folder, name), encoding="utf-8", errors="replace") as f:
                if BEGIN in f.read():
                    found.append(f"{folder}/{name}")
        except OSError:
            continue
    return found


def _read_text(top: str, path: str) -> str | None:
    """A rules file's text, or None when there is none."""
    try:
        with open(os.path.join(top, path), "rb") as f:
            return f.read().decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise AideError(f"{path} is not UTF-8 text; not touched") from None


Key = tuple[str, str, "str | None"]


def _key(r: dict[str, Any]) -> Key:
    scope = r.get("scope")
    return (r["what"].strip(), r["layer"], None if scope in ("", "project") else scope)


def _fresh(group: list[dict[str, Any]], present: set[Key]) -> list[dict[str, Any]]:
    """The memories of a group that no rule a person wrote says already."""
    return [r for r in group if _key(r) not in present]


def _written_outside(path: str, old: str | None, *, blocks: bool = False) -> set[Key]:
    """(text, layer, scope) of the rules a person wrote in a file, as import reads them:
    a memory imported from a file the agent reads anyway is not written out again."""
    if old is None:
        return set()
    from git_aide.agents.rules import file_defaults, parse

    doc = parse(old)
    layer, scope = file_defaults(path, doc.meta)
    return {(i.what.strip(), i.layer or layer, i.scope if i.from_block else scope)
            for i in doc.items if blocks or not i.from_block}


def _written_in_folder(top: str, folder: str, suffix: str, generated: list[str]) -> set[Key]:
    """What the rule files people wrote in an agent's rules folder already say."""
    try:
        names = sorted(os.listdir(os.path.join(top, folder)))
    except OSError:
        return set()
    keys: set[Key] = set()
    for name in names:
        path = f"{folder}/{name}"
        if name.endswith(suffix) and path not in generated:
            try:
                keys |= _written_outside(path, _read_text(top, path), blocks=True)
            except (AideError, OSError):
                continue  # not text, or not a file: not a rule an agent reads
    return keys


def _spliced(path: str, old: str | None, text: str, needed: bool) -> bytes | None:
    """The file with its block replaced (or appended); None: leave the file alone."""
    if old is None:
        return text.encode() if needed else None
    nl = "\r\n" if "\r\n" in old else "\n"
    lines = old.splitlines(keepends=True)
    begin = _find_begin(lines)
    if begin is None:
        if not needed:
            return None
        sep = "" if not old or old.endswith(nl * 2) else nl if old.endswith(nl) else nl * 2
        return (old + sep + text.replace("\n", nl)).encode()
    end = next((j for j in range(begin + 1, len(lines))
                if lines[j].rstrip("\r\n").rstrip() == END), None)
    if end is None:
        raise AideError(f"{path}: the line {BEGIN} has no {END} after it; fix the file by "
                        "hand, then export again")
    new = text.replace("\n", nl)
    if not lines[end].endswith("\n"):
        new = new[: -len(nl)]
    return ("".join(lines[:begin]) + new + "".join(lines[end + 1:])).encode()


def _find_begin(lines: list[str]) -> int | None:
    """The line of the begin marker, outside code fences (a file may show it as an example)."""
    fence = ""
    for i, line in enumerate(lines):
        s = line.strip()
        m = re.match(r"^(`{3,}|~{3,})", s)
        if fence:
            if m and s.startswith(fence) and not s.strip(fence[0]):
                fence = ""
        elif m:
            fence = m.group(1)
        elif s == BEGIN:
            return i
    return None


def _through_link(top: str, path: str) -> str:
    """Where to write `path`: a symlink (CLAUDE.md -> AGENTS.md) is kept and its target
    written, as long as the target is inside the working tree."""
    full = os.path.join(top, path)
    if not os.path.islink(full):
        return full
    target = os.path.realpath(full)
    root = os.path.realpath(top)
    if os.path.commonpath([root, target]) != root:
        raise AideError(f"{path} is a symbolic link out of the working tree; not written")
    return target


def export(repo: Repo, cache: Cache, agents: list[str], *, check: bool = False,
           max_chars: int | None = None) -> tuple[list[tuple[str, str]], list[str]]:
    """Write (or with `check`, compare) the files: ([(path, what happened)], notes)."""
    from git_aide.sources import load
    from git_aide.store import write_file

    top = repo.require_worktree("export")
    records = [e.record for e in load(repo, cache).entries]
    p = plan(top, records, agents, max_chars)
    done: list[tuple[str, str]] = []
    for path, data in sorted(p.files.items()):
        full = os.path.join(top, path)
        try:
            with open(full, "rb") as f:
                current: bytes | None = f.read()
        except FileNotFoundError:
            current = None
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
            write_file(_through_link(top, path), data)
            done.append((path, "created" if current is None else "updated"))
    return done, p.notes
