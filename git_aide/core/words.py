"""Words: how git-aide cuts a text into words, for ranking, duplicates and search.

One cut, `tokens`: what lies between blanks and punctuation, an identifier kept whole
(`requests.adapters.HTTPAdapter`, `MAX_UPLOAD_BYTES`, `a/b.py`). The full-text index
stores these tokens as Whoosh's analysis turns them into terms (cache/analysis.py), so
its tokenizer is `TOKEN` itself. Ranking and duplicates compare sets of `words`, which
differ on purpose in one rule, named by `parts`:

- ranking (`parts=True`, rank/mentions.py) splits an identifier into its parts, so that
  `findByEmail` in a memory meets `email` in a path or a query;
- duplicates (`parts=False`, rank/duplicates.py) lower-case the text first and keep an
  identifier one word (`findByEmail` is `findbyemail`): the similarity that `audit` and
  `remember` report, and aide.audit.duplicateThreshold is compared with, has always been
  measured on these sets; splitting would change which memories are called duplicates.
"""

from __future__ import annotations

import re

#: Words too common to tell two memories apart, or a query's subject.
STOP = frozenset("""a an and are as at be by for from has have in into is it its of on or
that the their then there this to was we were will with when you your not no do does
""".split())

#: Where a token is cut out of the text: anything but these is part of an identifier
#: (`requests.adapters.HTTPAdapter`, `MAX_UPLOAD_BYTES`, `retry_on_5xx`, `a/b.py`).
TOKEN = r"[^\s\"'`(),;:!?\[\]{}<>=|*]+"
_TOKENS = re.compile(TOKEN)
_ACRONYM = re.compile(r"([A-Z]+)([A-Z][a-z])")
#: Where _ACRONYM matches, if anywhere: found in C, where substituting calls back into
#: Python each time (most texts hold no such run).
_ACRONYM_AT = re.compile(r"[A-Z][A-Z][a-z]")
#: An identifier's parts: an acronym, a (capitalised) word, a number.
_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
#: Letters and digits of lower-cased text.
_RUNS = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> list[str]:
    """Return the tokens of a text, in order, identifiers whole (the index's tokenizer)."""
    return _TOKENS.findall(text)


def prepare(text: str) -> str:
    """Prepare text as the index's analyzer wants it: an acronym run before a capitalised word
    gets a boundary (`HTTPAdapter` -> `HTTP_Adapter`), which Whoosh's intra-word filter
    lacks."""
    return _ACRONYM.sub(r"\1_\2", text) if _ACRONYM_AT.search(text) else text


def plain(word: str) -> bool:
    """Tell whether a word is letters in one case, or digits: what Whoosh's intra-word filter
    leaves whole."""
    return (word.isalpha() and (word.islower() or word.isupper())) or word.isdigit()


def words(text: str, parts: bool = True) -> frozenset[str]:
    """Return the lower-case words of a text, filler words and single letters left out (a
    digit is a word: "fact 1" and "fact 2" differ); with `parts` identifiers split into
    their parts (see the module's docstring)."""
    found = (w.lower() for w in _PARTS.findall(text)) if parts else _RUNS.findall(text.lower())
    return frozenset(w for w in found if (len(w) > 1 or w.isdigit()) and w not in STOP)


#: A token that names something exact: a digit in it, a flag (`--fast`), a capital after
#: a small letter (`httpOnly`, `SameSite`), an underscore or a dot or slash between two
#: characters (`max_size`, `a.b`, `docs/x`), or two capitals (`CSRF`, `MiB`).
_EXACT = re.compile(r"[0-9]|^--?[A-Za-z]|[a-z][A-Z]|[A-Za-z0-9][_./][A-Za-z0-9]|[A-Z][a-z]*[A-Z]")
#: What may stand before a sentence's first word: its capital is no name.
_OPENS = frozenset(".!?:;\n-*#>")
#: What a capitalised word may be wrapped in, looking back for a sentence's start.
_WRAPS = " \t\"'`([{"


def exact(text: str) -> frozenset[str]:
    """Return the words (as `words(text, parts=False)` cuts them) of the tokens of a text that
    name something exact (exact_tokens). Two memories alike in words differ in what one
    holds of these and the other lacks (rank/supersede.py)."""
    return frozenset(w for token in exact_tokens(text) for w in words(token, parts=False))


def exact_tokens(text: str) -> list[str]:
    """Return the tokens of a text that name something exact, in order: an identifier, a
    number, a flag (`SameSite`, `--fast`, `v1.2`, `max_size`, `CSRF`), or a name (a
    capitalised word inside a sentence: `Postgres`, `Lax`)."""
    found: list[str] = []
    for m in _TOKENS.finditer(text):
        token = m.group().rstrip(".") or m.group()  # a sentence's full stop is not its
        if not _EXACT.search(token):
            if not (token[:1].isupper() and len(token) > 1):
                continue
            before = text[:m.start()].rstrip(_WRAPS)
            if not before or before[-1] in _OPENS:
                continue  # a sentence's first word
        found.append(token)
    return found


def every_word(text: str) -> frozenset[str]:
    """Return every lower-case run of letters and digits of a text, none left out: what two
    texts must share to say the same thing, names and values included."""
    return frozenset(_RUNS.findall(text.lower()))


#: A name's words as a vocabulary of stored contents keeps them (read/vocabulary.py):
#: _RUNS over lower-cased bytes.
NAME_WORD = re.compile(_RUNS.pattern.encode())


def name_words(name: bytes) -> list[bytes]:
    """Return the words of a name (or of a stored content), as NAME_WORD cuts them."""
    return NAME_WORD.findall(name.lower())
