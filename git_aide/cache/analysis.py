"""How text becomes the terms of the full-text index (DESIGN section 4).

Identifiers are kept whole and split into their parts by Whoosh's own filters
(`MAX_UPLOAD_BYTES`, `requests.adapters.HTTPAdapter`, `findByEmail`), lower-cased and
stemmed. A query of plain words needs none of Whoosh's analysis: such a word passes the
intra-word filter unchanged, so only its stem is needed, and the postings tables know
the stems of the words the memories use (postings.py).
"""

from __future__ import annotations

from git_aide.core.words import TOKEN, plain, prepare, tokens

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from git_aide.cache.postings import Tables

__all__ = ["analyzer", "plain", "prepare", "stems", "terms"]


def analyzer(w: Any) -> Any:
    """Words of a memory or a query: identifiers kept whole (merged) and split into
    their parts (Whoosh's IntraWordFilter), lower-cased and stemmed."""
    a = w.analysis
    return (a.RegexTokenizer(TOKEN)
            | a.IntraWordFilter(mergewords=True, mergenums=True)
            | a.LowercaseFilter() | a.StemFilter())


def terms(text: str, tables: Callable[[], Tables | None],
          whoosh: Callable[[], Any]) -> list[str]:
    """The analysed words of a query, as the index stores them, once each.

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
    """The stem of every plain word of these texts (already prepared), as Whoosh's
    stemmer gives it."""
    from whoosh.lang.porter import stem

    out: dict[str, str] = {}
    for text in texts:
        for w in tokens(text):
            if plain(w) and (w := w.lower()) not in out:
                out[w] = stem(w)
    return out
