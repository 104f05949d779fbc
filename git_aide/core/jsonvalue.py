"""Name the values that JSON decodes to, so that a plain ``Any`` says "any JSON" and nothing else.

A memory file, an MCP message, an agent's settings file and a hook's input are JSON that
other programs write: their shape is checked where it is read (``core/memory.py``,
``agents/``), and until then a value is one of these.
"""

from __future__ import annotations

from typing import Any

JSON = Any
"""Any value ``orjson.loads`` returns: a dict, list, str, int, float, bool or None."""

JSONObject = dict[str, Any]
"""A JSON object as decoded: string keys, any JSON values."""
