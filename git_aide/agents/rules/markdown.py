"""A rules file's markdown read as memories, by whole rules: `parse`.

The file is tokenized by markdown-it-py (block level only: a memory keeps its inline
markdown as written; mdblocks.py), then split the way a person would split it
(splitter.py, judging the shapes of text in ruleshapes.py). What is not kept (comments,
welcomes, stubs that introduce nothing, lines about the file itself and its metadata,
tables of contents) is counted in `Doc.dropped`. A block that `git aide export` wrote is
read back exactly, here, so that exporting and importing again round-trips.
"""

from __future__ import annotations

import re

from git_aide.agents.rules.frontmatter import front_matter
from git_aide.agents.rules.mdblocks import blocks
from git_aide.agents.rules.splitter import Doc, Item, Splitter

#: The markers of the block `git aide export` owns inside a rules file.
BEGIN = "<!-- git-aide:begin -->"
END = "<!-- git-aide:end -->"
#: How an exported block heads the memories of one heading of their source (`### Testing`).
LABEL = "### "
#: How each layer is titled in an exported block, in the order sections are written.
LAYER_TITLES: dict[str, str] = {
    "guidelines": "Guidelines", "preferences": "Preferences", "technical": "Technical",
    "area_context": "Area context",
}

# Anchored, and `[^<>]*` cannot meet the `>` it stops at: linear in the line.
_HTML_TAG = re.compile(r"^\s*</?[A-Za-z][\w:-]*(\s[^<>]*)?/?>\s*$")

# The heading of a section of an exported block (read exactly, not as markdown).
_SECTION = re.compile(r"^## (Guidelines|Preferences|Technical|Area context)( \(always\))?")


def parse(text: str) -> Doc:
    """Read the front matter, the memories and what was left out of a rules file's text."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    meta, start = front_matter(lines)
    doc = Doc(meta=meta)
    i = start
    while i < len(lines):
        begin = _find_begin(lines, i)
        stop = len(lines) if begin is None else begin
        if stop > i:
            # Comments inside a line go first: markdown-it reads a line that opens with
            # one as HTML and would take the rule after it along.
            body = [_untagged(_uncommented(s)) for s in lines[i:stop]]
            doc.dropped += [(i + n + 1, "HTML and comments") for n, s in enumerate(body)
                            if not s.strip() and "<" in lines[i + n]]
            Splitter(doc).run(blocks(body, i))
            doc.dropped.sort()
        if begin is None:
            break
        i = _read_block(lines, begin + 1, doc.items)
    return doc


def _untagged(line: str) -> str:
    """Return a line that is only an HTML tag (`<critical>`, `</important>`) as a blank
    line: markdown would take the rules between such tags for HTML and drop them."""
    if "<" in line and _HTML_TAG.match(line):
        return ""
    return line


def _find_begin(lines: list[str], i: int) -> int | None:
    """Return the next line from i that is the begin marker outside a code fence (export
    finds its block the same way)."""
    fence = ""
    for j in range(i, len(lines)):
        s = lines[j].strip()
        if fence:
            if _closes(s, fence):
                fence = ""
        elif s[:3] in ("```", "~~~"):
            fence = s[:len(s) - len(s.lstrip(s[0]))]
        elif s == BEGIN:
            return j
    return None


def _uncommented(line: str) -> str:
    """Return the line without its `<!-- ... -->` comments; an unclosed one is left as it
    is."""
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


def _closes(line: str, mark: str) -> bool:
    """Tell whether the line closes a code fence opened with `mark` (as long a run, or
    longer)."""
    s = line.strip()
    return len(s) >= len(mark) and not s.strip(mark[0])


def _read_block(lines: list[str], i: int, items: list[Item]) -> int:
    """Read an exported block exactly: `## Layer [(always)] [in `scope`]`, `### label`
    (the heading the memories below it came from), then `- ` items."""
    section: tuple[str, str, str | None] | None = None
    cur: tuple[int, list[str]] | None = None
    under: str | None = None

    def close() -> None:
        if cur is not None and section is not None:
            what = "\n".join(cur[1]).strip()
            if what:
                layer, priority, scope = section
                items.append(Item(what, cur[0], under, layer, scope, priority, True))

    while i < len(lines) and lines[i].rstrip() != END:
        line = lines[i]
        m = _section(line.rstrip())
        if m:
            close()
            cur, section, under = None, m, None
        elif line.startswith(LABEL) and section is not None:
            close()
            cur, under = None, line[len(LABEL):].strip() or None
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
    """Return the (layer, priority, scope) of a section heading `export` writes, or None:
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
