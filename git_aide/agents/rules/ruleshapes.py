"""The shapes of text the rules-file splitter judges (splitter.py): what reads as a rule,
a fragment of a list, a stub introducing what follows, a listing of paths, numbered
steps, a table of contents, a paragraph leaning on the one before it, and the lines
about the file itself. Patterns first, then the predicates built on them; tuned together
against the corpus in tests/fixtures/rules.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.agents.rules.mdblocks import Entry

#: A paragraph or item of this many words or fewer that ends with a colon is a stub
#: introducing what follows ("Example:", "**Key Methods:**"), not a rule.
MAX_INTRO_WORDS = 5
#: The most words (outside parentheses) in a list entry still read as a fragment of the
#: list ("Docker", "Slow queries and dashboard timeouts"), not a rule of its own.
MAX_FRAGMENT_WORDS = 8

#: How a rule opens: an entry starting so is a rule even when short ("Use tabs").
RULE_START = re.compile(
    r"^(use|prefer|avoid|always|never|do|don'?t|keep|run|write|add|make|put|call|check|"
    r"ensure|follow|must|should|no|only|be|confirm|default|place|handle|implement|match|"
    r"wrap|stop|ask|edit|pick|set|update|commit|verify|test|document|export|apply|"
    r"consolidate|configure|store|extend|end|order|prefix|collapse|inline|install|"
    r"create|remove|delete|start|include|mark|trust|ignore|skip|read|treat|let)\b",
    re.IGNORECASE)
#: Words that make an entry a rule wherever they stand.
MODAL = re.compile(r"\b(must|should|never|always|don'?t|do not|avoid|prefer|required|"
                    r"forbidden|only)\b", re.IGNORECASE)
#: Words that make an entry stand out as a rule of a numbered list of rules.
_LOUD = re.compile(r"\b(ALWAYS|NEVER|MUST|IMPORTANT|CRITICAL|DO NOT|DON'T|FORBIDDEN)\b")
#: An introduction that announces the rules below it rather than saying one itself.
_ANNOUNCES = re.compile(r"\b(rules?|guidelines?|conventions?|practices|standards?|"
                        r"following|below|these|key)\b", re.IGNORECASE)
#: An introduction that is a condition of what follows ("When ...:", "If ...:").
_CONDITION = re.compile(r"^\W*(when|if|before|after|only|unless|while)\b", re.IGNORECASE)
#: A paragraph that refers to the code under it.
POINTS_DOWN = re.compile(r"\b(these commands?|this command|the following|below|as follows|"
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
ENTRY_GOES_ON = re.compile(r"^\W*(examples?\s*:|e\.g\.|this (applies|means|is why)\b)",
                            re.IGNORECASE)
#: Lines about the rules file itself, not about the project ("This guide helps new
#: contributors...", "This AGENTS.md file provides...").
ABOUT_FILE = re.compile(
    r"^\W*(this (file|document|guide|rule|page|readme|(agents|claude|gemini)\.md)( file)?s? "
    r"(provides|gives|contains|describes|explains|is|helps|covers|outlines|documents|"
    r"captures|summari[sz]es|lists|offers|serves|guides|defines|collects|tells|applies|"
    r"introduces|orients)\b|audience\W)", re.IGNORECASE)
#: A welcome ("Welcome to the repository for ...!"): an introduction, not a rule.
WELCOME = re.compile(r"^\W*welcome\b", re.IGNORECASE)
#: A line of metadata about the file ("**Location:** `AGENTS.md` at the repository root.",
#: "Last updated: 2025-06-01").
META = re.compile(r"^\W*(location|last[ -](updated|modified|reviewed|revised)|updated|"
                   r"version|status|authors?|maintainers?|owners?|date|generated|created|"
                   r"revision)\W*:", re.IGNORECASE)

#: A mark that opens each entry of a checklist ("✅ Tests cover new behavior").
_CHECK = re.compile(r"^\s*(?:[\u2705\u2714\u2611\u2610\u2713]|\[[ xX]\])")
#: A heading that is a step of a procedure ("Step 2: Start the server").
STEP = re.compile(r"^\W*(step|phase|stage)\s*\d+\b", re.IGNORECASE)
#: An entry that opens with a term and its meaning: `src/` - ..., **GITHUB_HOST**: ...
TERM = re.compile(r"^(?:\*\*|__)?`?([^`*:]{1,80}?)`?(?:\*\*|__)?(?:\s*\([^()]{0,120}\))?"
                   r"\s*(?::|\s[-\u2013\u2014]\s)")
_PARENS = re.compile(r"\([^()]*\)")

MDC_LINK = re.compile(r"\]\(mdc:")
EMPHASIS = re.compile(r"[*_`]+")

#: What may stand between the links of a line that is only links (a table of contents).
_LINK_GAP = frozenset(",;.|\u00b7-")


def leans_back(text: str) -> bool:
    """Tell whether a paragraph leans on the one before it: it opens by going on from it,
    names it ("that last rule", "the rule above"), or is a short sentence about "it"."""
    return bool(_GOES_ON.match(text) or _NAMES_ABOVE.search(text[:NAMES_ABOVE_CHARS]) or (
        _OBJECT_ABOVE.match(text) and len(_words(text)) <= MAX_FRAGMENT_WORDS))


def checklist(heads: list[str]) -> bool:
    """Tell whether entries each open with a check mark and none of which reads as a rule: what
    to check, one list ("✅ Tests cover new behavior")."""
    return all(_CHECK.match(h) for h in heads) and not any(
        _rule_like(_CHECK.sub("", h)) for h in heads)


def shown(text: str, code: str) -> bool:
    """Tell whether code shows a name the paragraph above it gives in backticks: the rule and
    its example ("Always import from `@trigger.dev/sdk`." over the import)."""
    return any(m.group(1) in code for m in _CODE_SPAN.finditer(text))


def ends_colon(text: str) -> bool:
    """Tell whether the text ends with a colon (emphasis and code marks aside)."""
    return text.rstrip("*_ `").endswith(":")


def stub(text: str) -> bool:
    """Tell whether the text is a few words ending with a colon: an introduction."""
    return ends_colon(text) and len(text.split()) <= MAX_INTRO_WORDS


def bold_only(text: str) -> bool:
    """Tell whether a paragraph is one bold phrase, a heading (`**Dependency
    Injection**`)."""
    s = text.strip()
    return (len(s) > 4 and s[:2] in ("**", "__") and s[-2:] == s[:2]
            and s[:2] not in s[2:-2])


def _words(text: str) -> list[str]:
    """Return the words of the text, emphasis and parentheses left out."""
    return _PARENS.sub(" ", EMPHASIS.sub("", text)).split()


def _rule_like(head: str) -> bool:
    """Tell whether a list entry reads as a rule of its own."""
    s = EMPHASIS.sub("", head).strip()
    term = TERM.match(s)
    # "Run Tests: `script/test`" names a command; "Apps: Use `typecheck`" is a rule.
    first = s[term.end():].strip() if term else s
    return bool(RULE_START.match(first) or MODAL.search(s))


def fragment(head: str) -> bool:
    """Tell whether a list entry is a name or a few words, not a rule of its own."""
    words = _words(head)
    return (0 < len(words) <= MAX_FRAGMENT_WORDS and not _rule_like(head)
            and not any(w.endswith(".") and len(w) > 2 for w in words[:-1]))


def together(intro: str, entries: list[Entry], heads: list[str], ordered: bool) -> bool:
    """Tell whether an introduction and the list under it are one memory.

    They are, unless the entries are whole rules of their own: entries with blocks of
    their own (sub-lists, code, tables) under several of them, or rules (mostly) under
    an introduction that only announces them ("Code style:", "Follow these rules:").
    """
    if all(fragment(h) and len(e.blocks) == 1 for e, h in zip(entries, heads, strict=True)):
        return True
    if sum(len(e.blocks) > 1 for e in entries) > 1:
        return False
    if ordered and procedure(heads, loud_only=True):
        return True  # numbered steps and what they are for
    bare = EMPHASIS.sub("", intro)
    # An introduction that is a rule itself ("ALWAYS run these commands in order:") or a
    # condition ("When updating Docker images:") is part of every entry under it.
    announces = not _CONDITION.match(bare) and not MODAL.search(bare) and (
        len(bare.split()) <= 3 or bool(_ANNOUNCES.search(bare)))
    rules = sum(_rule_like(h) for h in heads)
    return not (announces and rules * 2 > len(heads))


def listing(heads: list[str]) -> bool:
    """Tell whether entries each name a path or an identifier and say what it is: one
    listing."""
    named = 0
    for h in heads:
        m = TERM.match(h.strip())
        term = m.group(1).strip() if m else ""
        if term and (any(c in term for c in "/._") or (term.isupper() and len(term) > 2)):
            named += 1
    return named * 3 >= len(heads) * 2


def procedure(heads: list[str], loud_only: bool = False) -> bool:
    """Tell whether entries are numbered steps, not a numbered list of rules: rules stand
    out (ALWAYS, NEVER and, unless `loud_only`, bold openings, "prefer", "never"); steps
    are plain imperatives."""
    loud = sum((not loud_only and (h.lstrip().startswith(("**", "__"))
                                   or bool(MODAL.search(h))))
               or bool(_LOUD.search(h)) for h in heads)
    return loud * 2 < len(heads)


def label_of(text: str) -> str | None:
    """Return a heading's text as a memory's `context_label`; None when it is empty."""
    text = EMPHASIS.sub("", text).strip().rstrip(":").strip()
    return text[:120] or None


def only_links(text: str) -> bool:
    """Tell whether the text is only links (`[a](b)`, `<https://...>`) and punctuation between
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
