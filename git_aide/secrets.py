"""Patterns of text that looks like a credential, so that none is ever committed as a memory.

Two kinds: the shapes of well-known tokens (each specific enough that ordinary prose
and git object ids do not trip it), and assignments of a password, secret, token or key
to a value that is not a placeholder (`DB_PASSWORD=...`, `db password: ...`,
`{"api_key": "..."}`), in text and in the keys of JSON objects.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: (kind, pattern) pairs; the kind is what the error message names.
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("private key block", re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    ("AWS access key id", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[0-9A-Z]{16}\b")),
    ("AWS secret access key", re.compile(
        r"(?i)aws.{0,20}?(?:secret|private).{0,20}?[:=]\s*[\"']?[A-Za-z0-9/+=]{40}\b")),
    ("GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("GitLab token", re.compile(r"\bgl(?:pat|dt|ptt|rt|cbt)-[A-Za-z0-9_\-]{20,}")),
    ("Slack token", re.compile(r"\b(?:xox[abposr]|xapp)-[A-Za-z0-9-]{10,}")),
    ("Slack webhook", re.compile(r"hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/\w+")),
    ("npm token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("PyPI token", re.compile(r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}")),
    ("SendGrid API key", re.compile(r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b")),
    ("Stripe secret key", re.compile(r"\b[sr]k_live_[0-9A-Za-z]{20,}")),
    ("AI provider API key", re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_\-]{32,}")),
    ("JSON web token", re.compile(
        r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}")),
    ("password in a URL", re.compile(
        r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@]+:[^/\s@]{3,}@[^\s/]+")),
)


#: What names a credential: the word itself, or ending it (DB_PASSWORD, PGPASSWORD,
#: client_secret, auth_token); a plain "key" only with a word that makes it one.
_KEYWORD = (r"(?i:passwd|password|passphrase|secret|token|credentials?|apikey"
            r"|(?:api|access|secret|private|auth|signing|encryption|master|client)[_ -]?key)"
            r"|\b[A-Z0-9_]*_KEY")
#: A credential's name, an optional closing quote, `=`, `:`, `:=` or `=>`, then a value
#: (quoted, or up to the next blank or punctuation). `==`, `!=`, `::` and `://` are not
#: assignments.
_ASSIGN = re.compile(
    r"(?P<name>" + _KEYWORD + r")[\"']?[ \t]*(?P<sep>:=|=>|=(?!=)|:(?![:/]))(?P<gap>[ \t]*)"
    r"(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'`,;)]*)")
#: A JSON key that names a credential.
_NAME_END = re.compile(r"(?:" + _KEYWORD + r")\Z")
#: A dotted name such as settings.DB_PASSWORD: a reference, not a value.
_REFERENCE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\Z")
#: Values that stand for a credential without being one.
_PLACEHOLDER_WORDS = frozenset({
    "changeme", "change-me", "change_me", "redacted", "placeholder", "none", "null", "nil",
    "true", "false", "required", "optional", "string", "str", "int", "bool", "secret",
    "password", "token", "example", "dummy", "undefined", "unset", "empty", "hidden",
    "masked", "todo", "tbd", "env", "your-password", "yourpassword", "your_password",
})


def _placeholder(value: str) -> bool:
    """Whether a value stands in for a credential (***, <...>, ${VAR}, $VAR, changeme,
    empty, a reference such as os.environ[...] or settings.X) rather than being one."""
    v = value.strip()
    if not v or set(v) <= set("*xX.•#?-_"):
        return True
    if v[0] in "$<{[(%!" or "..." in v or "…" in v or "(" in v or "[" in v:
        return True
    return v.lower() in _PLACEHOLDER_WORDS or bool(_REFERENCE.match(v))


def _random(value: str) -> bool:
    """Whether a word looks machine-made (letters and digits mixed, or long and not a word)."""
    if len(value) < 6:
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    return (has_digit and has_alpha) or (len(value) >= 16 and not value.isalpha())


def _assignment(text: str) -> str | None:
    """The name a credential is assigned to in `text`, or None."""
    for m in _ASSIGN.finditer(text):
        raw = m["value"]
        quoted = len(raw) >= 2 and raw[0] in "\"'" and raw[-1] == raw[0]
        value = raw[1:-1] if quoted else raw.rstrip(".:")
        if _placeholder(value):
            continue
        # `NAME=value` and quoted values are assignments; `name: word` and `name = word`
        # are often prose ("the password: field is required"), so they count only when the
        # word looks machine-made or ends the line ("db password: swordfish").
        if quoted or (m["sep"] != ":" and not m["gap"]):
            return m["name"]
        rest = text[m.end():].lstrip(" \t.")
        if _random(value) or (len(value) >= 6 and (not rest or rest[0] == "\n")):
            return m["name"]
    return None


def find(text: str) -> str | None:
    """The kind of the first secret-looking thing in `text`, or None."""
    for kind, pattern in PATTERNS:
        if pattern.search(text):
            return kind
    name = _assignment(text)
    return f"a value assigned to {name}" if name else None


def find_json(value: Any) -> str | None:
    """The kind of the first secret anywhere in a JSON value: in its strings, in the keys
    of its objects, and in a string value whose key names a credential."""
    if isinstance(value, str):
        return find(value)
    if isinstance(value, list):
        for v in value:
            kind = find_json(v)
            if kind:
                return kind
    elif isinstance(value, dict):
        for k, v in value.items():
            key = str(k)
            kind = find(key)
            if kind:
                return kind
            if (isinstance(v, str) and _NAME_END.search(key) and not _placeholder(v)
                    and not any(c.isspace() for c in v.strip())):
                return f"a value assigned to {key}"
            kind = find_json(v)
            if kind:
                return kind
    return None
