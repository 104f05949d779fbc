"""Words (core/words.py): one cut for the index, ranking and duplicates."""

from __future__ import annotations

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
