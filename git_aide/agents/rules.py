"""Agents' rules files read as memories: `git aide import` and the MCP tool `aide_import`.

A rules file (CLAUDE.md, AGENTS.md, GEMINI.md, .cursorrules, .windsurfrules,
.github/copilot-instructions.md, .cursor/rules/*.mdc, .github/instructions/*.instructions.md,
.windsurf/rules/*.md, plain markdown) is front matter plus markdown. Each bullet or
numbered item (with its sub-items), or each paragraph, is one memory; headings become
the `context_label`; code, tables, HTML and comments are not memories. The front matter
decides the layer and scope (DESIGN section 14). A block that `git aide export` wrote is
read back exactly, so that exporting and importing again round-trips.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from git_aide.errors import AideError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.cache import Cache
    from git_aide.repo import Repo

#: The markers of the block `git aide export` owns inside a rules file.
BEGIN = "<!-- git-aide:begin -->"
END = "<!-- git-aide:end -->"
#: How each layer is titled in an exported block, in the order sections are written.
LAYER_TITLES: dict[str, str] = {
    "guidelines": "Guidelines", "preferences": "Preferences", "technical": "Technical",
    "area_context": "Area context",
}
#: Files an agent reads at every session start: their rules are team-wide guidelines.
ALWAYS_FILES = frozenset({"claude.md", "agents.md", "gemini.md", ".cursorrules",
                          ".windsurfrules", "copilot-instructions.md"})
#: Rules files that, away from the repository root, apply to their own folder only.
FOLDER_FILES = frozenset({"claude.md", "agents.md", "gemini.md"})
#: Shortest bullet and paragraph kept as a memory (aide-memory's import rule).
MIN_ITEM, MIN_PARAGRAPH = 6, 21
#: A paragraph or item of this many words or fewer that ends with a colon is a stub
#: introducing what follows ("Example:", "**Key Methods:**"), not a rule.
MAX_INTRO_WORDS = 5
#: The most words in a list entry still read as a fragment of the introduction above it
#: ("Docker", "Node 20 or newer"), not a rule of its own.
MAX_FRAGMENT_WORDS = 4
#: How a rule opens: an entry starting so is a rule even when short ("Use tabs").
_RULE_START = re.compile(r"^(use|prefer|avoid|always|never|do|don'?t|keep|run|write|add|"
                         r"make|put|call|check|ensure|follow|must|should|no)\b", re.IGNORECASE)

_SECTION = re.compile(r"^## (Guidelines|Preferences|Technical|Area context)( \(always\))?"
                      r"(?: in (`+)(.+)\3)?$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_ITEM = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*)|[ \t]*$)")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
_HTML_TAG = re.compile(r"^\s*</?[A-Za-z][\w:-]*(\s[^<>]*)?/?>\s*$")
_BREAK = re.compile(r"^ {0,3}([-*_])(\s*\1){2,}\s*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)\s*$")
_ONLY_LINKS = re.compile(r"^(\s*(\[[^\]]*\]\([^)]*\)|<[^>\s]+>)[\s,;.|·-]*)+$")
_KEY = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$")
_COMMENT = re.compile(r"<!--.*?-->")


@dataclass
class Item:
    """One memory found in a rules file."""

    #: The memory's text.
    what: str
    #: 1-based line in the file where it starts.
    line: int
    #: The nearest heading above it.
    label: str | None = None
    #: Set for the memories of an exported block: their own layer, scope and priority.
    layer: str | None = None
    scope: str | None = None
    priority: str = "normal"
    from_block: bool = False


@dataclass
class Doc:
    """A parsed rules file: its front matter and its memories."""

    #: The front matter keys read (strings, booleans, lists).
    meta: dict[str, Any] = field(default_factory=dict)
    #: The memories, in file order.
    items: list[Item] = field(default_factory=list)


# -- front matter ---------------------------------------------------------------------

def front_matter(lines: list[str]) -> tuple[dict[str, Any], int]:
    """The front matter keys and the index of the first body line.

    A small reader for what rules files hold (strings, quoted strings, booleans,
    inline and block lists, block scalars), not YAML: Cursor writes `globs: **/*.ts`
    unquoted, which a YAML parser rejects as an alias. Some files repeat the block;
    the later one fills what the earlier left empty.
    """
    meta: dict[str, Any] = {}
    i = 0
    while i < len(lines) and lines[i].strip() == "---":
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() in ("---", "...")),
                   None)
        inside = [s for s in lines[i + 1:end or 0] if s.strip()]
        body = [s for s in inside if not s.startswith("#")]
        # Two thematic breaks around a heading look alike: front matter has keys.
        if end is None or (body and not _KEY.match(body[0])) or (
                not body and (i > 0 or inside)):
            break
        for key, value in _mapping(lines[i + 1:end]).items():
            if value not in (None, "", []) or key not in meta:
                meta[key] = value
        i = end + 1
        while i < len(lines) and not lines[i].strip():
            i += 1
    return meta, (i if meta or i else 0)


def _mapping(lines: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    key: str | None = None
    block: str | None = None
    buf: list[str] = []

    def finish() -> None:
        nonlocal block
        if key is not None and block:
            out[key] = ("\n" if block == "|" else " ").join(buf).strip()
        block = None

    for raw in lines:
        text = raw.strip()
        if raw[:1] in (" ", "\t") and key is not None and text:
            if block:
                buf.append(text)
            elif text.startswith("-"):
                if not isinstance(out.get(key), list):
                    out[key] = []
                out[key].append(_scalar(text[1:].strip()))
            continue  # a nested mapping under a key we do not read
        if not text or text.startswith("#"):
            continue
        finish()
        m = _KEY.match(raw)
        if not m:
            key = None
            continue
        key, value = m.group(1), (m.group(2) or "").strip()
        if value[:1] in ("|", ">") and value.rstrip("+-0123456789") in ("|", ">"):
            block, buf = value[0], []
            out[key] = ""
        else:
            out[key] = _value(value) if value else None
    finish()
    return out


def _value(text: str) -> Any:
    if text.startswith("[") and text.endswith("]"):
        return [_scalar(p) for p in split_commas(text[1:-1]) if p.strip()]
    parts = split_commas(text)
    if len(parts) > 1 and all(p[:1] in "\"'" for p in parts):  # "a", "b" without brackets
        return [_scalar(p) for p in parts]
    return _scalar(text)


def _scalar(text: str) -> Any:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return re.sub(r'\\(["\\/])', r"\1", text[1:-1])
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    text = re.sub(r"\s+#.*$", "", text)
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    return None if low in ("null", "~", "") else text


def split_commas(text: str) -> list[str]:
    """Split at commas outside braces, brackets and quotes: `a, b/*.{c,d}` -> 2 parts."""
    parts, cur, depth, quote = [], [], 0, ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]" and depth:
            depth -= 1
        elif ch == "," and not depth:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts]


# -- globs -> one scope ---------------------------------------------------------------

def combine_globs(value: Any) -> str | None:
    """Agent globs (a comma-separated string or a list) as one scope; None: everywhere.

    `src/**/*.ts, src/**/*.tsx` -> `src/**/*.{ts,tsx}`; `a/**, b/**` -> `{a/**,b/**}`;
    `src/x/**, src/y/**` -> `src/{x/**,y/**}`.
    """
    raw = value if isinstance(value, list) else [value]
    alts: list[str] = []
    for entry in raw:
        if not isinstance(entry, str):
            continue
        for part in split_commas(entry):
            part = _scalar(part) if part[:1] in "\"'" else part
            if not isinstance(part, str):
                continue
            part = part.strip().replace("\\", "/")
            while part.startswith("./"):
                part = part[2:]
            part = part.lstrip("/")
            if part and part not in alts:
                alts.append(part)
    if not alts or any(a in ("**", "**/*", "*", "**/**") for a in alts):
        return None
    if len(alts) == 1:
        return alts[0]
    segs = [a.split("/") for a in alts]
    if all(len(s) == len(segs[0]) and s[:-1] == segs[0][:-1] for s in segs):
        lasts = [s[-1].rsplit(".", 1) for s in segs]
        if (all(len(p) == 2 and p[0] == lasts[0][0] and "{" not in p[1] for p in lasts)
                and "{" not in lasts[0][0]):
            exts = ",".join(p[1] for p in lasts)
            return "/".join([*segs[0][:-1], f"{lasts[0][0]}.{{{exts}}}"])
    common: list[str] = []
    for column in zip(*(s[:-1] for s in segs), strict=False):
        if len(set(column)) != 1:
            break
        common.append(column[0])
    rest = ",".join("/".join(s[len(common):]) for s in segs)
    return ("/".join(common) + "/" if common else "") + "{" + rest + "}"


# -- markdown -> items ----------------------------------------------------------------

def parse(text: str) -> Doc:
    """The front matter and the memories of a rules file's text."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    meta, start = front_matter(lines)
    doc = Doc(meta=meta)
    _Reader(doc.items).run(lines, start)
    return doc


class _Reader:
    """Markdown lines to items: a paragraph or a list item (with its sub-items) each."""

    def __init__(self, items: list[Item]) -> None:
        self.items = items
        self.label: str | None = None
        self.cur: dict[str, Any] | None = None
        self.gap = True  # a blank line (or skipped block) since the last text line
        self.intro: Item | None = None  # a paragraph ending in a colon, waiting
        self.group: list[Item] | None = None  # the list items after that introduction

    def run(self, lines: list[str], start: int) -> None:
        """Read lines[start:]."""
        i = start
        while i < len(lines):
            line = _COMMENT.sub("", lines[i])
            stripped = lines[i].strip()
            if stripped == BEGIN:
                self.flush()
                self.settle()
                i = _read_block(lines, i + 1, self.items)
                self.gap = True
                continue
            fence = _FENCE.match(line)
            if fence:
                i = self._skip_fence(lines, i, fence.group(1))
                continue
            if line.lstrip().startswith("<!--"):
                while i < len(lines) and "-->" not in lines[i]:
                    i += 1
                i += 1
                self.brk()
                continue
            if _is_table(lines, i):
                while i < len(lines) and "|" in lines[i] and lines[i].strip():
                    i += 1
                self.brk()
                if self.cur is None:  # not a table inside a list item
                    self.settle()
                continue
            self.line(line, i + 1)
            i += 1
        self.flush()
        self.settle()

    def _skip_fence(self, lines: list[str], i: int, mark: str) -> int:
        close = re.compile(r"^\s*" + re.escape(mark[0]) + "{" + str(len(mark)) + r",}\s*$")
        i += 1
        while i < len(lines) and not close.match(lines[i]):
            i += 1
        self.brk()
        if self.cur is None:  # not a code block inside a list item
            self.settle()
        return i + 1

    def brk(self) -> None:
        """A blank line or a skipped block: it ends a paragraph, not a list item."""
        if self.cur is not None and self.cur["kind"] == "para":
            self.flush()
        self.gap = True

    def line(self, line: str, no: int) -> None:
        """One line of markdown."""
        quote = re.match(r"^\s*>\s?", line)
        if quote:
            line = line[quote.end():]
            if re.match(r"^\s*\[!\w+\]\s*$", line):  # a callout's [!NOTE] marker
                return
        if not line.strip() or _HTML_TAG.match(line):
            self.brk()
            return
        heading = _ATX.match(line)
        if heading:
            self.flush()
            self.settle()
            self.label = _label(heading.group(2) or "")
            self.gap = True
            return
        setext = _SETEXT.match(line)
        cur = self.cur
        if setext and cur is not None and cur["kind"] == "para" and not self.gap:
            self.label = _label(" ".join(cur["parts"]))
            self.cur = None
            self.settle()
            self.gap = True
            return
        if _BREAK.match(line):
            self.flush()
            self.settle()
            self.gap = True
            return
        indent = len(line) - len(line.lstrip())
        item = _ITEM.match(line)
        if item and (item.group(3) or "").strip():
            self.item(item, no)
        elif cur is not None and cur["kind"] == "item" and (not self.gap or indent >= 2):
            parts, stack = cur["parts"], cur["stack"]
            if self.gap:
                while len(stack) > 1 and indent < stack[-1]:
                    stack.pop()
                parts.append("  " * (len(stack) - 1) + line.strip())
            else:
                parts[-1] += " " + line.strip()
        elif cur is not None and cur["kind"] == "para" and not self.gap:
            cur["parts"].append(line.strip())
        elif indent >= 4 and cur is None and self.gap:
            pass  # an indented code block
        else:
            self.flush()
            self.settle()
            self.cur = {"kind": "para", "line": no, "parts": [line.strip()]}
        self.gap = False

    def item(self, m: re.Match[str], no: int) -> None:
        """A list item: a new memory, or a sub-item of the open one."""
        indent, marker, text = len(m.group(1).expandtabs(4)), m.group(2), m.group(3).strip()
        content = indent + len(marker) + 1
        cur = self.cur
        if cur is not None and cur["kind"] == "item" and indent >= cur["stack"][0]:
            stack = cur["stack"]
            while len(stack) > 1 and indent < stack[-1]:
                stack.pop()
            mark = marker if marker[0].isdigit() else "-"
            cur["parts"].append("  " * (len(stack) - 1) + f"{mark} {text}")
            stack.append(content)
            self.gap = False
            return
        self.flush()
        if self.intro is not None and self.group is None:
            self.group = []
        self.cur = {"kind": "item", "line": no, "parts": [text], "stack": [content]}
        self.gap = False

    def flush(self) -> None:
        """Close the open paragraph or item; keep it if it says something."""
        cur, self.cur = self.cur, None
        if cur is None:
            return
        if cur["kind"] == "para":
            text = " ".join(cur["parts"]).strip()
            if text.rstrip("*_ `").endswith(":"):
                # "Prerequisites:", "Example:": it introduces what follows; decided there.
                self.settle()
                self.intro = Item(text, cur["line"], self.label)
                return
            keep = len(text) >= MIN_PARAGRAPH
        else:
            text = "\n".join(p.rstrip() for p in cur["parts"]).strip()
            keep = len(text) >= MIN_ITEM
        # A table of contents is only links; "- **Steps:**" with nothing under it is a stub.
        if not keep or _is_stub(text) or _ONLY_LINKS.match(text):
            return
        item = Item(text, cur["line"], self.label)
        if cur["kind"] == "item" and self.group is not None:
            self.group.append(item)
        else:
            self.items.append(item)

    def settle(self) -> None:
        """Decide what an introduction ending in a colon and the list after it become.

        A short label ("Prerequisites:", at most MAX_INTRO_WORDS words) over a list of
        fragments ("- Docker", "- Node 20": a few words, not opening like a rule) is one
        memory; anything else (a sentence introducing rules, "Use 2-space indentation")
        is one memory per entry and the introduction goes; an introduction to a code block
        or a table stays only if it is more than a stub ("Example:", "**Key Methods:**").
        """
        intro, group, self.intro, self.group = self.intro, self.group, None, None
        if intro is None:
            return
        if not group:
            if not _is_stub(intro.what):
                self.items.append(intro)
        elif _is_stub(intro.what) and all(_is_fragment(i.what) for i in group):
            intro.what += "".join("\n- " + i.what for i in group)
            self.items.append(intro)
        else:
            self.items.extend(group)


def _is_fragment(text: str) -> bool:
    """A list entry that is a name or a few words, not a rule of its own."""
    return ("\n" not in text and len(text.split()) <= MAX_FRAGMENT_WORDS
            and not _RULE_START.match(text.lstrip("*_` ")))


def _is_stub(text: str) -> bool:
    return text.rstrip("*_ `").endswith(":") and len(text.split()) <= MAX_INTRO_WORDS


def _is_table(lines: list[str], i: int) -> bool:
    s = lines[i].strip()
    if s.startswith("|") and s.count("|") >= 2:
        return True
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    return "|" in s and "-" in nxt and "|" in nxt and bool(_TABLE_RULE.match(nxt))


def _label(text: str) -> str | None:
    text = re.sub(r"[*_`]+", "", text).strip().rstrip(":").strip()
    return text[:120] or None


def _read_block(lines: list[str], i: int, items: list[Item]) -> int:
    """An exported block, read exactly: `## Layer [(always)] [in `scope`]` then `- ` items."""
    section: tuple[str, str, str | None] | None = None
    cur: tuple[int, list[str]] | None = None

    def close() -> None:
        if cur is not None and section is not None:
            what = "\n".join(cur[1]).strip()
            if what:
                layer, priority, scope = section
                items.append(Item(what, cur[0], None, layer, scope, priority, True))

    while i < len(lines) and lines[i].rstrip() != END:
        line = lines[i]
        m = _SECTION.match(line.rstrip())
        if m:
            close()
            cur = None
            layer = next(k for k, v in LAYER_TITLES.items() if v == m.group(1))
            section = (layer, "always" if m.group(2) else "normal", m.group(4))
        elif line.startswith("- ") and section is not None:
            close()
            cur = (i + 1, [line[2:]])
        elif cur is not None and (line.startswith("  ") or not line.strip()):
            cur[1].append(line[2:])
        else:
            close()
            cur = None
        i += 1
    close()
    return i + 1


# -- which layer and scope a file's rules get -----------------------------------------

def file_defaults(name: str, meta: dict[str, Any]) -> tuple[str, str | None]:
    """The layer and scope of a file's rules, from its name and front matter.

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


# -- import ---------------------------------------------------------------------------

def import_doc(repo: Repo, cache: Cache, files: list[str], *, layer: str | None = None,
               scope: str | None = None, dry_run: bool = False) -> dict[str, Any]:
    """Import rules files (paths relative to the current directory); the --json document."""
    top = repo.require_worktree("import")
    texts: list[tuple[str, str, str]] = []
    for f in files:
        try:
            with open(f, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            raise AideError(f"no such file: {f}") from None
        except IsADirectoryError:
            raise AideError(f"{f} is a directory; name the rules files in it") from None
        except OSError as e:
            raise AideError(f"cannot read {f}: {e.strerror}") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise AideError(f"{f} is not UTF-8 text") from None
        # The folder resolved, not the file: a CLAUDE.md that links to AGENTS.md keeps its name.
        where = os.path.abspath(f)
        where = os.path.join(os.path.realpath(os.path.dirname(where)), os.path.basename(where))
        rel = os.path.relpath(where, os.path.realpath(top))
        if rel.startswith(".."):  # outside the repository: no folder of it to scope to
            texts.append((f, os.path.basename(f), text))
        else:
            texts.append((rel.replace(os.sep, "/"), rel.replace(os.sep, "/"), text))
    return _import(repo, cache, texts, layer=layer, scope=scope, label=None, dry_run=dry_run)


def import_text(repo: Repo, cache: Cache, text: str, *, name: str = "import",
                layer: str | None = None, scope: str | None = None,
                context_label: str | None = None, dry_run: bool = False) -> dict[str, Any]:
    """Import rules given as text (`name` stands for the file in `why`); the --json document."""
    repo.require_worktree("import")
    return _import(repo, cache, [(name, name, text)], layer=layer, scope=scope, label=context_label,
                   dry_run=dry_run)


def _import(repo: Repo, cache: Cache, texts: list[tuple[str, str, str]], *, layer: str | None,
            scope: str | None, label: str | None, dry_run: bool) -> dict[str, Any]:
    from git_aide import memory, store
    from git_aide.sources import load

    if layer is not None and layer not in memory.LAYERS:
        raise UsageError(f"unknown layer {layer!r}; choose one of {', '.join(memory.LAYERS)}")
    if scope is not None:
        scope = store.clean_scope(scope)
    have: dict[tuple[str, str | None, str], str] = {}
    for e in load(repo, cache).entries:
        r = e.record
        if r.get("shared", True) is not False:
            have.setdefault((r["layer"], r["scope"], r["what"].strip()), r["uuid"])
    imported: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    warnings: list[str] = []
    paths: list[str] = []
    near = 0
    seen: set[tuple[str, str | None, str]] = set()
    for name, kind, text in texts:
        doc = parse(text)
        for it in doc.items:
            where = f"{name}:{it.line}"
            try:
                want = _resolve(doc.meta, kind, it, layer, scope)
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
                               stage=False)
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
    return {"imported": imported, "skipped": skipped, "dry_run": dry_run,
            "warnings": warnings}


def _resolve(meta: dict[str, Any], name: str, it: Item, layer: str | None,
             scope: str | None) -> tuple[str, str | None, str]:
    """(layer, scope, priority) of one item: the flags, else its block, else its file."""
    from git_aide import store

    if it.from_block:
        base_layer, base_scope = it.layer or "technical", it.scope
    else:
        base_layer, base_scope = file_defaults(name, meta)
    if scope is not None:
        base_scope = scope
        if layer is None and base_layer == "guidelines" and not it.from_block:
            base_layer = "area_context"  # a team's rules for one area of the code
    return layer or base_layer, store.clean_scope(base_scope), it.priority
