"""The thin client's own encoding (warm/client.py): what it writes, the server's json reads
back the same."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from git_aide.warm.client import answer_of, encode

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)))
VALUES = st.recursive(st.one_of(TEXT, st.booleans(), st.integers()),
                      lambda inner: st.one_of(st.lists(inner, max_size=4),
                                              st.dictionaries(TEXT, inner, max_size=4)),
                      max_leaves=12)


@given(VALUES)
def test_what_the_client_encodes_json_reads_back(value: object) -> None:
    """Any request value (text with quotes, backslashes, control characters, emoji)
    reads back equal."""
    assert json.loads(encode(value)) == value


def test_an_answer_that_cannot_be_read_is_no_answer() -> None:
    """Bytes that are no marshal'd dict (a server of another Python, say) are no answer,
    so the command runs itself."""
    import marshal

    assert answer_of(None) == {} and answer_of(b"") == {}
    assert answer_of(b"\xff\x00garbage") == {}
    assert answer_of(marshal.dumps([1, 2])) == {}
    assert answer_of(marshal.dumps({"status": 0, "out": "x", "err": ""}))["out"] == "x"
