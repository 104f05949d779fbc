"""What each agent loads by itself from a repository's rules files, so that git-aide never
sends it a second time.

Claude Code reads CLAUDE.md (and `.claude/CLAUDE.md`, `CLAUDE.local.md`, `.claude/rules/`)
from the repository root down to where it runs, follows `@path` imports, and loads the
CLAUDE.md of a subfolder once it opens a file there. Gemini CLI does the same with
GEMINI.md (or the names `context.fileName` gives). Codex concatenates AGENTS.md (or
AGENTS.override.md) from the root down to where it runs, and nothing more. Cursor, Copilot
and VS Code read their own instruction files, some of them only for the files their globs
match. `native_files` says which files, `loaded` what they hold.

Everything here is a pure function of (agent, repository top, path, launch folder): it
reads the files, asks git nothing, keeps no state, and imports only the standard library
and the small front-matter reader, because the hooks call it.
"""

from __future__ import annotations

import os
import re

from git_aide.core.memory import imported_from

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from git_aide.agents.rules.frontmatter import Meta, MetaValue
    from git_aide.core.jsonvalue import JSONObject

#: The agents whose native loading is known.
AGENTS = ("claude", "codex", "cursor", "gemini", "copilot", "vscode")
#: How deep `@path` imports are followed (Claude Code and Gemini CLI stop at five).
MAX_IMPORT_DEPTH = 5
#: The most bytes read of one rules file; agents themselves read far less.
MAX_FILE_BYTES = 2 * 1024 * 1024
#: The most rules files looked at in one rules folder (`.claude/rules`, `.cursor/rules`).
MAX_RULE_FILES = 500
#: The most entries of a rules folder walked to find them.
MAX_WALKED = 5000
#: The most files one agent is taken to load: a hook reads each of them.
MAX_NATIVE_FILES = 200
#: A memory's text counts as already in a file only from this many characters of words
#: on: shorter texts ("use uv") are found in too many files by chance.
MIN_TEXT_MATCH = 16
#: The bytes of AGENTS.md files Codex loads at most, all of them together, from the top
#: down (its `project_doc_max_bytes`; what lies past it reaches the model only through
#: git-aide).
CODEX_DOC_BYTES = 32 * 1024
#: A memory restates a rule of these files when one rule (a paragraph, a bullet) holds
#: this share of its words, at least RESTATED_WORDS of them, and every number and
#: identifier it names (a memory that adds one says more than the rule).
RESTATED_SHARE = 0.75
RESTATED_WORDS = 4

# `@path` after a blank or at the start of a line; a path may hold `\ ` (an escaped blank).
_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:\\ |[^\s`\\])+)")
# A code span: its `@` is code, not an import. Runs of backticks are matched whole.
_CODE_SPAN = re.compile(r"(`+)[^`]*\1")
_NOT_WORD = re.compile(r"[^0-9a-z]+")


def native_files(agent: str, top: str, path: str | None = None,
                 cwd: str | None = None, coming: Iterable[str] = ()) -> list[str]:
    """Return the rules files (repo-relative, `/`-separated, in load order, each once) that
    `agent` has in its context in the repository at `top`: those it loads at session start
    when `path` is None, and with them those it loads once it has opened `path` (a file or
    folder, repo-relative). `cwd` is where the agent runs (the top when None or outside).
    Imports (`@path`) are followed for the agents that follow them. `coming`: files not
    there yet that count as read if the agent would read them (those an export is about
    to create), after the others."""
    top = os.path.realpath(top)
    here = _inside(top, cwd) if cwd else ""
    chain = _chain(here or "")
    names: list[str] = []
    if agent == "claude":
        for d in chain:
            names += [_join(d, "CLAUDE.md"), _join(d, ".claude/CLAUDE.md"),
                      _join(d, "CLAUDE.local.md")]
            names += _rules(top, _join(d, ".claude/rules"), ".md", "paths", path)
        if path is not None:
            for d in _chain(_folder(top, path)):
                if d not in chain:
                    names += [_join(d, "CLAUDE.md"), _join(d, ".claude/CLAUDE.md"),
                              _join(d, "CLAUDE.local.md")]
    elif agent == "gemini":
        context = _gemini_names(top)
        for d in chain:
            names += [_join(d, n) for n in context]
        if path is not None:  # its just-in-time context: the file's folder up to the top
            for d in _chain(_folder(top, path)):
                names += [_join(d, n) for n in context]
    elif agent == "codex":
        for d in chain:
            override = _join(d, "AGENTS.override.md")
            names.append(override if _is_file(top, override) else _join(d, "AGENTS.md"))
    elif agent == "cursor":
        names += [".cursorrules", *(_join(d, "AGENTS.md") for d in chain)]
        names += _rules(top, ".cursor/rules", (".mdc", ".md"), "globs", path,
                        unset_applies=False)
        if path is not None:
            names += [_join(d, "AGENTS.md") for d in _chain(_folder(top, path))]
    elif agent in ("copilot", "vscode"):
        names.append(".github/copilot-instructions.md")
        if agent == "copilot":
            names += [_join(d, "AGENTS.md") for d in chain]
            names += ["CLAUDE.md", "GEMINI.md"]
            if path is not None:  # and the AGENTS.md on the way to the file it works on
                names += [_join(d, "AGENTS.md") for d in _chain(_folder(top, path))]
        else:
            names += ["AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"]
            names += _rules(top, ".claude/rules", ".md", "paths", path)
        names += _rules(top, ".github/instructions", ".instructions.md", "applyTo", path,
                        unset_applies=False)
    else:
        return []
    seen: dict[str, None] = {}
    follow = agent in ("claude", "gemini")
    for name in names:
        _add(top, name, seen, MAX_IMPORT_DEPTH if follow else 0)
    planned = set(coming)
    for name in names:
        if name in planned and name not in seen and not os.path.lexists(os.path.join(top, name)):
            seen[name] = None
    return list(seen)


class Loaded:
    """Keep what an agent already holds from its own rules files: which files, and their words."""

    def __init__(self, top: str, files: Iterable[str], caps: dict[str, int] | None = None
                 ) -> None:
        """Read `files` (repo-relative); `caps`: the bytes the agent loads of some of
        them, from their start (the rest of those it never sees)."""
        #: The files (repo-relative).
        self.files = frozenset(files)
        #: The lines the agent holds whole of each file it loads only a start of.
        self.lines: dict[str, int] = {}
        texts = []
        raw: list[str] = []
        for name in sorted(self.files):
            text = _read(os.path.join(top, name))
            if text and caps is not None and name in caps:
                data = text.encode("utf-8")
                if len(data) > caps[name]:
                    kept = data[:caps[name]]
                    self.lines[name] = kept.count(b"\n")
                    text = kept.decode("utf-8", "ignore")
            if text:
                texts.append(words(text))
                raw.append(text)
        #: The words of all of them, each file between spaces.
        self.text = " " + "  ".join(texts) + " "
        #: Each rule's words (stems), and which rules hold each word: made when asked.
        self._rules: list[frozenset[str]] | None = None
        self._holding: dict[str, list[int]] = {}
        self._raw = raw

    def has(self, record: JSONObject) -> bool:
        """Tell whether a memory is already in these files: imported from one of them (from a
        line the agent loads), or its text (its words, in order) written in one of them."""
        origin = imported_from(record)
        if origin is not None and origin[0] in self.files and (
                origin[0] not in self.lines or origin[1] <= self.lines[origin[0]]):
            return True
        what = record.get("what")
        if not isinstance(what, str) or not self.files:
            return False
        w = words(what)
        if len(w) >= MIN_TEXT_MATCH and f" {w} " in self.text:
            return True
        return self.restates(what)

    def restates(self, what: str) -> bool:
        """Tell whether one rule of these files says what `what` says in other words (word
        overlap: RESTATED_SHARE of its words, and each number and identifier it names)."""
        mine = _stems(what)
        if len(mine) < RESTATED_WORDS:
            return False
        if self._rules is None:
            self._rules = [_stems(rule) for text in self._raw for rule in _rules_of(text)]
            for i, rule in enumerate(self._rules):
                for w in rule:
                    self._holding.setdefault(w, []).append(i)
        counts: dict[int, int] = {}
        for w in mine:
            for i in self._holding.get(w, ()):
                counts[i] = counts.get(i, 0) + 1
        need = RESTATED_SHARE * len(mine)
        named = _named(what)
        return any(n >= need and named <= self._rules[i] for i, n in counts.items())

    def rule_texts(self) -> list[str]:
        """Return the rules of these files (paragraphs, bullets), as written."""
        return [rule for text in self._raw for rule in _rules_of(text)]


def names_held(what: str, rule: str) -> bool:
    """Return whether `rule` names every number and identifier `what` names (a memory that
    adds one says more than the rule, however alike their meaning)."""
    return _named(what) <= _stems(rule)


_RULE_START = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_WORD = re.compile(r"[a-z0-9]+(?:[._/-][a-z0-9]+)*")
#: Words too common to tell a rule by (core/words.py's, and what rules are made of). A
#: negation is no filler: "never use X" does not restate "use X".
_FILLER = frozenset("""a an and are as at be by for from has have in into is it its of on or
that the their then there this to was we were will with when you your do does must should
always only all any each every use used using make sure please keep can may also but so
than""".split())


def _rules_of(text: str) -> list[str]:
    """Cut a rules file into its rules: paragraphs, and each bullet or numbered item."""
    out: list[str] = []
    current: list[str] = []
    for line in text.split("\n"):
        if not line.strip() or _RULE_START.match(line) or line.lstrip().startswith("#"):
            if current:
                out.append(" ".join(current))
            current = [] if not line.strip() or line.lstrip().startswith("#") else [line]
            continue
        current.append(line)
    if current:
        out.append(" ".join(current))
    return out


def _stem(word: str) -> str:
    """Fold a word's commonest endings, so that restated forms meet ("migrations",
    "migrate", "migrating" -> "migrat")."""
    for end in ("ations", "ation", "ings", "ing", "ies", "ied", "es", "ed", "s", "e"):
        if len(word) > len(end) + 3 and word.endswith(end):
            return word[:-len(end)]
    return word


def _stems(text: str) -> frozenset[str]:
    """Return the stems of a text's words, filler left out; an identifier is one word."""
    return frozenset(_stem(w) for w in _WORD.findall(text.casefold())
                     if w not in _FILLER and len(w) > 1)


def _named(text: str) -> frozenset[str]:
    """Return the numbers and identifiers a text names (stems, as _stems makes them)."""
    return frozenset(_stem(w) for w in _WORD.findall(text.casefold())
                     if any(c.isdigit() or c in "._/-" for c in w))


def loaded(agent: str, top: str, paths: Iterable[str] = (), cwd: str | None = None) -> Loaded:
    """Return what `agent` holds from its rules files at session start and, with `paths`
    (repo-relative), once it has opened them."""
    files: dict[str, None] = dict.fromkeys(native_files(agent, top, None, cwd))
    for path in paths:
        files.update(dict.fromkeys(native_files(agent, top, path, cwd)))
    caps = _codex_caps(top, list(files)) if agent == "codex" else None
    return Loaded(top, files, caps)


def _codex_caps(top: str, files: list[str]) -> dict[str, int]:
    """Return the bytes Codex loads of each of its files, in load order: one budget
    (`project_doc_max_bytes`) for all of them, which each file that is not blank uses up
    as far as it goes."""
    left = _codex_budget(top)
    caps: dict[str, int] = {}
    for name in files:
        caps[name] = left
        text = _read(os.path.join(top, name))
        if text and text.strip():
            left = max(0, left - len(text.encode("utf-8")))
    return caps


def _codex_budget(top: str) -> int:
    """Return Codex's `project_doc_max_bytes`: the project's `.codex/config.toml`, else
    the user's (`$CODEX_HOME/config.toml`, by default `~/.codex/`), else 32 KiB. A key
    of the file's top level, read without a TOML parser (a hook imports little)."""
    home = os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")
    for config in (os.path.join(top, ".codex", "config.toml"), os.path.join(home, "config.toml")):
        text = _read(config)
        if not text:
            continue
        for line in text.splitlines():
            s = line.strip()
            if s.startswith("["):
                break  # a table: the keys after it are not the top level's
            m = re.match(r"project_doc_max_bytes\s*=\s*([0-9_]+)\s*(#.*)?$", s)
            if m:
                return int(m.group(1).replace("_", ""))
    return CODEX_DOC_BYTES


def words(text: str) -> str:
    """Reduce a text to its lowercase words and numbers, one space apart: markdown's
    emphasis, code marks, bullets and line breaks do not change it."""
    return _NOT_WORD.sub(" ", text.casefold()).strip()


# -- finding the files ----------------------------------------------------------------------

def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def _chain(folder: str) -> list[str]:
    """Return the folders from the top ("") down to `folder`, both included."""
    out = [""]
    parts = [p for p in folder.split("/") if p]
    for i in range(len(parts)):
        out.append("/".join(parts[:i + 1]))
    return out


def _inside(top: str, path: str) -> str | None:
    """Make `path` (absolute, or relative to the top) relative to the top; None when outside."""
    full = os.path.realpath(os.path.join(top, path))
    if full == top:
        return ""
    if not full.startswith(top.rstrip(os.sep) + os.sep):
        return None
    return os.path.relpath(full, top).replace(os.sep, "/")


def _folder(top: str, path: str) -> str:
    """Return the folder an agent opens `path` in: the path itself when it is a folder."""
    rel = _inside(top, path)
    if rel is None:
        return ""
    if rel and os.path.isdir(os.path.join(top, rel)):
        return rel
    return rel.rsplit("/", 1)[0] if "/" in rel else ""


def _is_file(top: str, name: str) -> bool:
    return os.path.isfile(os.path.join(top, name))


def _read(full: str) -> str | None:
    """Read a regular file's text, at most MAX_FILE_BYTES of it; None for anything else (a
    device or a pipe is never opened for reading: it could block a hook)."""
    import stat

    try:
        st = os.stat(full)
        if not stat.S_ISREG(st.st_mode):
            return None
        fd = os.open(full, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except (OSError, ValueError):
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return None
            data = f.read(MAX_FILE_BYTES)
    except OSError:
        return None
    return data.decode("utf-8", "replace")


def _add(top: str, name: str, seen: dict[str, None], depth: int) -> None:
    """Add a file that exists (under the name the agent reads, and under the name of the
    file a link in the tree points to) and, `depth` levels deep, what it imports."""
    full = os.path.join(top, name)
    if name in seen or len(seen) >= MAX_NATIVE_FILES or not os.path.isfile(full):
        return
    seen[name] = None
    real = _inside(top, os.path.realpath(full))
    if real is not None and real != name:
        seen[real] = None  # CLAUDE.md -> AGENTS.md: the memories of AGENTS.md are loaded
    if depth <= 0:
        return
    text = _read(full)
    if not text:
        return
    base = os.path.dirname(os.path.realpath(full))
    for target in imports(text):
        if target.startswith("~"):
            continue  # the user's own files, never a repository's
        rel = _inside(top, os.path.join(base, target))
        if rel:
            _add(top, rel, seen, depth - 1)


def imports(text: str) -> list[str]:
    """Find the `@path` imports of a CLAUDE.md or GEMINI.md (one parser for the hooks, import and
    export), in order, each once: outside code blocks and code spans, where an `@` is code (in
    time linear in the text, whatever it holds)."""
    found: dict[str, None] = {}
    fence = ""
    for line in text.split("\n"):
        s = line.strip()
        if fence:
            if s.startswith(fence) and not s.strip(fence[0]):
                fence = ""
            continue
        if s[:3] in ("```", "~~~"):
            fence = s[:len(s) - len(s.lstrip(s[0]))]
            continue
        if "@" not in line:
            continue
        for m in _IMPORT.finditer(_CODE_SPAN.sub(" ", line) if "`" in line else line):
            target = m.group(1).replace("\\ ", " ").rstrip(".,;:!?)]}>'\"")
            if target:
                found[target] = None
    return list(found)


def _rules(top: str, folder: str, suffix: str | tuple[str, ...], key: str,
           path: str | None, unset_applies: bool = True) -> list[str]:
    """Return the rules files under `folder` that apply: those whose front matter `key` (globs)
    is unset (when `unset_applies`: Claude's rules without `paths`) or covers everything,
    and, for a `path`, those whose globs match it. Cursor's `alwaysApply: true` applies
    everywhere too; its rules with only a description are the agent's to ask for."""
    root = os.path.join(top, folder)
    if not os.path.isdir(root):
        return []
    found: list[str] = []
    walked = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        walked += len(dirnames) + len(filenames)
        for f in sorted(filenames):
            if f.endswith(suffix):
                found.append(os.path.relpath(os.path.join(dirpath, f), top).replace(os.sep, "/"))
        if len(found) >= MAX_RULE_FILES or walked >= MAX_WALKED:
            break
    rel = _inside(top, path) if path is not None else None
    out: list[str] = []
    for name in found[:MAX_RULE_FILES]:
        meta = _front_matter(os.path.join(top, name))
        if meta is None:
            continue
        if meta.get("alwaysApply") is True:
            out.append(name)
            continue
        if key not in meta:
            if unset_applies:
                out.append(name)
            continue
        if _applies(top, meta.get(key), rel):
            out.append(name)
    return out


def _front_matter(full: str) -> Meta | None:
    """Read the front matter of the rules file at `full`; None when it cannot be read."""
    text = _read(full)
    if text is None:
        return None
    if not text.lstrip("\ufeff").startswith("---"):
        return {}
    from git_aide.agents.rules.frontmatter import front_matter

    meta, _body = front_matter(text.lstrip("\ufeff").splitlines()[:200])
    return meta


def _applies(top: str, globs: MetaValue, rel: str | None) -> bool:
    """Tell whether a rules file's globs cover everything, or the repo-relative `rel`."""
    from git_aide.agents.rules.frontmatter import combine_globs
    from git_aide.core import scope as scopes

    combined = combine_globs(globs)
    if combined is None:
        return bool(globs)  # `**` and the like: everywhere; an empty value: nowhere
    if rel is None or scopes.check(combined) is not None:
        return False
    try:
        return scopes.relevant(scopes.compile_scope(combined), rel,
                               os.path.isdir(os.path.join(top, rel)))
    except (ValueError, RecursionError):
        return False


def _gemini_names(top: str) -> list[str]:
    """Return the context file names Gemini CLI reads: `context.fileName` of the project's
    `.gemini/settings.json`, else GEMINI.md."""
    text = _read(os.path.join(top, ".gemini", "settings.json"))
    if text:
        import json

        try:
            value = json.loads(text).get("context", {}).get("fileName")
        except (ValueError, AttributeError, RecursionError):
            value = None
        names = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        names = [n for n in names if isinstance(n, str) and n and "/" not in n and n != ".."]
        if names:
            return names
    return ["GEMINI.md"]
