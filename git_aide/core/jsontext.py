"""Read and tell the JSON of memory files: the standard library for a few, orjson for thousands.

Every reader of memories reads a file's bytes here, to the same value whichever parser
runs: UTF-8, no NaN or infinite numbers, no lone surrogates, integers beyond 64 bits kept
exact. The record built from the value is ``core/memory.py``'s; this module imports
nothing of git-aide and nothing heavy, because the merge driver starts from it.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection
    from typing import NoReturn

    from git_aide.core.jsonvalue import JSON


class MemoryFormatError(ValueError):
    """Report a file that is not a valid memory; `field` names the culprit when there is one."""

    #: The key at fault, or None for the file as a whole.
    field: str | None

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def load_json(data: bytes) -> JSON:
    """Read a file's JSON value as every reader of memories reads it: UTF-8, no NaN or
    infinite numbers, no lone surrogates; MemoryFormatError otherwise."""
    # The standard library, not orjson: it keeps integers beyond 64 bits exact (orjson
    # turns them into floats), and a command that shows 20 memories should not pay
    # orjson's import (~15 ms) for them.
    try:
        raw = _DECODER.decode(data.decode("utf-8"))
        # Strict UTF-8 holds no surrogate: only a \u escape can make a lone one.
        ok = b"\\u" not in data or encodable(raw)
    except (ValueError, UnicodeDecodeError) as e:
        raise MemoryFormatError(f"not valid JSON ({e})") from None
    except RecursionError:
        raise MemoryFormatError("not valid JSON (nested too deeply)") from None
    if not ok:
        raise MemoryFormatError("holds text that is not valid Unicode (a lone surrogate)")
    return raw


def load_known(data: bytes, checked: Collection[str] = ()) -> JSON:
    """Read the JSON of a blob found to be a memory before, one of thousands read at once:
    by orjson, in a third of the standard library's time (its import, about 20 ms, is
    paid once), to the same value; by load_json() where orjson refuses it (load_json
    then says why) or reads a float, which may be an integer beyond 64 bits that
    orjson makes a float (a memory's own fields hold no number). `checked`: keys of an
    object whose values the caller checks to hold no number, reading the bytes again
    by load_json() when one does: they are not searched for a float here."""
    try:
        import orjson

        raw = orjson.loads(data)
    except (ImportError, ValueError):  # orjson.JSONDecodeError is a ValueError
        return load_json(data)
    # A lone surrogate (only a \u escape makes one), orjson refuses.
    if checked and type(raw) is dict:
        others = raw.keys() - checked  # in C; of a memory's record, generated_by alone
        return load_json(data) if any(holds_float(raw[k]) for k in others) else raw
    return load_json(data) if holds_float(raw) else raw


def holds_float(value: JSON) -> bool:
    """Tell whether a JSON value holds a float anywhere (or is nested too deeply to tell):
    the standard library and orjson read and write some numbers each its own way."""
    t = type(value)
    if t is not dict and t is not list:
        return t is float
    items = value.values() if t is dict else value
    kinds = set(map(type, items))
    if float in kinds:
        return True
    if dict not in kinds and list not in kinds:
        return False
    try:
        return any(holds_float(v) for v in items
                   if type(v) is dict or type(v) is list)
    except RecursionError:
        return True


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text} is too large a number for JSON")
    return value


#: One decoder for every parse (json.loads with an option builds a new one each call);
#: it refuses NaN and numbers that would become infinite, as the merge driver does.
_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_float=_finite)


def encodable(value: JSON) -> bool:
    """Tell whether every string in a JSON value can be written as UTF-8 (JSON's \\ud800
    escapes can make lone surrogates, which no output can carry)."""
    if isinstance(value, str):
        if value.isascii():
            return True
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(value, dict):
        return all(encodable(k) and encodable(v) for k, v in value.items())
    if isinstance(value, list):
        return all(encodable(v) for v in value)
    return True
