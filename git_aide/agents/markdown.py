"""A rules file's markdown read as memories: each bullet or numbered item (with its
sub-items), or each paragraph, is one memory; headings become the `context_label`;
code, tables, HTML and comments are not memories. A block that `git aide export` wrote
is read back exactly, so that exporting and importing again round-trips.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from git_aide.agents.frontmatter import front_matter

#: The markers of the block `git aide export` owns inside a rules file.
BEGIN = "<!-- git-aide:begin -->"
END = "<!-- git-aide:end -->"
#: How each layer is titled in an exported block, in the order sections are written.
LAYER_TITLES: dict[str, str] = {
    "guidelines": "Guidelines", "preferences": "Preferences", "technical": "Technical",
    "area_context": "Area context",
}
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

# A rules file comes with the repository, so whoever commits it chooses these lines. The
# patterns left here are anchored and never retry a run of characters from many places,
# so each costs time linear in the line; the shapes that would (ATX headings, table rules,
# thematic breaks, a section's scope in backticks, runs of links, comments) are read by
# the plain functions below instead.
_SECTION = re.compile(r"^## (Guidelines|Preferences|Technical|Area context)( \(always\))?")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")
_ITEM = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*)|[ \t]*$)")
_HTML_TAG = re.compile(r"^\s*</?[A-Za-z][\w:-]*(\s[^<>]*)?/?>\s*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)\s*$")
_QUOTE = re.compile(r"^\s*>\s?")
_CALLOUT = re.compile(r"^\s*\[!\w+\]\s*$")
#: What may stand between the links of a line that is only links (a table of contents).
_LINK_GAP = frozenset(",;.|·-")


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
            line = _uncommented(lines[i])
            stripped = lines[i].strip()
            if stripped == BEGIN:
                self.flush()
                self.settle()
                i = _read_block(lines, i + 1, self.items)
                self.gap = True
                continue
            # A cheap test of a character first: a file can have a hundred thousand lines.
            fence = _FENCE.match(line) if "`" in line or "~" in line else None
            if fence:
                i = self._skip_fence(lines, i, fence.group(1))
                continue
            if "<!--" in line and line.lstrip().startswith("<!--"):
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
        i += 1
        while i < len(lines) and not _closes(lines[i], mark):
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
        quote = _QUOTE.match(line) if ">" in line else None
        if quote:
            line = line[quote.end():]
            if _CALLOUT.match(line):  # a callout's [!NOTE] marker
                return
        if not line.strip() or ("<" in line and _HTML_TAG.match(line)):
            self.brk()
            return
        heading = _atx(line) if "#" in line else None
        if heading is not None:
            self.flush()
            self.settle()
            self.label = _label(heading)
            self.gap = True
            return
        cur = self.cur
        if cur is not None and cur["kind"] == "para" and not self.gap and _SETEXT.match(line):
            self.label = _label(" ".join(cur["parts"]))
            self.cur = None
            self.settle()
            self.gap = True
            return
        if _is_break(line):
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
                parts.append(["  " * (len(stack) - 1) + line.strip()])
            else:
                # Words joined at the end: adding to one string would copy it once a line.
                parts[-1].append(line.strip())
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
            cur["parts"].append(["  " * (len(stack) - 1) + f"{mark} {text}"])
            stack.append(content)
            self.gap = False
            return
        self.flush()
        if self.intro is not None and self.group is None:
            self.group = []
        # An item's parts are its lines, each a list of the source lines it joins.
        self.cur = {"kind": "item", "line": no, "parts": [[text]], "stack": [content]}
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
            text = "\n".join(" ".join(p).rstrip() for p in cur["parts"]).strip()
            keep = len(text) >= MIN_ITEM
        # A table of contents is only links; "- **Steps:**" with nothing under it is a stub.
        if not keep or _is_stub(text) or _only_links(text):
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
    return "|" in s and "-" in nxt and "|" in nxt and _is_table_rule(nxt)


def _is_table_rule(line: str) -> bool:
    """`|---|:--:|`, `--- | ---`: a table's delimiter row, cells of dashes (with colons)."""
    s = line.strip()
    s = s[1:] if s.startswith("|") else s
    s = s[:-1] if s.endswith("|") else s
    for cell in s.split("|"):
        cell = cell.strip()
        cell = cell[1:] if cell.startswith(":") else cell
        cell = cell[:-1] if cell.endswith(":") else cell
        if not cell or cell.strip("-"):
            return False
    return True


def _uncommented(line: str) -> str:
    """The line without its `<!-- ... -->` comments; an unclosed one is left as it is."""
    start = line.find("<!--")
    if start < 0:
        return line
    kept: list[str] = []
    pos = 0
    while start >= 0:
        end = line.find("-->", start + 4)
        if end < 0:
            break  # no comment after this one can close either
        kept.append(line[pos:start])
        pos = end + 3
        start = line.find("<!--", pos)
    kept.append(line[pos:])
    return "".join(kept)


def _is_break(line: str) -> bool:
    """`---`, `* * *`, `___`: a thematic break (three or more of one mark, blanks between)."""
    lead = len(line) - len(line.lstrip(" "))
    mark = line[lead:lead + 1]
    if lead > 3 or mark not in ("-", "*", "_"):
        return False
    marks = "".join(line.split())
    return len(marks) >= 3 and not marks.strip(mark)


def _closes(line: str, mark: str) -> bool:
    """Whether the line closes a code fence opened with `mark` (as long a run, or longer)."""
    s = line.strip()
    return len(s) >= len(mark) and not s.strip(mark[0])


def _atx(line: str) -> str | None:
    """An ATX heading's text (`## Title ##` -> `Title`), or None when the line is not one."""
    lead = len(line) - len(line.lstrip(" "))
    if lead > 3:
        return None
    rest = line[lead:]
    hashes = len(rest) - len(rest.lstrip("#"))
    rest = rest[hashes:]
    if not 1 <= hashes <= 6 or rest[:1] not in ("", " ", "\t"):
        return None
    text = rest.strip(" \t")
    # A closing run of '#' goes when a blank stands before it: `# C# #` -> `C#`.
    bare = text.rstrip("#")
    if bare != text and bare[-1:] in (" ", "\t"):
        return bare.rstrip(" \t")
    return text


def _only_links(text: str) -> bool:
    """Whether the text is only links (`[a](b)`, `<https://...>`) and punctuation between
    them: a table of contents, not a rule."""
    n = len(text)
    i = n - len(text.lstrip())  # blanks may open the line, punctuation only follows a link
    links = 0
    while True:
        if links:
            while i < n and (text[i] in _LINK_GAP or text[i].isspace()):
                i += 1
        if i == n:
            return links > 0
        if text[i] == "[":
            close = text.find("]", i + 1)
            if close < 0 or text[close + 1:close + 2] != "(":
                return False
            end = text.find(")", close + 2)
        elif text[i] == "<":
            end = i + 1
            while end < n and text[end] != ">" and not text[end].isspace():
                end += 1
            if end == i + 1 or end == n or text[end] != ">":
                return False
        else:
            return False
        if end < 0:
            return False
        i, links = end + 1, links + 1


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
        m = _section(line.rstrip())
        if m:
            close()
            cur = None
            section = m
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


def _section(line: str) -> tuple[str, str, str | None] | None:
    """(layer, priority, scope) of a section heading `export` writes, or None:
    `## Technical (always) in `src/**`` (in double backticks when the scope holds one)."""
    m = _SECTION.match(line)
    if m is None:
        return None
    layer = next(k for k, v in LAYER_TITLES.items() if v == m.group(1))
    priority = "always" if m.group(2) else "normal"
    rest = line[m.end():]
    if not rest:
        return layer, priority, None
    if not rest.startswith(" in `"):
        return None
    quoted = rest[4:]
    # The longest run of backticks that both opens and closes the scope, around at least
    # one character; `` ``a`b`` `` holds the scope a`b.
    opening = len(quoted) - len(quoted.lstrip("`"))
    closing = len(quoted) - len(quoted.rstrip("`"))
    ticks = min(opening, closing, (len(quoted) - 1) // 2)
    if ticks < 1:
        return None
    return layer, priority, quoted[ticks:len(quoted) - ticks]
