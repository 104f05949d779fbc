"""Ids (core/ids.py): a uuid, a unique prefix, or aide-memory's integer id."""

from __future__ import annotations

import pytest

from git_aide.core.errors import AideError
from git_aide.core.ids import resolve

A = "1234abcd-0000-4000-8000-000000000001"
B = "1234abce-0000-4000-8000-000000000002"
C = "9999ffff-0000-4000-8000-000000000003"
UUIDS = [A, B, C]


def test_a_uuid_or_a_unique_prefix() -> None:
    assert resolve(A.upper(), UUIDS) == A
    assert resolve(" 9999 ", UUIDS) == C
    assert resolve("1234abcd", UUIDS) == A


def test_unknown_short_and_ambiguous_ids_say_so() -> None:
    with pytest.raises(AideError, match="too short: give at least 4 characters"):
        resolve("123", UUIDS)
    with pytest.raises(AideError, match=r"no memory with id 'ffff' in the history walked"):
        resolve("ffff", UUIDS, where=" in the history walked")
    with pytest.raises(AideError, match=f"ambiguous: it matches {A}, {B}"):
        resolve("1234", [B, A])


def test_aide_memorys_integer_ids_first_then_an_all_digit_prefix() -> None:
    numbers = {7: C, 1234: B}.get
    assert resolve(7, UUIDS, numbers) == C
    assert resolve("7", UUIDS, numbers) == C
    assert resolve("1234", UUIDS, numbers) == B  # the integer id wins over the prefix
    assert resolve("9999", UUIDS, numbers) == C  # no such integer id: a prefix
    with pytest.raises(AideError, match="no memory with id 8"):
        resolve(8, UUIDS, numbers)
    with pytest.raises(AideError, match="no memory with id '12'"):
        resolve("12", UUIDS, numbers)
