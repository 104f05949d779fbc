"""`git aide config`: every aide.* key (core/settings.py) with its value, default and
where the value comes from, as git config says it; and a value set after it is checked
against its key's type and bounds."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from git_aide.core.errors import UsageError
from git_aide.core.settings import KEYS, Key, closest_key, key_named

if TYPE_CHECKING:
    from git_aide.gitio.repo import Repo


def _entry(key: Key | None, name: str, found: tuple[str, str, str, str] | None
           ) -> dict[str, Any]:
    scope, origin, _k, value = found if found is not None else (None, None, None, None)
    doc: dict[str, Any] = {"key": key.name if key is not None else name, "value": value,
                           "scope": scope, "origin": origin}
    if key is None:
        near = closest_key(name)
        doc["closest"] = near.name if near is not None else None
    else:
        doc |= {"default": key.default, "type": key.kind, "bounds": key.bounds() or None,
                "problem": None if value is None else key.check(value)}
    return doc


def config_doc(repo: Repo) -> dict[str, Any]:
    """Return every known key (its value: the one git reads last, or null when not set) and
    the aide.* keys git config holds that git-aide does not know."""
    last: dict[str, tuple[str, str, str, str]] = {}
    for item in repo.config_origins():
        last[item[2]] = item
    known = {k.name.lower() for k in KEYS}
    return {"settings": [_entry(k, k.name, last.get(k.name.lower())) for k in KEYS],
            "unknown": [_entry(None, name, item) for name, item in last.items()
                        if name not in known]}


def known(name: str) -> Key:
    """Return the key `name` spells; raise a one-line error naming the nearest known key if none."""
    key = key_named(name)
    if key is None:
        near = closest_key(name)
        hint = f"; did you mean {near.name}?" if near is not None else \
            " (`git aide config` lists them)"
        raise UsageError(f"unknown setting {name!r}{hint}")
    return key


def one_doc(repo: Repo, name: str) -> dict[str, Any]:
    """Return `config KEY`'s document: the one key's entry (an unknown key is an error)."""
    key = known(name)
    return next(e for e in config_doc(repo)["settings"] if e["key"] == key.name)


def set_value(repo: Repo, name: str, value: str, *, user: bool = False) -> dict[str, Any]:
    """Check `value` against the key's type and bounds, then set it (the repository's own
    config, or the user's); the key's entry after."""
    key = known(name)
    problem = key.check(value)
    if problem is not None:
        raise UsageError(problem)
    repo.set_config(key.name, value.strip(), user=user)
    return one_doc(repo, key.name)
