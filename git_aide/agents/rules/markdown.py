"""A rules file's markdown read as memories, by whole rules.

The file is tokenized by markdown-it-py (block level only: a memory keeps its inline
markdown as written), then split the way a person would split it: a bullet or numbered
item with everything under it, or a paragraph, is one memory; a sentence that introduces
a list, a code block or a table keeps them; numbered steps, a listing of folders or files,
and a list of fragments stay one memory; a heading becomes the `context_label`. A rule
stands alone: a paragraph that leans on the one before it ("One without the other is the
trap", "This is the opposite case from the rule above") is one memory with it, and code
is never a memory by itself: code nothing introduces takes the heading above it as its
lead-in. What is not kept (comments, welcomes, stubs that introduce nothing, lines about
the file itself and its metadata, tables of contents) is counted in `Doc.dropped`. A
block that `git aide export` wrote is read back exactly, so that exporting and importing
again round-trips.

Longer than most modules, on purpose: the splitter and the shapes of text it judges
(the patterns at the top, the predicates at the bottom) are one judgment, tuned together
against the corpus in tests/fixtures/rules; the markdown tree itself is mdblocks.py's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from git_aide.agents.rules.frontmatter import front_matter
from git_aide.agents.rules.mdblocks import Block, Entry, blocks, render_blocks
from git_aide.core.memory import MAX_WHAT

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
#: Why an `@path` line is not a memory (the file it names is read as itself).
IMPORT_LINE = "@ imports (each file read on its own)"
#: Shortest bullet and paragraph kept as a memory (aide-memory's import rule).
MIN_ITEM, MIN_PARAGRAPH = 6, 21
#: A paragraph or item of this many words or fewer that ends with a colon is a stub
#: introducing what follows ("Example:", "**Key Methods:**"), not a rule.
MAX_INTRO_WORDS = 5
#: The most words (outside parentheses) in a list entry still read as a fragment of the
#: list ("Docker", "Slow queries and dashboard timeouts"), not a rule of its own.
MAX_FRAGMENT_WORDS = 8
#: A paragraph that is one bold phrase shorter than this is a heading ("**Output
#: Handling**"); a longer one is a rule in bold.
MAX_LABEL = 40
#: How a rule opens: an entry starting so is a rule even when short ("Use tabs").
_RULE_START = re.compile(
    r"^(use|prefer|avoid|always|never|do|don'?t|keep|run|write|add|make|put|call|check|"
    r"ensure|follow|must|should|no|only|be|confirm|default|place|handle|implement|match|"
    r"wrap|stop|ask|edit|pick|set|update|commit|verify|test|document|export|apply|"
    r"consolidate|configure|store|extend|end|order|prefix|collapse|inline|install|"
    r"create|remove|delete|start|include|mark|trust|ignore|skip|read|treat|let)\b",
    re.IGNORECASE)
#: Words that make an entry a rule wherever they stand.
_MODAL = re.compile(r"\b(must|should|never|always|don'?t|do not|avoid|prefer|required|"
                    r"forbidden|only)\b", re.IGNORECASE)
#: Words that make an entry stand out as a rule of a numbered list of rules.
_LOUD = re.compile(r"\b(ALWAYS|NEVER|MUST|IMPORTANT|CRITICAL|DO NOT|DON'T|FORBIDDEN)\b")
#: An introduction that announces the rules below it rather than saying one itself.
_ANNOUNCES = re.compile(r"\b(rules?|guidelines?|conventions?|practices|standards?|"
                        r"following|below|these|key)\b", re.IGNORECASE)
#: An introduction that is a condition of what follows ("When ...:", "If ...:").
_CONDITION = re.compile(r"^\W*(when|if|before|after|only|unless|while)\b", re.IGNORECASE)
#: A paragraph that refers to the code under it.
_POINTS_DOWN = re.compile(r"\b(these commands?|this command|the following|below|as follows|"
                          r"like this)\b|\b(for example|e\.g\.)\W*$", re.IGNORECASE)
#: A name in backticks, which the code under a paragraph may show.
_CODE_SPAN = re.compile(r"`([^`\n]{4,80})`")
#: A paragraph that opens by going on from the one before it: a pronoun or demonstrative
#: ("This is the opposite case...", "They...", but not "This project uses pnpm" or "It
#: is worth..."), a connective ("So ...", "Also, ...", "Otherwise"),
#: "One without the other".
_GOES_ON = re.compile(
    r"^\W*(?:(?:this|that|these|those)\b(?!\s+(?:project|repo|repository|codebase|package|"
    r"module|directory|folder|app|application|library|service|crate|sdk|monorepo|workspace|"
    r"server|site|tool|cli|file|document|guide|page|section)s?\b)|it\b(?!'s|\s+is\b|\s+was\b)|"
    r"they\b|then\b|so\b(?!\s+that\b)|also,|likewise\b|similarly\b|"
    r"otherwise\b|conversely\b|instead\b|one without the other\b|"
    r"the (?:other|opposite|same|former|latter)\b|in (?:that|this|which|either) case\b|"
    r"as (?:above|such|before)\b)", re.IGNORECASE)
#: A paragraph that names the one before it ("that last rule", "the adapter-property rule
#: above", "..., either:"), in its first words.
_NAMES_ABOVE = re.compile(
    r"\b(?:(?:the|that|this) (?:last|previous|preceding|above|former|latter)\b|"
    r"(?:rules?|one|point|section|example|case|list|step) above\b|(?:as|see) above\b|"
    r",\s*(?:either|too)\s*[.,:;!])", re.IGNORECASE)
#: How far into a paragraph _NAMES_ABOVE looks: its opening, not a later sentence.
NAMES_ABOVE_CHARS = 160
#: A short sentence whose object is the rule above ("Run it when you change:"); in a
#: longer one, the rest of the sentence may say what "it" is.
_OBJECT_ABOVE = re.compile(r"^\W*[a-z]+ (it|them)\b", re.IGNORECASE)
#: A list entry that goes on from the entry above it ("Examples: ...", "This applies to").
_ENTRY_GOES_ON = re.compile(r"^\W*(examples?\s*:|e\.g\.|this (applies|means|is why)\b)",
                            re.IGNORECASE)
#: Lines about the rules file itself, not about the project ("This guide helps new
#: contributors...", "This AGENTS.md file provides...").
_ABOUT_FILE = re.compile(
    r"^\W*(this (file|document|guide|rule|page|readme|(agents|claude|gemini)\.md)( file)?s? "
    r"(provides|gives|contains|describes|explains|is|helps|covers|outlines|documents|"
    r"captures|summari[sz]es|lists|offers|serves|guides|defines|collects|tells|applies|"
    r"introduces|orients)\b|audience\W)", re.IGNORECASE)
#: A welcome ("Welcome to the repository for ...!"): an introduction, not a rule.
_WELCOME = re.compile(r"^\W*welcome\b", re.IGNORECASE)
#: A line of metadata about the file ("**Location:** `AGENTS.md` at the repository root.",
#: "Last updated: 2025-06-01").
_META = re.compile(r"^\W*(location|last[ -](updated|modified|reviewed|revised)|updated|"
                   r"version|status|authors?|maintainers?|owners?|date|generated|created|"
                   r"revision)\W*:", re.IGNORECASE)
#: The most words a metadata line holds: a longer paragraph is more than metadata.
MAX_META_WORDS = 25
#: A mark that opens each entry of a checklist ("✅ Tests cover new behavior").
_CHECK = re.compile(r"^\s*(?:[\u2705\u2714\u2611\u2610\u2713]|\[[ xX]\])")
#: A heading that is a step of a procedure ("Step 2: Start the server").
_STEP = re.compile(r"^\W*(step|phase|stage)\s*\d+\b", re.IGNORECASE)
#: An entry that opens with a term and its meaning: `src/` - ..., **GITHUB_HOST**: ...
_TERM = re.compile(r"^(?:\*\*|__)?`?([^`*:]{1,80}?)`?(?:\*\*|__)?(?:\s*\([^()]{0,120}\))?"
                   r"\s*(?::|\s[-\u2013\u2014]\s)")
_PARENS = re.compile(r"\([^()]*\)")
# Anchored, and `[^<>]*` cannot meet the `>` it stops at: linear in the line.
_HTML_TAG = re.compile(r"^\s*</?[A-Za-z][\w:-]*(\s[^<>]*)?/?>\s*$")
_MDC_LINK = re.compile(r"\]\(mdc:")
_EMPHASIS = re.compile(r"[*_`]+")
# The heading of a section of an exported block (read exactly, not as markdown).
_SECTION = re.compile(r"^## (Guidelines|Preferences|Technical|Area context)( \(always\))?")
#: What may stand between the links of a line that is only links (a table of contents).
_LINK_GAP = frozenset(",;.|\u00b7-")


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
    """A parsed rules file: its front matter, its memories and what was left out."""

    #: The front matter keys read (strings, booleans, lists).
    meta: dict[str, Any] = field(default_factory=dict)
    #: The memories, in file order.
    items: list[Item] = field(default_factory=list)
    #: What was not kept: (1-based line, why: a plural noun phrase), in file order.
    dropped: list[tuple[int, str]] = field(default_factory=list)


# -- the whole file --------------------------------------------------------------------

def parse(text: str) -> Doc:
    """The front matter, the memories and what was left out of a rules file's text."""
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
            _Splitter(doc).run(blocks(body, i))
            doc.dropped.sort()
        if begin is None:
            break
        i = _read_block(lines, begin + 1, doc.items)
    return doc


def _untagged(line: str) -> str:
    """A line that is only an HTML tag (`<critical>`, `</important>`) as a blank line:
    markdown would take the rules between such tags for HTML and drop them."""
    if "<" in line and _HTML_TAG.match(line):
        return ""
    return line


def _find_begin(lines: list[str], i: int) -> int | None:
    """The next line from i that is the begin marker outside a code fence (export finds
    its block the same way)."""
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


class _Splitter:
    """Blocks to memories, the way a person would split the file into whole rules."""

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
        """A memory (or, when `join` is set, more of that one); Cursor's
        `[x](mdc:path)` links become plain links, which every agent reads."""
        text = _MDC_LINK.sub("](", text.strip())
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
        """Something that is not a rule, counted in the summary."""
        self.doc.dropped.append((line, why))

    def run(self, blocks: list[Block]) -> None:
        """The memories of a run of blocks (a file, or its text between exported blocks)."""
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
        """Code no sentence introduces, never a memory by itself: the heading above it is
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
        """A heading: the label of what follows, or the introduction of it when it ends
        in a colon, or the first of a procedure's steps."""
        b = blocks[i]
        self.last = self.last_code = None
        if _STEP.match(b.text):
            return self.steps(blocks, i)
        self.label = _label(b.text)
        self.heading_text = (b.text, b.line) if self.label else None
        nxt = blocks[i + 1] if i + 1 < len(blocks) else None
        if b.text.rstrip("*_ `").endswith(":") and nxt is not None and nxt.kind in (
                "list", "code", "table"):
            self.heading_intro = b  # "### DO use low-cardinality attributes:"
        return i + 1

    def steps(self, blocks: list[Block], i: int) -> int:
        """Headings `Step 1`, `Step 2`... and what is under them: one procedure."""
        level, line = blocks[i].level, blocks[i].line
        parts: list[str] = []
        while i < len(blocks):
            b = blocks[i]
            if b.kind == "heading" and (b.level < level or (
                    b.level == level and not _STEP.match(b.text))):
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
        """A paragraph, with the list, code or table it introduces or shows; one that
        leans on the memory before it is kept as more of that memory."""
        if self.last is not None and self.last_whole and _leans_back(blocks[i].text):
            self.join = self.last
        try:
            return self._para(blocks, i)
        finally:
            self.join = None

    def _para(self, blocks: list[Block], i: int) -> int:
        b = blocks[i]
        nxt = blocks[i + 1] if i + 1 < len(blocks) else None
        text = b.text
        if _ABOUT_FILE.match(text):
            self.drop(b.line, "lines about the file itself")
            return i + 1
        if _WELCOME.match(text) and not _MODAL.search(text):
            self.drop(b.line, "welcomes")
            return i + 1
        if _META.match(text) and len(text.split()) <= MAX_META_WORDS:
            self.drop(b.line, "metadata about the file")
            return i + 1
        if text.startswith("@") and all(w.startswith("@") for w in text.split()):
            self.drop(b.line, IMPORT_LINE)
            return i + 1
        colon = _ends_colon(text)
        label_only = _bold_only(text)
        if nxt is not None and nxt.kind == "list" and (colon or label_only):
            return self.list(blocks, i + 1, b)
        if nxt is not None and nxt.kind in ("code", "table"):
            if (colon and _stub(text) and self.last is not None
                    and not _RULE_START.match(_EMPHASIS.sub("", text))):
                # "Example:" and its code belong to the rule above them; "Run the
                # linter:" is a rule of its own.
                self.last.what += "\n" + text + "\n" + nxt.text
                return i + 2
            if colon and self.join is not None:
                self.keep(text + "\n" + nxt.text, b.line)  # "This way you can:"
                return i + 2
            if colon or label_only or _POINTS_DOWN.search(text) or _shown(text, nxt.text):
                self.keep(text + "\n" + nxt.text, b.line, whole=True)
                return i + 2
        if colon and _stub(text):
            self.drop(b.line, "introductions to nothing")
        elif label_only and len(text) < MAX_LABEL:
            self.label = _label(text)  # "**Output Handling**": a heading in bold
            self.heading_text = (text, b.line)
            self.last = self.last_code = None
        elif len(text) < MIN_PARAGRAPH:
            self.drop(b.line, "fragments too short to be a rule")
        elif _only_links(text):
            self.drop(b.line, "tables of contents")
        else:
            self.keep(text, b.line, whole=True)
        return i + 1

    def list(self, blocks: list[Block], i: int, intro: Block | None,
             first: bool = False) -> int:
        """A list (at blocks[i]) and, when `intro` is set, the sentence introducing it;
        `first`: the list is the first thing under its heading."""
        b = blocks[i]
        entries = b.entries
        nxt = blocks[i + 1] if i + 1 < len(blocks) else None
        heads = [e.head() for e in entries]
        if all(_only_links(h) for h in heads):
            self.drop(b.line, "tables of contents")
            return i + 1
        if intro is not None and _together(intro.text, entries, heads, b.ordered):
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
        elif len(entries) > 1 and (_listing(heads) or _checklist(heads) or first and all(
                _fragment(h) and len(e.blocks) == 1 and not _TERM.match(h)
                for e, h in zip(entries, heads, strict=True))):
            # the folders, the contents, what to check
            self.keep("\n".join(render_blocks([b], "")), b.line, whole=True)
            return i + 1
        elif b.ordered and len(entries) > 1 and _procedure(heads):
            self.keep("\n".join(render_blocks([b], "")), b.line, whole=True)  # numbered steps
            return i + 1
        prev: Item | None = None
        code_next = nxt is not None and nxt.kind in ("code", "table")
        for n, (e, head) in enumerate(zip(entries, heads, strict=True)):
            text = e.render()
            if prev is not None and _ENTRY_GOES_ON.match(head):
                prev.what += "\n" + text
                continue
            if len(text) < MIN_ITEM:
                self.drop(e.line, "fragments too short to be a rule")
            elif _stub(text) and len(e.blocks) == 1 and not (code_next and n == len(entries) - 1):
                # ("- Run the full test suite:" with its code unindented below it is the
                # code's lead-in, kept with it below.)
                self.drop(e.line, "introductions to nothing")
            elif _only_links(text):
                self.drop(e.line, "tables of contents")
            else:
                prev = self.keep(text, e.line)
        if prev is not None and nxt is not None and nxt.kind in ("code", "table") and (
                _ends_colon(prev.what)):
            prev.what += "\n" + nxt.text  # "... the following are correct:" and the code
            return i + 2
        return i + 1


def _fits(item: Item, text: str) -> bool:
    """Whether `text` may join a memory that stays within what a memory may hold."""
    return len(item.what) + 1 + len(text) <= MAX_WHAT


def _leans_back(text: str) -> bool:
    """Whether a paragraph leans on the one before it: it opens by going on from it,
    names it ("that last rule", "the rule above"), or is a short sentence about "it"."""
    return bool(_GOES_ON.match(text) or _NAMES_ABOVE.search(text[:NAMES_ABOVE_CHARS]) or (
        _OBJECT_ABOVE.match(text) and len(_words(text)) <= MAX_FRAGMENT_WORDS))


def _checklist(heads: list[str]) -> bool:
    """Entries that each open with a check mark and none of which reads as a rule: what
    to check, one list ("✅ Tests cover new behavior")."""
    return all(_CHECK.match(h) for h in heads) and not any(
        _rule_like(_CHECK.sub("", h)) for h in heads)


def _shown(text: str, code: str) -> bool:
    """Whether code shows a name the paragraph above it gives in backticks: the rule and
    its example ("Always import from `@trigger.dev/sdk`." over the import)."""
    return any(m.group(1) in code for m in _CODE_SPAN.finditer(text))


def _ends_colon(text: str) -> bool:
    return text.rstrip("*_ `").endswith(":")


def _stub(text: str) -> bool:
    return _ends_colon(text) and len(text.split()) <= MAX_INTRO_WORDS


def _bold_only(text: str) -> bool:
    """`**Dependency Injection**`: a paragraph that is one bold phrase, a heading."""
    s = text.strip()
    return (len(s) > 4 and s[:2] in ("**", "__") and s[-2:] == s[:2]
            and s[:2] not in s[2:-2])


def _words(text: str) -> list[str]:
    return _PARENS.sub(" ", _EMPHASIS.sub("", text)).split()


def _rule_like(head: str) -> bool:
    """Whether a list entry reads as a rule of its own."""
    s = _EMPHASIS.sub("", head).strip()
    term = _TERM.match(s)
    # "Run Tests: `script/test`" names a command; "Apps: Use `typecheck`" is a rule.
    first = s[term.end():].strip() if term else s
    return bool(_RULE_START.match(first) or _MODAL.search(s))


def _fragment(head: str) -> bool:
    """A list entry that is a name or a few words, not a rule of its own."""
    words = _words(head)
    return (0 < len(words) <= MAX_FRAGMENT_WORDS and not _rule_like(head)
            and not any(w.endswith(".") and len(w) > 2 for w in words[:-1]))


def _together(intro: str, entries: list[Entry], heads: list[str], ordered: bool) -> bool:
    """Whether an introduction and the list under it are one memory.

    They are, unless the entries are whole rules of their own: entries with blocks of
    their own (sub-lists, code, tables) under several of them, or rules (mostly) under
    an introduction that only announces them ("Code style:", "Follow these rules:").
    """
    if all(_fragment(h) and len(e.blocks) == 1 for e, h in zip(entries, heads, strict=True)):
        return True
    if sum(len(e.blocks) > 1 for e in entries) > 1:
        return False
    if ordered and _procedure(heads, loud_only=True):
        return True  # numbered steps and what they are for
    bare = _EMPHASIS.sub("", intro)
    # An introduction that is a rule itself ("ALWAYS run these commands in order:") or a
    # condition ("When updating Docker images:") is part of every entry under it.
    announces = not _CONDITION.match(bare) and not _MODAL.search(bare) and (
        len(bare.split()) <= 3 or bool(_ANNOUNCES.search(bare)))
    rules = sum(_rule_like(h) for h in heads)
    return not (announces and rules * 2 > len(heads))


def _listing(heads: list[str]) -> bool:
    """Entries that each name a path or an identifier and say what it is: one listing."""
    named = 0
    for h in heads:
        m = _TERM.match(h.strip())
        term = m.group(1).strip() if m else ""
        if term and (any(c in term for c in "/._") or (term.isupper() and len(term) > 2)):
            named += 1
    return named * 3 >= len(heads) * 2


def _procedure(heads: list[str], loud_only: bool = False) -> bool:
    """Numbered steps, not a numbered list of rules: rules stand out (ALWAYS, NEVER and,
    unless `loud_only`, bold openings, "prefer", "never"); steps are plain imperatives."""
    loud = sum((not loud_only and (h.lstrip().startswith(("**", "__"))
                                   or bool(_MODAL.search(h))))
               or bool(_LOUD.search(h)) for h in heads)
    return loud * 2 < len(heads)


def _label(text: str) -> str | None:
    text = _EMPHASIS.sub("", text).strip().rstrip(":").strip()
    return text[:120] or None


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


def _closes(line: str, mark: str) -> bool:
    """Whether the line closes a code fence opened with `mark` (as long a run, or longer)."""
    s = line.strip()
    return len(s) >= len(mark) and not s.strip(mark[0])


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




def _read_block(lines: list[str], i: int, items: list[Item]) -> int:
    """An exported block, read exactly: `## Layer [(always)] [in `scope`]`, `### label`
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
