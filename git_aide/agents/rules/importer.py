"""Agents' rules files read as memories: `git aide import` and the MCP tool `aide_import`.

A rules file (CLAUDE.md, AGENTS.md, GEMINI.md, .cursorrules, .windsurfrules,
.github/copilot-instructions.md, .cursor/rules/*.mdc, .github/instructions/*.instructions.md,
.windsurf/rules/*.md, plain markdown) is front matter (frontmatter.py) plus markdown
read as items (markdown.py). The file's name and front matter decide the layer and
scope (docs/rules-files.md), here; each item is then written as a
memory. With no file
named, `import` finds the rules files agents read in the working tree (one that is a link
out of the tree, into the git folder or to an ignored file is refused); it follows their
`@path` imports (relative to the importing file, five deep, each file once, only to files
git tracks or would track: never out of the working tree, into the git folder or to an
ignored file), and says what it left out of each file.

A little over 400 lines: which layer and scope each kind of rules file gives its
rules, and the discovery of those files, are one table read together.
"""

from __future__ import annotations

import os
import stat

from git_aide.agents.rules.frontmatter import combine_globs
from git_aide.agents.rules.markdown import parse
from git_aide.agents.rules.reach import Walk, refuse_links
from git_aide.agents.rules.splitter import IMPORT_LINE as _IMPORT_LINE
from git_aide.agents.rules.splitter import Item
from git_aide.core.errors import AideError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.agents.rules.frontmatter import Meta
    from git_aide.cache.folder import Cache
    from git_aide.core.jsonvalue import JSONObject
    from git_aide.gitio.repo import Repo

#: Files an agent reads at every session start: their rules are team-wide guidelines.
ALWAYS_FILES = frozenset({"claude.md", "agents.md", "gemini.md", ".cursorrules",
                          ".windsurfrules", "copilot-instructions.md"})
#: Rules files that, away from the repository root, apply to their own folder only.
FOLDER_FILES = frozenset({"claude.md", "agents.md", "gemini.md"})
#: The most bytes a rules file may hold. Agents read a few KiB at most; a file a repository
#: brings can be anything, and reading is bounded so that it cannot exhaust memory.
MAX_RULES_BYTES = 2 * 1024 * 1024
#: MAX_RULES_BYTES as the messages say it.
MAX_RULES_SHOWN = "2 MiB"


# -- reading a rules file -------------------------------------------------------------

def read_rules(path: str, shown: str) -> bytes | None:
    """Read a rules file's bytes; None when there is none.

    Only a regular file of at most MAX_RULES_BYTES is read: a committed symlink to
    /dev/zero, /dev/tty or a named pipe would otherwise be read until memory runs out,
    or block. Anything else is refused with an AideError naming `shown`.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise AideError(f"cannot read {shown}: {e.strerror}") from None
    _refuse(path, shown, st)
    # O_NONBLOCK: should a pipe take the file's place after the check, opening it does
    # not wait for a writer (and reading a regular file ignores the flag).
    flags = (os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
             | getattr(os, "O_CLOEXEC", 0))
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise AideError(f"cannot read {shown}: {e.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        _refuse(path, shown, os.fstat(fd))
        try:
            data = f.read(MAX_RULES_BYTES + 1)
        except OSError as e:
            raise AideError(f"cannot read {shown}: {e.strerror}") from None
    if len(data) > MAX_RULES_BYTES:  # a file that grew, or one that lies about its size
        _refuse(path, shown, None)
    return data


def _refuse(path: str, shown: str, st: os.stat_result | None) -> None:
    """Raise the one-line refusal for what is not a rules file; `st` None: too large."""
    if st is not None and stat.S_ISREG(st.st_mode) and st.st_size <= MAX_RULES_BYTES:
        return
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise AideError(f"{shown} is a directory, not a rules file")
    try:
        where = f"{shown} (a link to {os.readlink(path)})" if os.path.islink(path) else shown
    except OSError:
        where = shown
    if st is None or stat.S_ISREG(st.st_mode):
        raise AideError(f"{where} is larger than {MAX_RULES_SHOWN}, more than any rules file "
                        "holds; not read")
    kind = ("a character device" if stat.S_ISCHR(st.st_mode) else
            "a block device" if stat.S_ISBLK(st.st_mode) else
            "a named pipe" if stat.S_ISFIFO(st.st_mode) else
            "a socket" if stat.S_ISSOCK(st.st_mode) else "not a file")
    raise AideError(f"{where} is {kind}; git-aide reads rules only from regular files")


# -- which layer and scope a file's rules get -----------------------------------------

def file_defaults(name: str, meta: Meta) -> tuple[str, str | None]:
    """Return the layer and scope of a file's rules, from its name and front matter.

    Always-on rules (CLAUDE.md and the like, `alwaysApply: true`, `trigger: always_on`,
    `applyTo: "**"`) are guidelines; glob-scoped rules are area_context with that
    scope; rules an agent reads on request (a description only, `model_decision`,
    `manual`) and plain markdown are technical facts, recalled when relevant.
    CLAUDE.md, AGENTS.md and GEMINI.md below the root apply to their folder.
    """
    rel = name.replace("\\", "/")
    base = rel.rsplit("/", 1)[-1].lower()
    folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
    if base.endswith(".mdc"):
        if meta.get("alwaysApply") is True:
            return "guidelines", None
        return _scoped(combine_globs(meta.get("globs")), "technical")
    if base.endswith(".instructions.md"):
        if "applyTo" not in meta:
            return "technical", None
        return _scoped(combine_globs(meta.get("applyTo")), "guidelines")
    trigger = meta.get("trigger")
    if isinstance(trigger, str):
        if trigger == "always_on":
            return "guidelines", None
        if trigger == "glob":
            return _scoped(combine_globs(meta.get("globs")), "technical")
        return "technical", None
    for key in ("globs", "paths", "applyTo"):  # Claude's .claude/rules use `paths`
        if meta.get(key):
            return _scoped(combine_globs(meta[key]), "guidelines")
    if base in FOLDER_FILES and folder and folder != ".":
        return "area_context", folder + "/**"
    if base in ALWAYS_FILES:
        return "guidelines", None
    return "technical", None


def _scoped(scope: str | None, unscoped_layer: str) -> tuple[str, str | None]:
    return ("area_context", scope) if scope else (unscoped_layer, None)


# -- finding the rules files ------------------------------------------------------------

#: Rules files an agent reads in any folder of the tree (below the root: for that folder).
NESTED_NAMES = frozenset({"CLAUDE.md", "AGENTS.md", "GEMINI.md", "CLAUDE.local.md"})
#: Rules files read only at the root.
ROOT_FILES = frozenset({".cursorrules", ".windsurfrules", ".github/copilot-instructions.md",
                        ".claude/CLAUDE.md"})
#: Rules folders at the root, and the endings of the rules files in them.
RULES_DIRS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (".cursor/rules/", (".mdc", ".md")), (".github/instructions/", (".instructions.md",)),
    (".windsurf/rules/", (".md",)), (".claude/rules/", (".md",)))
#: How many `@path` imports deep a rules file is followed (as Claude Code and Gemini do).
MAX_IMPORT_DEPTH = 5


def discover(repo: Repo, top: str) -> list[str]:
    """Find the rules files agents read in the working tree (tracked, or new and not ignored),
    repo-relative, the root's first. Files `export` generated are left out (importing
    them would bring back memories forgotten since), and so is a link to another of them
    (CLAUDE.md -> AGENTS.md: the same rules)."""
    out = repo.git("ls-files", "-z", "--cached", "--others", "--exclude-standard",
                   cwd=top).stdout.decode("utf-8", "surrogateescape")
    found: dict[str, None] = {}
    for path in out.split("\0"):
        base = path.rsplit("/", 1)[-1]
        if base.startswith("git-aide-") or not path:
            continue
        if (base in NESTED_NAMES or path in ROOT_FILES
                or any(path.startswith(d) and path.endswith(ends) for d, ends in RULES_DIRS)):
            found[path] = None
    files = sorted(found, key=lambda f: (f.count("/"), f))
    real = {os.path.realpath(os.path.join(top, f)): f for f in reversed(files)
            if not os.path.islink(os.path.join(top, f))}
    return [f for f in files if not (os.path.islink(os.path.join(top, f)) and real.get(
        os.path.realpath(os.path.join(top, f)), f) != f)]


# -- import ---------------------------------------------------------------------------

def import_doc(repo: Repo, cache: Cache, files: list[str], *, layer: str | None = None,
               scope: str | None = None, dry_run: bool = False) -> JSONObject:
    """Import rules files (paths relative to the current directory; none: every rules
    file of the working tree) and the files they `@import`; the --json document."""
    top = repo.require_worktree("import")
    root = os.path.realpath(top)
    warnings: list[str] = []
    if not files:
        kept = discover(repo, top)
        if not kept:
            raise AideError("no rules files here: looked for CLAUDE.md, AGENTS.md, "
                            "GEMINI.md (in every folder), .cursorrules, .windsurfrules, "
                            ".cursor/rules, .github/copilot-instructions.md, "
                            ".github/instructions, .windsurf/rules and .claude/rules")
        kept, warnings = refuse_links(repo, top, root, kept)
        if not kept:
            more = f" (and {len(warnings) - 1} more)" if len(warnings) > 1 else ""
            raise AideError(f"no rules files to import: {warnings[0]}{more}")
        files = [os.path.relpath(os.path.join(top, f)) for f in kept]
    walk = Walk(repo, root, given={_real(f) for f in files}, warnings=warnings,
                read=_read_text)
    texts = walk.texts
    seen = walk.seen
    for f in files:
        if os.path.isdir(f):
            raise AideError(f"{f} is a directory; name the rules files in it")
        text = _read_text(f)
        if text is None:
            hint = (" (the shell found no file for this pattern; `git aide import` with no "
                    "file finds the rules files by itself)" if set("*?[") & set(f) else "")
            raise AideError(f"no such file: {f}{hint}")
        where = _real(f)
        rel = os.path.relpath(where, root)
        shown = f if rel.startswith("..") else rel.replace(os.sep, "/")
        # Outside the repository there is no folder of it to scope to.
        kind = os.path.basename(f) if rel.startswith("..") else shown
        seen.add(where)
        texts.append((shown, kind, text))
        walk.follow(text, where, kind, MAX_IMPORT_DEPTH)
    doc = _import(repo, cache, texts, layer=layer, scope=scope, label=None, dry_run=dry_run)
    doc["warnings"] = warnings + doc["warnings"]
    return doc


def _real(path: str) -> str:
    """Return the file's absolute path with its folder resolved, not the file: a CLAUDE.md that
    links to AGENTS.md keeps its name."""
    where = os.path.abspath(path)
    return os.path.join(os.path.realpath(os.path.dirname(where)), os.path.basename(where))


def _read_text(path: str, shown: str | None = None) -> str | None:
    data = read_rules(path, shown or path)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise AideError(f"{shown or path} is not UTF-8 text") from None


def import_text(repo: Repo, cache: Cache, text: str, *, name: str = "import",
                layer: str | None = None, scope: str | None = None,
                context_label: str | None = None, dry_run: bool = False,
                generated_by: JSONObject | None = None) -> JSONObject:
    """Import rules given as text (`name` stands for the file in `why`); the --json document.
    `generated_by`: the agent that gave them (memory.by_agent), marked on each memory."""
    repo.require_worktree("import")
    if len(text.encode("utf-8", "surrogatepass")) > MAX_RULES_BYTES:
        raise AideError(f"the text to import is larger than {MAX_RULES_SHOWN}, more than any "
                        "rules file holds; not read")
    return _import(repo, cache, [(name, name, text)], layer=layer, scope=scope, label=context_label,
                   dry_run=dry_run, generated_by=generated_by)


def _import(repo: Repo, cache: Cache, texts: list[tuple[str, str, str]], *, layer: str | None,
            scope: str | None, label: str | None, dry_run: bool,
            generated_by: JSONObject | None = None) -> JSONObject:
    from git_aide.app import store
    from git_aide.app.context import Context
    from git_aide.core import memory

    if layer is not None and layer not in memory.LAYERS:
        raise UsageError(f"unknown layer {layer!r}; choose one of {', '.join(memory.LAYERS)}")
    if scope is not None:
        scope = store.clean_scope(scope)
    if not dry_run and repo.worktree is not None:
        # Refused before anything is written, as remember is: a read-only git folder
        # would leave the memories written and not staged.
        store.check_writable(repo, repo.worktree, [], True, "nothing was imported")
    have: dict[tuple[str, str | None, str], str] = {}
    for e in Context(repo, cache).snapshot().entries:
        r = e.read_record()
        if r.get("shared", True) is not False:
            have.setdefault((r["layer"], r["scope"], r["what"].strip()), r["uuid"])
    imported: list[JSONObject] = []
    skipped: list[JSONObject] = []
    warnings: list[str] = []
    paths: list[str] = []
    near = 0
    seen: set[tuple[str, str | None, str]] = set()
    left_out: list[JSONObject] = []
    for name, kind, text in texts:
        doc = parse(text)
        left_out += [{"where": f"{name}:{line}", "reason": why} for line, why in doc.dropped]
        if not doc.items and not any(why == _IMPORT_LINE for _l, why in doc.dropped):
            warnings.append(f"{name}: no rules found in it")
        # What an item's layer and scope come from is the same for every item of the file
        # (or of a block section): worked out once, as a file's globs can be long.
        resolved: dict[tuple[bool, str | None, str | None], tuple[str, str | None] | str] = {}
        for it in doc.items:
            where = f"{name}:{it.line}"
            try:
                want = _resolve(doc.meta, kind, it, layer, scope, resolved)
            except AideError as e:
                skipped.append({"what": it.what, "reason": "invalid_scope", "where": where,
                                "message": str(e)})
                continue
            key = (want[0], want[1], it.what.strip())
            item_label = label or it.label
            if key in have or key in seen:
                reason = "exists" if key in have else "repeated"
                skipped.append({"what": it.what, "reason": reason, "where": where,
                                "uuid": have.get(key)})
                continue
            try:
                store.check_text(it.what, where, item_label)
                # Whatever `validate` refuses (secrets, control characters, sizes), with
                # its own message, before anything is written.
                store.check_record(memory.new(
                    it.what, layer=want[0], contributor="import", why=where, scope=want[1],
                    context_label=item_label, source="import", priority=want[2]))
                store.check_pasted(it.what, forcible=False)  # a trace pasted in the rules
                if want[0] == "area_context" and want[1] is None:
                    raise AideError("an area_context memory needs a scope (--scope GLOB)")
            except AideError as e:
                secret = "secret" in str(e)
                skipped.append({
                    "what": "(withheld: it looks like a secret)" if secret else it.what,
                    "reason": "secret" if secret else "invalid", "where": where,
                    "message": str(e)})
                continue
            seen.add(key)
            if dry_run:
                imported.append({"what": it.what, "why": where, "layer": want[0],
                                 "scope": want[1], "context_label": item_label,
                                 "source": "import", "priority": want[2]})
                continue
            w = store.remember(repo, cache, it.what, why=where, layer=want[0], scope=want[1],
                               label=item_label, priority=want[2], source="import",
                               stage=False, generated_by=generated_by)
            if not w.created:
                skipped.append({"what": it.what, "reason": "exists", "where": where,
                                "uuid": w.uuid})
                continue
            near += any(x.startswith("a near duplicate of ") for x in w.warnings)
            warnings.extend(x for x in w.warnings if not x.startswith("a near duplicate of "))
            paths.append(w.path)
            imported.append({**(w.record or {}), "path": w.path})
    if near:
        # One line, not one per memory: a rules file often repeats itself in other words.
        warnings.append(f"{near} imported memor{'y has' if near == 1 else 'ies have'} a near "
                        "duplicate in the same layer; `git aide audit` lists them")
    if paths:
        with cache.lock("stage"):
            if not repo.stage(add=paths, remove=[]):
                warnings.append("the index is locked by another git process: the memories "
                                "were written but not staged; run `git add .aide/memories`")
    answer: JSONObject = {"imported": imported, "skipped": skipped, "dry_run": dry_run,
                              "files": [name for name, _k, _t in texts], "left_out": left_out,
                              "warnings": warnings}
    answer["summary"] = summary(answer)
    return answer


def summary(doc: JSONObject) -> str:
    """Say in one line what was imported from which files, what was there already, and what
    of the files was left out and why (`git aide import --json` lists each)."""
    n = len(doc["imported"])
    kept = sum(s["reason"] in ("exists", "repeated") for s in doc["skipped"])
    files = doc["files"]
    shown = ", ".join(files[:4]) + (f" and {len(files) - 4} more" if len(files) > 4 else "")
    line = (f"{'Would import' if doc['dry_run'] else 'Imported'} {n} memor"
            f"{'y' if n == 1 else 'ies'} from {shown}; {kept} already there")
    reasons: dict[str, int] = {}
    for x in doc["left_out"]:
        reasons[x["reason"]] = reasons.get(x["reason"], 0) + 1
    if reasons:
        line += "; left out: " + ", ".join(f"{why} ({count})" for why, count in reasons.items())
    return line + "."


def _resolve(meta: Meta, name: str, it: Item, layer: str | None,
             scope: str | None,
             known: dict[tuple[bool, str | None, str | None], tuple[str, str | None] | str]
             ) -> tuple[str, str | None, str]:
    """Work out one item's (layer, scope, priority): from the flags, else its block, else its file.

    `known` keeps the answers (or refusals) already worked out for this file."""
    from git_aide.app import store

    key = (it.from_block, it.layer, it.scope)
    if key not in known:
        if it.from_block:
            base_layer, base_scope = it.layer or "technical", it.scope
        else:
            base_layer, base_scope = file_defaults(name, meta)
        if scope is not None:
            base_scope = scope
            if layer is None and base_layer == "guidelines" and not it.from_block:
                base_layer = "area_context"  # a team's rules for one area of the code
        try:
            known[key] = (layer or base_layer, store.clean_scope(base_scope))
        except AideError as e:
            known[key] = str(e)
    answer = known[key]
    if isinstance(answer, str):
        raise AideError(answer)
    return answer[0], answer[1], it.priority
