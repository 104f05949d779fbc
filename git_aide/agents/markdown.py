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
