"""Words and meaning together: how a model's cosines and BM25's scores make one order.

Measured on bench/quality/ (docs/quality.md): reciprocal-rank fusion loses what scopes
and exact words win, so the two are mixed by score instead. How much BM25 weighs grows
with how much of the question the best lexical hit holds: a question in the memory's
own words is answered by them; one in other words, by meaning.

The model is asked even when the best lexical hit holds every word of the question:
skipping it then was measured, and lost keyword nDCG@10 (0.964 -> 0.957), since
meaning still orders the memories that all hold the words.
"""

from __future__ import annotations

from git_aide.core.words import words

#: BM25's share of the score when the best lexical hit holds every word of the query
#: (it falls with the share held). Tuned on bench/quality/: 0.3 to 1.0 were tried
#: (0.6: keyword 0.964, paraphrase 0.729, path+question 0.920).
LEXICAL_WEIGHT = 0.6
#: The cosine below which a memory holding none of the question's words is no answer to
#: it. Measured on bench/quality/ with all-MiniLM-L6-v2: 0.1 and 0.2 keep every figure
#: of no floor, 0.3 loses paraphrases (Recall@10 0.858 -> 0.845); and a paraphrase may
#: score 0.12 ("how do we log users in" for a note on token rotation, unrelated notes
#: 0.05 to 0.09 beside it: tests/app/test_semantic_real_model.py), which 0.2 loses.
COSINE_FLOOR = 0.1
#: Words of a question that say nothing of its subject.
FILLER = frozenset("""
a an and are as at be by can could do does did for from has have how i if in into is it
its me my not of on or our should so than that the their them then there these this to
was we what when where which who why will with without you your get got use used make
""".split())


def query_words(query: str) -> frozenset[str]:
    """Return the words of a question that name its subject."""
    return frozenset(w for w in words(query, parts=False) if w not in FILLER)


def coverage(asked: frozenset[str], held: frozenset[str]) -> float:
    """Return the share of the question's words that a memory holds (0 without words)."""
    if not asked:
        return 0.0
    return len(asked & held) / len(asked)


def lexical_weight(cover: float) -> float:
    """Return BM25's share of the fused score for the best lexical hit's coverage."""
    return LEXICAL_WEIGHT * max(0.0, min(1.0, cover))


def fuse(cosines: dict[str, float], bm25: dict[str, float], cover: float,
         floor: float = 0.0) -> dict[str, float]:
    """Fuse the scores into one by blob id: (1 - a) * cosine + a * bm25 / best bm25, `a`
    from the best lexical hit's coverage. A blob with no cosine (no vector yet) counts
    its BM25 part; one that holds none of the words and whose cosine is below `floor` is
    left out."""
    a = lexical_weight(cover)
    best = max(bm25.values(), default=0.0)
    out: dict[str, float] = {}
    for b in cosines.keys() | bm25.keys():
        lex = bm25.get(b, 0.0) / best if best > 0 else 0.0
        if not lex and cosines.get(b, 0.0) < floor:
            continue
        out[b] = (1.0 - a) * max(cosines.get(b, 0.0), 0.0) + a * lex
    return out
