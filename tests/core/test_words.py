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


def test_numbers_are_words_so_numbered_facts_are_not_duplicates(repo: Path) -> None:
    """`remember`'s near-duplicate warning: two facts that differ by a number are two
    facts; two that differ by punctuation alone are one."""
    aide_ok(repo, "remember", "Technical fact 1")
    second = aide_ok(repo, "remember", "Technical fact 2")
    assert "near duplicate" not in second.stderr
    aide_ok(repo, "remember", "Tokens rotate every hour")
    again = aide_ok(repo, "remember", "tokens rotate, every hour!")
    assert "near duplicate" in again.stderr
