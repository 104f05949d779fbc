"""How text becomes the terms of the full-text index, and Whoosh brought in to do it.

Identifiers are kept whole and split into their parts by Whoosh's own filters
(`MAX_UPLOAD_BYTES`, `requests.adapters.HTTPAdapter`, `findByEmail`), lower-cased and
stemmed. A query of plain words needs none of Whoosh's analysis: such a word passes the
intra-word filter unchanged, so only its stem is needed, and the postings tables know
the stems of the words the memories use (postings.py).
"""

from __future__ import annotations

from collections import Counter

from git_aide.core.words import TOKEN, plain, prepare, tokens

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType
    from typing import Any

    from whoosh.analysis import Analyzer
    from whoosh.fields import Schema

    from git_aide.cache.postings import Tables

__all__ = ["Analyser", "analyzer", "plain", "prepare", "stems", "terms"]

#: Weights of the fields in BM25F: the memory itself counts most.
BOOSTS = {"what": 3.0, "context_label": 2.0, "tags": 2.0, "why": 1.0, "scope": 0.5}


def load_whoosh(only_analysis: bool = False) -> ModuleType:
    """Import Whoosh with what the index needs of it (`only_analysis`: its analyzers only)."""
    import importlib
    import sys
    import types
    import warnings

    # Whoosh 2.7 has invalid escapes in its sources: Python 3.12+ would print
    # SyntaxWarnings on the user's terminal the first time it compiles them.
    # And whoosh.compat imports urllib.request (http.client, email, ...: ~40 ms, a
    # quarter of a search) only to re-export urlretrieve, which nothing here calls: a
    # stand-in that imports the real function if it ever is called takes its place for
    # the duration of the import.
    stand_in = None
    if "urllib.request" not in sys.modules:
        stand_in = types.ModuleType("urllib.request")

        def urlretrieve(*args: Any, **kwargs: Any) -> Any:
            from urllib.request import urlretrieve as real

            return real(*args, **kwargs)

        stand_in.urlretrieve = urlretrieve  # type: ignore[attr-defined]
        sys.modules["urllib.request"] = stand_in
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            import whoosh

            for name in ("analysis",) if only_analysis else (
                    "analysis", "fields", "index", "query", "scoring"):
                importlib.import_module(f"whoosh.{name}")
    finally:
        if stand_in is not None and sys.modules.get("urllib.request") is stand_in:
            del sys.modules["urllib.request"]
    return whoosh


def schema(w: ModuleType) -> Schema:
    """Return the index's fields (Whoosh `w`), each with its analysis and its weight."""
    f = w.fields
    words = analyzer(w)
    # No positions (phrase=False): nothing asks for phrases, and they cost index time.
    return f.Schema(
        blob=f.ID(stored=True, unique=True),
        what=f.TEXT(analyzer=words, phrase=False, field_boost=BOOSTS["what"]),
        why=f.TEXT(analyzer=words, phrase=False, field_boost=BOOSTS["why"]),
        context_label=f.TEXT(analyzer=words, phrase=False,
                             field_boost=BOOSTS["context_label"]),
        tags=f.KEYWORD(lowercase=True, commas=True, field_boost=BOOSTS["tags"]),
        scope=f.TEXT(analyzer=w.analysis.RegexTokenizer(r"[^/*{},.\s]+")
                     | w.analysis.LowercaseFilter(), phrase=False,
                     field_boost=BOOSTS["scope"]),
    )


def analyzer(w: ModuleType) -> Analyzer:
    """Make the analyzer of a memory's or a query's words: identifiers kept whole
    (merged) and split into their parts (Whoosh's IntraWordFilter), lower-cased and
    stemmed."""
    a = w.analysis
    return (a.RegexTokenizer(TOKEN)
            | a.IntraWordFilter(mergewords=True, mergenums=True)
            | a.LowercaseFilter() | a.StemFilter())


def terms(text: str, tables: Callable[[], Tables | None],
          whoosh: Callable[[], Any]) -> list[str]:
    """Return the analysed words of a query, as the index stores them, once each.

    `tables`: the postings tables (or None), asked for the stems of plain words;
    `whoosh`: Whoosh with its analysis, imported only for words that are not plain.
    """
    text = prepare(text)
    words = tokens(text)
    if all(plain(w) for w in words):
        known = tables() if words else None
        out = []
        for w in (w.lower() for w in words):
            found = known.stem(w) if known is not None else None
            if found is None:
                from whoosh.lang.porter import stem

                found = stem(w)
            out.append(found)
        return list(dict.fromkeys(out))
    return list(dict.fromkeys(t.text for t in analyzer(whoosh())(text)))


def stems(texts: list[str]) -> dict[str, str]:
    """Return the stem of every plain word of these texts (already prepared), as Whoosh's
    stemmer gives it."""
    from whoosh.lang.porter import stem

    out: dict[str, str] = {}
    for text in texts:
        for w in tokens(text):
            if plain(w) and (w := w.lower()) not in out:
                out[w] = stem(w)
    return out


class Analyser:
    """Analyse a memory's word fields with Whoosh, asked once per distinct token.

    The index's analyzer works token by token: its tokenizer cuts the text at TOKEN's
    delimiters, and each filter after it (intra-word parts, lower case, stem) looks at
    one token at a time, and no field stores positions. So a text's terms are the
    terms of its tokens, each analysed alone: asking Whoosh's own analyzer once per
    distinct token (memories share most of their words) gives the very terms it gives
    the whole text, at a fraction of the cost.
    """

    def __init__(self, w: ModuleType) -> None:
        self._words = analyzer(w)
        #: token -> its terms, as Whoosh's analyzer gives them.
        self._memo: dict[str, tuple[str, ...]] = {}
        #: token -> its one term, for the tokens that make exactly one (most do).
        self._one: dict[str, str] = {}
        #: The stem of every plain word met (what stems() gives for the same texts).
        self.stems: dict[str, str] = {}

    def _token(self, token: str) -> tuple[str, ...]:
        found = tuple(t.text for t in self._words(token, mode="index"))
        self._memo[token] = found
        if len(found) == 1:
            self._one[token] = found[0]
        if plain(token):
            self.stems[token.lower()] = found[0]
        return found

    def terms(self, text: str) -> tuple[int, dict[str, int]]:
        """Count the terms of a text (already prepared) as Whoosh's TEXT field counts
        them: (how many terms, term -> frequency)."""
        found = tokens(text)
        one = list(map(self._one.get, found))
        if None not in one:  # every token one known term
            # Counted in a loop: Counter() costs more in its checks than in counting.
            counts: dict[str, int] = {}
            get = counts.get
            for term in one:
                counts[term] = get(term, 0) + 1  # type: ignore[index, arg-type]
            return len(one), counts
        memo = self._memo
        out: dict[str, int] = {}
        length = 0
        for token, n in Counter(found).items():
            terms = memo.get(token)
            if terms is None:
                terms = self._token(token)
            for term in terms:
                out[term] = out.get(term, 0) + n
            length += n * len(terms)
        return length, out

    def note_stems(self, text: str) -> None:
        """Keep the stems of the plain words of a text analysed otherwise (a scope)."""
        for token in tokens(text):
            if token not in self._memo and plain(token):
                self._token(token)
