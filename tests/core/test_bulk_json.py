"""Thousands of memories are read and written by orjson (core/jsontext.load_known,
render/output.dumps with `large`): to the same values and text as the standard library,
which reads and writes whatever orjson would read or write otherwise."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from git_aide.core.jsontext import MemoryFormatError, load_json, load_known
from git_aide.render.output import dumps

#: Numbers where the two differ: beyond 64 bits, below 1e-4, near the ends of a double.
ODD_NUMBERS = st.one_of(
    st.integers(), st.integers(min_value=2**63 - 3, max_value=2**64 + 3),
    st.integers(max_value=-(2**63) + 3, min_value=-(2**63) - 3),
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(min_value=1e-12, max_value=1e-3), st.floats(min_value=1e15, max_value=1e17),
    st.sampled_from([1e-05, 9.99e-05, 1e-07, 5e-324, 1e16, 0.0, -0.0, 1e-4]))
TEXT = st.one_of(st.text(), st.sampled_from(["0.00001", "1e-7", "x\u2028y", "\x1f", "é"]))
VALUES = st.recursive(st.none() | st.booleans() | ODD_NUMBERS | TEXT,
                      lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(TEXT, inner, max_size=4), max_leaves=12)


def _same(a: Any, b: Any) -> bool:
    """Tell whether two JSON values are equal, types and float signs included."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_a_document_is_written_as_the_standard_library_writes_it(doc: Any) -> None:
    assert dumps(doc, large=True) == json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


@settings(max_examples=300, deadline=None)
@given(VALUES, st.booleans())
def test_a_known_memory_is_read_to_the_standard_librarys_value(value: Any, indent: bool
                                                                ) -> None:
    data = json.dumps(value, ensure_ascii=False, indent=2 if indent else None).encode()
    assert _same(load_known(data), load_json(data))


@pytest.mark.parametrize("data", [b'{"what": "\\ud800"}', b'{"n": 1e400}', b'{"n": NaN}',
                                  b'{"a": 1', b"\xff"])
def test_what_the_standard_library_refuses_is_refused_alike(data: bytes) -> None:
    with pytest.raises(MemoryFormatError) as want:
        load_json(data)
    with pytest.raises(MemoryFormatError) as got:
        load_known(data)
    assert str(got.value) == str(want.value)


#: The keys a memory's value may be changed at and stay a memory (known=True trusts the
#: read that found it one): every field but the four that make it one, and any other key.
CHANGEABLE = st.sampled_from(["why", "context_label", "contributor", "tags", "source",
                              "shared", "priority", "generated_by", "derived_from",
                              "created_at", "updated_at", "id", "extra"])


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(CHANGEABLE, VALUES, max_size=3), st.booleans())
@example({"generated_by": {"tool": "x", "run": 2**64}}, False)
@example({"tags": ["a", 2**70]}, True)
@example({"extra": {"n": [1e-7]}}, False)
def test_a_known_memory_read_in_bulk_is_the_record_read_alone(changes: dict[str, Any],
                                                               indent: bool) -> None:
    """parse(bulk=True) leaves the numbers of the fields it checks itself to _typed(): a
    record whose fields hold numbers anywhere is the one the standard library reads."""
    from git_aide.core.memory import new, parse

    record = {**new("the cache lives in git", layer="technical", contributor="ana"),
              **changes}
    data = json.dumps(record, ensure_ascii=False, indent=2 if indent else None).encode()
    assert _same(parse(data, known=True, bulk=True), parse(data, known=True))
