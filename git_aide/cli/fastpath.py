"""The plain forms of `recall` and `search`, parsed without click.

Agents run `git aide recall PATH --json` on every file they touch; importing click
costs about a third of such a call. This parser takes only what it fully understands
(the documented options, spelled out, with valid values) and returns None for anything
else, which then goes through click: help, errors and unusual spellings keep click's
behaviour and messages. tests/test_fastpath.py checks that both paths answer alike.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

#: Options that take a value: option -> (keyword, repeatable).
_RECALL_VALUES = {"--query": ("query", False), "-q": ("query", False),
                  "--layer": ("layers", True), "--tag": ("tags", True),
                  "--contributor": ("contributor", False), "--limit": ("limit", False),
                  "--rev": ("rev", False)}
_SEARCH_VALUES = {"--layer": ("layers", True), "--limit": ("limit", False),
                  "--rev": ("rev", False)}
_FLAGS = {"--cached": "cached", "--staged": "cached", "--json": "as_json"}


def _scan(args: list[str], flags: dict[str, str], values: Mapping[str, object], *,
          lone_dash: bool) -> tuple[dict[str, object], list[tuple[str, str]], list[str],
                                    list[str]] | None:
    """(flags set, (option, value) pairs in order, positional words, words after `--`);
    None for anything click should see (-h, a typo, an option without its value).
    `lone_dash`: a bare `-` is a positional word rather than an option."""
    kwargs: dict[str, object] = {}
    pairs: list[tuple[str, str]] = []
    positional: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            return kwargs, pairs, positional, args[i:]
        if not arg.startswith("-") or (lone_dash and arg == "-"):
            positional.append(arg)
            continue
        name, eq, inline = arg.partition("=")
        if name in flags and not eq:
            kwargs[flags[name]] = True
            continue
        if name not in values:
            return None
        if eq:
            pairs.append((name, inline))
        elif i < len(args):
            pairs.append((name, args[i]))
            i += 1
        else:
            return None
    return kwargs, pairs, positional, []


def parse(argv: list[str]) -> tuple[str, dict[str, object]] | None:
    """(command, keyword arguments) for a plain recall or search; None for click."""
    if os.environ.get("GIT_AIDE_NO_FASTPATH") or not argv:
        return None
    command = argv[0]
    if command == "recall":
        values = _RECALL_VALUES
    elif command == "search":
        values = _SEARCH_VALUES
    else:
        return None
    scanned = _scan(argv[1:], _FLAGS, values, lone_dash=True)
    if scanned is None:
        return None
    kwargs, pairs, positional, after = scanned
    positional += after
    # Kept apart from kwargs (values of mixed types) so that each list's type is known.
    repeated: dict[str, list[str]] = {}
    for name, value in pairs:
        key, repeatable = values[name]
        if key == "layers":
            from git_aide.core.memory import LAYERS

            if value not in LAYERS:
                return None
        if key == "limit":
            if not (value.isascii() and value.isdigit()):
                return None
            kwargs[key] = int(value)
        elif repeatable:
            repeated.setdefault(key, []).append(value)
        else:
            kwargs[key] = value
    kwargs.update(repeated)
    if command == "search":
        if len(positional) != 1:
            return None
        kwargs["query"] = positional[0]
    else:
        kwargs["paths"] = positional
    return command, kwargs


#: `diff` and `log`: flags -> keyword, options with a value -> (keyword, allowed or None).
_HISTORY_FLAGS = {
    "diff": {"--cached": "cached", "--staged": "cached", "--stat": "as_stat",
             "--json": "as_json", "--exit-code": "exit_code"},
    "log": {"--all": "all_refs", "--reverse": "reverse", "--json": "as_json"},
}
_HISTORY_VALUES: dict[str, dict[str, tuple[str, tuple[str, ...] | None]]] = {
    "diff": {"--format": ("fmt", ("text", "markdown"))},
    "log": {"--uuid": ("ident", None), "--limit": ("limit", None), "-n": ("limit", None)},
}


def parse_history(argv: list[str]) -> tuple[str, dict[str, object]] | None:
    """(command, keyword arguments) for a plain `diff` or `log`; None for click."""
    if os.environ.get("GIT_AIDE_NO_FASTPATH") or not argv or argv[0] not in _HISTORY_FLAGS:
        return None
    command = argv[0]
    flags, values = _HISTORY_FLAGS[command], _HISTORY_VALUES[command]
    scanned = _scan(argv[1:], flags, values, lone_dash=False)
    if scanned is None:
        return None
    kwargs, pairs, revs, paths = scanned
    for name, value in pairs:
        key, allowed = values[name]
        if allowed is not None and value not in allowed:
            return None
        if key == "limit":
            if not (value.isascii() and value.isdigit()):
                return None
            kwargs[key] = int(value)
        else:
            kwargs[key] = value
    kwargs["revs"] = revs
    kwargs["paths"] = paths
    return command, kwargs
