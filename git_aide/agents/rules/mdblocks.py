"""Markdown read as a tree of blocks, with markdown-it-py (block level only): headings,
paragraphs, lists with their entries, code, tables. A memory keeps its inline markdown
as written, so inline parsing is off; `render_blocks` writes blocks back as memory text.
Code markdown reads as a paragraph (a directory tree without a fence, commands indented
under "Run the linter:" with no blank line between) is read as code, so that its line
breaks are kept.

markdown-it is imported on the import and export paths only (never by recall or the
hooks), once per process.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

#: How deep markdown-it nests blocks; deeper input is read as plain text, so that a
#: hostile file of ten thousand nested quotes costs no more than a flat one.
MAX_NESTING = 20
CALLOUT = re.compile(r"^\[!\w+\]\s*")
#: A line of a directory tree: box-drawing branches (`├── src/`, `│   └── x`) or their
#: ASCII forms (`|-- src/`, `` `-- x ``, `+-- x`).
_TREE_LINE = re.compile(r"^\s*(?:[│|]\s*)*(?:[├└┌┬]|[|`+]--)")
#: A tree's root line: one name alone (`src/`, `.`, `my-app`), not a lead-in ending in a
#: colon.
_TREE_ROOT = re.compile(r"^\s*\S*[^\s:]\s*$")
#: How much deeper than the paragraph's first line a line starts to be code (CommonMark's
#: indented code, which cannot interrupt a paragraph and so is read as part of it).
CODE_INDENT = 4


@dataclass
class Block:
    """Hold a block of markdown: a heading, paragraph, list, code, table or anything else."""

    #: heading, para, list, code, table, html or hr.
    kind: str
    #: 1-based line where it starts.
    line: int
    #: A heading's or paragraph's text, a code block or table as written.
    text: str = ""
    #: A heading's level.
    level: int = 0
    #: A list's entries.
    entries: list[Entry] = field(default_factory=list)
    #: Whether a list is numbered.
    ordered: bool = False


@dataclass
class Entry:
    """Hold one entry of a list: its marker and the blocks inside it."""

    #: `-`, or `3.` for a numbered entry.
    marker: str
    #: 1-based line where it starts.
    line: int
    #: The blocks inside it.
    blocks: list[Block] = field(default_factory=list)

    def head(self) -> str:
        """Return the entry's first paragraph (empty when it starts with something else)."""
        return self.blocks[0].text if self.blocks and self.blocks[0].kind == "para" else ""

    def render(self) -> str:
        """Render the entry as memory text: its paragraphs, sub-entries, code and tables."""
        return "\n".join(render_blocks(self.blocks, "")).strip()


def _parser() -> MarkdownIt:
    """Make the block-level markdown parser."""
    # markdown-it is only needed on the import and export paths (never by recall or the
    # hooks): imported here, once per process.
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"maxNesting": MAX_NESTING}).enable("table")
    # Block structure only: a memory keeps its inline markdown as written. `normalize`
    # would turn NUL into U+FFFD, hiding a control character that import refuses.
    md.core.ruler.disable(["normalize", "inline", "text_join"], ignoreInvalid=True)
    return md


# The parser, made at the first import or export of a process.
_MD: MarkdownIt | None = None


def blocks(lines: list[str], offset: int) -> list[Block]:
    """Parse these lines (the file's lines from `offset` on) into their top-level blocks; a quote's
    blocks stand in its place."""
    global _MD
    if _MD is None:
        _MD = _parser()
    tokens = _MD.parse("\n".join(lines))
    out: list[Block] = []
    _Tree(tokens, lines, offset).read(0, len(tokens), out)
    return out


class _Tree:
    """Read markdown-it's flat token stream back into nested blocks."""

    def __init__(self, tokens: list[Token], lines: list[str], offset: int) -> None:
        self.tokens, self.lines, self.offset = tokens, lines, offset

    def line(self, tok: Token) -> int:
        """Return the 1-based line of the file where a token's block starts."""
        return (tok.map[0] if tok.map else 0) + self.offset + 1

    def close(self, i: int) -> int:
        """Return the index just past the token that closes the one opened at i."""
        depth = 0
        for j in range(i, len(self.tokens)):
            depth += self.tokens[j].nesting
            if depth == 0:
                return j + 1
        return len(self.tokens)

    def read(self, i: int, stop: int, out: list[Block]) -> None:
        """Read the blocks of tokens[i:stop] into `out`."""
        toks = self.tokens
        while i < stop:
            tok = toks[i]
            kind = tok.type
            if kind == "heading_open":
                text = toks[i + 1].content if i + 1 < stop else ""
                out.append(Block("heading", self.line(tok), " ".join(text.split()),
                                  level=int(tok.tag[1:])))
                i += 3
            elif kind == "paragraph_open":
                text = toks[i + 1].content if i + 1 < stop else ""
                lead, code = code_split(text)
                line = self.line(tok)
                if lead:
                    # After a callout's own line ("[!NOTE]"), the text starts a line below.
                    below = "\n" in lead and not CALLOUT.sub("", lead.split("\n", 1)[0]).strip()
                    out.append(Block("para", line + below, joined(lead)))
                if code:
                    out.append(Block("code", line + lead.count("\n") + bool(lead),
                                     "```\n" + code + "\n```"))
                i += 3
            elif kind in ("bullet_list_open", "ordered_list_open"):
                end = self.close(i)
                block = Block("list", self.line(tok), ordered=kind == "ordered_list_open")
                self.entries(i + 1, end - 1, block)
                out.append(block)
                i = end
            elif kind == "blockquote_open":
                end = self.close(i)
                self.read(i + 1, end - 1, out)
                i = end
            elif kind in ("fence", "code_block"):
                mark = tok.markup if kind == "fence" else "```"
                body = tok.content if tok.content.endswith("\n") or not tok.content else (
                    tok.content + "\n")
                out.append(Block("code", self.line(tok),
                                  f"{mark}{tok.info.strip()}\n{body}{mark}"))
                i += 1
            elif kind == "table_open":
                end = self.close(i)
                lo, hi = tok.map if tok.map else (0, 0)
                rows = [unquoted(s) for s in self.lines[lo:hi]]
                out.append(Block("table", self.line(tok), "\n".join(r for r in rows if r)))
                i = end
            elif kind == "html_block":
                out.append(Block("html", self.line(tok), tok.content))
                i += 1
            elif kind == "hr":
                out.append(Block("hr", self.line(tok)))
                i += 1
            elif tok.nesting == 1:
                i = self.close(i)
            else:
                i += 1

    def entries(self, i: int, stop: int, block: Block) -> None:
        """Read the entries of the list whose tokens are tokens[i:stop] into `block`."""
        toks = self.tokens
        while i < stop:
            tok = toks[i]
            if tok.type != "list_item_open":
                i += 1
                continue
            end = self.close(i)
            marker = f"{tok.info}{tok.markup}" if block.ordered else "-"
            entry = Entry(marker, self.line(tok))
            self.read(i + 1, end - 1, entry.blocks)
            block.entries.append(entry)
            i = end


def joined(text: str) -> str:
    """Join a paragraph's lines into one line: a soft line break is a blank."""
    text = CALLOUT.sub("", text.lstrip())  # a callout's [!NOTE] marker
    return " ".join(part.strip() for part in text.split("\n")).strip()


def code_split(text: str) -> tuple[str, str]:
    """Split a paragraph's text into (its prose, the code that ends it); either may be empty.

    Code is a directory tree (its root line, then branch lines), or lines indented
    CODE_INDENT deeper than the first under a line ending in a colon: markdown reads
    both as a paragraph, whose line breaks would be lost. The code keeps its lines, the
    indented commands without their common indentation.
    """
    lines = text.split("\n")
    n = len(lines)
    if n < 2:
        return text, ""
    # From the end, once: whether every line from k on is a tree line (blank lines aside),
    # the least indentation from k on, and how many lines from k on are not blank. Linear
    # in the paragraph, whatever it holds.
    tree = [True] * (n + 1)
    least = [1 << 30] * (n + 1)
    filled = [0] * (n + 1)
    for k in range(n - 1, -1, -1):
        s = lines[k]
        blank = not s.strip()
        tree[k] = tree[k + 1] and (blank or _TREE_LINE.match(s) is not None)
        least[k] = least[k + 1] if blank else min(least[k + 1], _indent(s))
        filled[k] = filled[k + 1] + (not blank)
    base = _indent(lines[0])
    for start in range(n - 1):
        lead = start == 0 or lines[start - 1].rstrip().endswith(":")
        if not lead or filled[start] < 2 or not lines[start].strip():
            continue
        if tree[start] or (tree[start + 1] and _TREE_ROOT.match(lines[start])):
            return "\n".join(lines[:start]), "\n".join(lines[start:]).rstrip()
        if start and least[start] >= base + CODE_INDENT:
            cut = least[start]
            return ("\n".join(lines[:start]),
                    "\n".join(s[cut:] for s in lines[start:]).rstrip())
    return text, ""


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def unquoted(line: str) -> str:
    s = line.strip()
    while s.startswith(">"):
        s = s[1:].lstrip()
    return s


def render_blocks(blocks: list[Block], indent: str) -> list[str]:
    """Render blocks as memory text lines: sub-entries as `- x` (or `1. x`), indented two
    spaces a level; code and tables as written."""
    out: list[str] = []
    for b in blocks:
        if b.kind in ("para", "heading"):
            out.append(indent + b.text)
        elif b.kind == "list":
            for e in b.entries:
                rest = e.blocks
                if rest and rest[0].kind == "para":
                    out.append(f"{indent}{e.marker} {rest[0].text}")
                    rest = rest[1:]
                else:
                    out.append(f"{indent}{e.marker}")
                out += render_blocks(rest, indent + "  ")
        elif b.kind in ("code", "table"):
            out += [indent + s if s else "" for s in b.text.split("\n")]
    return out
