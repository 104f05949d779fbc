"""Words (core/words.py): one cut for the index, ranking and duplicates."""

from __future__ import annotations

from pathlib import Path

from helpers import aide_ok

from git_aide.core.words import prepare, tokens, words


def test_ranking_splits_identifiers_and_duplicates_keep_them_whole() -> None:
    text = "The findByEmail helper reads MAX_UPLOAD_BYTES from a HTTPAdapter"
    assert words(text) == {"find", "email", "helper", "reads", "max", "upload", "bytes",
                           "http", "adapter"}
    assert words(text, parts=False) == {"findbyemail", "helper", "reads", "max", "upload",
                                        "bytes", "httpadapter"}


def test_the_index_keeps_identifiers_whole() -> None:
    assert tokens("see requests.adapters.HTTPAdapter (a/b.py), retry_on_5xx") == [
        "see", "requests.adapters.HTTPAdapter", "a/b.py", "retry_on_5xx"]
    assert prepare("HTTPAdapter") == "HTTP_Adapter"


def test_a_boundary_goes_before_every_capitalised_word_after_an_acronym() -> None:
    import random
    import re

    assert prepare("ABCDef XMLHttpRequest, IO") == "ABC_Def XML_HttpRequest, IO"
    assert prepare("plain text, Capitalised Words") == "plain text, Capitalised Words"
    rng = random.Random(5)
    for _ in range(3000):
        text = "".join(rng.choice("AZaz Éé_9.") for _ in range(rng.randint(0, 12)))
        assert prepare(text) == re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", text), text


def test_numbers_are_words_so_numbered_facts_are_not_duplicates(repo: Path) -> None:
    """`remember`'s near-duplicate warning: two facts that differ by a number are two
    facts; two that differ by punctuation alone are one."""
    aide_ok(repo, "remember", "Technical fact 1")
    second = aide_ok(repo, "remember", "Technical fact 2")
    assert "near duplicate" not in second.stderr
    aide_ok(repo, "remember", "Tokens rotate every hour")
    again = aide_ok(repo, "remember", "tokens rotate, every hour!")
    assert "near duplicate" in again.stderr


def test_exact_words_are_names_numbers_flags_and_identifiers() -> None:
    """What supersession and merging keep (issue 41): a sentence's first word is no name."""
    from git_aide.core.words import exact, exact_tokens

    assert exact_tokens("Session cookies are httpOnly, secure and SameSite=Lax") == [
        "httpOnly", "SameSite", "Lax"]
    assert exact_tokens("Run ./runtests.py --fast; CI uses Python 3.12 and MAX_SIZE. "
                        "Then deploy.") == ["./runtests.py", "--fast", "CI", "Python", "3.12",
                                            "MAX_SIZE"]
    assert exact("Tests run in parallel") == frozenset()
    assert exact("The pool holds 10 connections") == {"10"}
