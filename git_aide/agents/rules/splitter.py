"""A rules file's markdown blocks split into memories the way a person would split them
into whole rules: a bullet or numbered item with everything under it, or a paragraph, is
one memory; a sentence that introduces a list, a code block or a table keeps them;
numbered steps, a listing of folders or files, and a list of fragments stay one memory;
a heading becomes the `context_label`. A paragraph that leans on the one before it is
one memory with it, and code is never a memory by itself. What is not kept is counted
with the reason. The shapes of text judged here are ruleshapes.py's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from git_aide.agents.rules.mdblocks import Block, render_blocks
from git_aide.agents.rules.ruleshapes import (
    ABOUT_FILE,
    EMPHASIS,
    ENTRY_GOES_ON,
    MDC_LINK,
    META,
    MODAL,
    POINTS_DOWN,
    RULE_START,
    STEP,
    TERM,
    WELCOME,
    bold_only,
    checklist,
    ends_colon,
    fragment,
    label_of,
    leans_back,
    listing,
    only_links,
    procedure,
    shown,
    stub,
    together,
)
from git_aide.core.memory import MAX_WHAT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.agents.rules.frontmatter import Meta

#: Why an `@path` line is not a memory (the file it names is read as itself).
IMPORT_LINE = "@ imports (each file read on its own)"
#: Shortest bullet and paragraph kept as a memory (aide-memory's import rule).
MIN_ITEM, MIN_PARAGRAPH = 6, 21

#: A paragraph that is one bold phrase shorter than this is a heading ("**Output
#: Handling**"); a longer one is a rule in bold.
MAX_LABEL = 40

#: The most words a metadata line holds: a longer paragraph is more than metadata.
MAX_META_WORDS = 25


@dataclass
class Item:
    """Hold one memory found in a rules file."""

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
    """Hold a parsed rules file: its front matter, its memories and what was left out."""

    #: The front matter keys read (strings, booleans, lists).
    meta: Meta = field(default_factory=dict)
    #: The memories, in file order.
    items: list[Item] = field(default_factory=list)
    #: What was not kept: (1-based line, why: a plural noun phrase), in file order.
    dropped: list[tuple[int, str]] = field(default_factory=list)


class Splitter:
    """Split blocks into memories as a person would split the file: into whole rules."""

    def __init__(self, doc: Doc) -> None:
        #: Where the memories and what was left out go.
        self.doc = doc
        #: The nearest heading above.
        self.label: str | None = None
        #: The heading above as written, and its line: the lead-in of code that nothing
        #: else introduces.
        self.heading_text: tuple[str, int] | None = None
        #: The memory that code under a sentence pointing at it may still join, and
        #: whether it is whole (a paragraph, an introduction and its list, a whole
        #: list), which a paragraph leaning on it joins, not one rule of a list.
        self.last: Item | None = None
        self.last_whole = False
        #: The memory of code under a heading, which the code right after it joins.
        self.last_code: Item | None = None
        #: A heading ending in a colon, the introduction of what follows it.
        self.heading_intro: Block | None = None
        #: The memory the next kept text joins: the one a paragraph leans on.
        self.join: Item | None = None

    def keep(self, text: str, line: int, whole: bool = False) -> Item:
        """Keep a memory (or, when `join` is set, more of that one); Cursor's
        `[x](mdc:path)` links become plain links, which every agent reads."""
        text = MDC_LINK.sub("](", text.strip())
        # A memory grown past what a memory may hold would be refused whole: what would
        # join it is then a memory of its own.
        if self.join is not None and _fits(self.join, text):
            item = self.join
            item.what += "\n" + text
            whole = True
        else:
            item = Item(text, line, self.label)
            self.doc.items.append(item)
        self.join = None
        self.last, self.last_whole, self.last_code = item, whole, None
        return item

    def drop(self, line: int, why: str) -> None:
        """Count something that is not a rule, for the summary."""
        self.doc.dropped.append((line, why))

    def run(self, blocks: list[Block]) -> None:
        """Split a run of blocks into memories (a file, or its text between exported blocks)."""
        i = 0
        first = False  # the first block under a heading
        while i < len(blocks):
            b = blocks[i]
            if b.kind == "heading":
                i = self.heading(blocks, i)
                first = True
                continue
            intro, self.heading_intro = self.heading_intro, None
            if b.kind == "para":
                i = self.para(blocks, i)
            elif b.kind == "list":
                i = self.list(blocks, i, intro, first)
            elif b.kind in ("code", "table"):
                if intro is not None:
                    self.keep(intro.text + "\n" + b.text, intro.line, whole=True)
                elif b.kind == "code":
                    self.code(b)
                elif not first:
                    self.drop(b.line, "tables nothing introduces")
                else:
                    self.keep(b.text, b.line)
                i += 1
            else:
                if b.kind == "html":
                    self.drop(b.line, "HTML and comments")
                i += 1
            first = False

    def code(self, b: Block) -> None:
        """Place code no sentence introduces, never a memory by itself: the heading above it is
        its lead-in (code right after such code joins it); with no heading, it joins the
        memory above it; with neither, it is left out."""
        if self.last_code is not None and _fits(self.last_code, b.text):
            self.last_code.what += "\n" + b.text
        elif self.heading_text is not None:
            text, line = self.heading_text
            self.last_code = self.keep(text + "\n" + b.text, line, whole=True)
        elif self.last is not None and _fits(self.last, b.text):
            self.last.what += "\n" + b.text
        else:
            self.drop(b.line, "code nothing introduces")

    def heading(self, blocks: list[Block], i: int) -> int:
        """Read a heading: the label of what follows, or the introduction of it when it ends
        in a colon, or the first of a procedure's steps."""
        b = blocks[i]
        self.last = self.last_code = None
        if STEP.match(b.text):
            return self.steps(blocks, i)
        self.label = label_of(b.text)
        self.heading_text = (b.text, b.line) if self.label else None
        nxt = blocks[i + 1] if i + 1 < len(blocks) else None
        if b.text.rstrip("*_ `").endswith(":") and nxt is not None and nxt.kind in (
                "list", "code", "table"):
            self.heading_intro = b  # "### DO use low-cardinality attributes:"
        return i + 1

    def steps(self, blocks: list[Block], i: int) -> int:
        """Keep headings `Step 1`, `Step 2`... and what is under them as one procedure."""
        level, line = blocks[i].level, blocks[i].line
        parts: list[str] = []
        while i < len(blocks):
            b = blocks[i]
            if b.kind == "heading" and (b.level < level or (
                    b.level == level and not STEP.match(b.text))):
                break
            if b.kind == "heading":
                parts.append(b.text)
            elif b.kind != "html":
                parts += render_blocks([b], "")
            i += 1
        self.keep("\n".join(parts), line)
        self.last = self.last_code = None
        return i

    def para(self, blocks: list[Block], i: int) -> int:
        """Read a paragraph, with the list, code or table it introduces or shows; one that
        leans on the memory before it is kept as more of that memory."""
        if self.last is not None and self.last_whole and leans_back(blocks[i].text):
            self.join = self.last
        try:
            return self._para(blocks, i)
        finally:
            self.join = None

    def _para(self, blocks: list[Block], i: int) -> int:
        b = blocks[i]
        nxt = blocks[i + 1] if i + 1 < len(blocks) else None
        text = b.text
        if ABOUT_FILE.match(text):
            self.drop(b.line, "lines about the file itself")
            return i + 1
        if WELCOME.match(text) and not MODAL.search(text):
            self.drop(b.line, "welcomes")
            return i + 1
        if META.match(text) and len(text.split()) <= MAX_META_WORDS:
            self.drop(b.line, "metadata about the file")
            return i + 1
        if text.startswith("@") and all(w.startswith("@") for w in text.split()):
            self.drop(b.line, IMPORT_LINE)
            return i + 1
        colon = ends_colon(text)
        label_only = bold_only(text)
        if nxt is not None and nxt.kind == "list" and (colon or label_only):
            return self.list(blocks, i + 1, b)
        if nxt is not None and nxt.kind in ("code", "table"):
            if (colon and stub(text) and self.last is not None
                    and not RULE_START.match(EMPHASIS.sub("", text))):
                # "Example:" and its code belong to the rule above them; "Run the
                # linter:" is a rule of its own.
                self.last.what += "\n" + text + "\n" + nxt.text
                return i + 2
            if colon and self.join is not None:
                self.keep(text + "\n" + nxt.text, b.line)  # "This way you can:"
                return i + 2
            if colon or label_only or POINTS_DOWN.search(text) or shown(text, nxt.text):
                self.keep(text + "\n" + nxt.text, b.line, whole=True)
                return i + 2
        if colon and stub(text):
            self.drop(b.line, "introductions to nothing")
        elif label_only and len(text) < MAX_LABEL:
            self.label = label_of(text)  # "**Output Handling**": a heading in bold
            self.heading_text = (text, b.line)
            self.last = self.last_code = None
        elif len(text) < MIN_PARAGRAPH:
            self.drop(b.line, "fragments too short to be a rule")
        elif only_links(text):
            self.drop(b.line, "tables of contents")
        else:
            self.keep(text, b.line, whole=True)
        return i + 1

    def list(self, blocks: list[Block], i: int, intro: Block | None,
             first: bool = False) -> int:
        """Read a list (at blocks[i]) and, when `intro` is set, the sentence introducing it;
        `first`: the list is the first thing under its heading."""
        b = blocks[i]
        entries = b.entries
        nxt = blocks[i + 1] if i + 1 < len(blocks) else None
        heads = [e.head() for e in entries]
        if all(only_links(h) for h in heads):
            self.drop(b.line, "tables of contents")
            return i + 1
        if intro is not None and together(intro.text, entries, heads, b.ordered):
            parts = [intro.text, *render_blocks([b], "")]
            used = i + 1
            if nxt is not None and nxt.kind in ("code", "table"):
                parts.append(nxt.text)  # the cases and the commands for each
                used += 1
            self.keep("\n".join(parts), intro.line, whole=True)
            return used
        self.join = None  # rules kept one by one: none is more of the memory above
        if intro is not None:
            self.drop(intro.line, "introductions to rules kept one by one")
        elif len(entries) > 1 and (listing(heads) or checklist(heads) or first and all(
                fragment(h) and len(e.blocks) == 1 and not TERM.match(h)
                for e, h in zip(entries, heads, strict=True))):
            # the folders, the contents, what to check
            self.keep("\n".join(render_blocks([b], "")), b.line, whole=True)
            return i + 1
        elif b.ordered and len(entries) > 1 and procedure(heads):
            self.keep("\n".join(render_blocks([b], "")), b.line, whole=True)  # numbered steps
            return i + 1
        prev: Item | None = None
        code_next = nxt is not None and nxt.kind in ("code", "table")
        for n, (e, head) in enumerate(zip(entries, heads, strict=True)):
            text = e.render()
            if prev is not None and ENTRY_GOES_ON.match(head):
                prev.what += "\n" + text
                continue
            if len(text) < MIN_ITEM:
                self.drop(e.line, "fragments too short to be a rule")
            elif stub(text) and len(e.blocks) == 1 and not (code_next and n == len(entries) - 1):
                # ("- Run the full test suite:" with its code unindented below it is the
                # code's lead-in, kept with it below.)
                self.drop(e.line, "introductions to nothing")
            elif only_links(text):
                self.drop(e.line, "tables of contents")
            else:
                prev = self.keep(text, e.line)
        if prev is not None and nxt is not None and nxt.kind in ("code", "table") and (
                ends_colon(prev.what)):
            prev.what += "\n" + nxt.text  # "... the following are correct:" and the code
            return i + 2
        return i + 1


def _fits(item: Item, text: str) -> bool:
    """Tell whether `text` may join a memory that stays within what a memory may hold."""
    return len(item.what) + 1 + len(text) <= MAX_WHAT
