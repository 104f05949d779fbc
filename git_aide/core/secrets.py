"""Find text that looks like a credential, so that none is ever committed as a memory.

Two kinds: the shapes of well-known tokens (each specific enough that ordinary prose
and git object ids do not trip it, with passwords on a command's flags and after the
word naming them), and assignments of a password, secret, token or key to a value
(`DB_PASSWORD=...`, `db password: ...`, `{"api_key": "..."}`), in text and in the keys of
JSON objects; last, the token shapes again in runs of base64 that decode to text. An
assignment is judged by its value as well as its name: placeholders, references
(`vault:...`, an ARN, `${VAR}`, `settings.X`), paths and, for a key or a token,
identifiers (`PARTITION_KEY=tenant_id`) are not secrets; machine-made values are, and for
a password or a secret any other value too.

Every pattern runs in time linear in the text: a pattern that spans a run of characters
and then needs something after it starts only where such a run starts (a lookbehind
for the run's own class), so a long line is never rescanned from each of its positions.

This module is the scan (the assignments, the order of the kinds, base64, JSON); the
table of token shapes is secret_shapes.py, the checks of the shapes whose match alone
says too little secret_checks.py, and whether a value is a secret secret_values.py.
bench/secrets/ measures the judgment as a whole, through `find`.
"""

from __future__ import annotations

import re

from git_aide.core.secret_checks import CHECKS, SCANS
from git_aide.core.secret_shapes import COMPILED
from git_aide.core.secret_values import b64decode, looks_random, secret_value, user_password

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.jsonvalue import JSON

#: What names a credential, at the end of a name: the word itself, or ending it
#: (DB_PASSWORD, PGPASSWORD, client_secret, auth_token, MYSQL_PWD, DB_PASS, DB_PW,
#: VPN_PASSCODE); a "key" only as a name's own last word (api_key, PARTITION_KEY, apiKey),
#: never inside a word (monkey, bypass).
_KEYWORDS = (r"(?i:passwd|password|passphrase|passcode|secret|token|credentials?|apikey"
             r"|(?:api|access|secret|private|auth|signing|encryption|master|client)key"
             r"|(?<![A-Za-z0-9])(?:pass|pwd?)|[_ -]key)"
             r"|(?<=[a-z0-9])(?:Key|Pass|Pwd?)")
#: What separates a name from its value: `=`, `:`, `:=` or `=>`, and in prose " is "
#: ("the VPN password is ..."); `==`, `!=`, `::` and `://` are not assignments.
_SEP = re.compile(r":=|=>|=(?!=)|:(?![:/])| is ")
#: Read in the reversed text from just before a separator: blanks, an optional closing
#: quote, the name (a run of name characters), and the word before it after one blank
#: (for "api key: ..."). Bounded, so a long run costs no more than a short one.
_NAME_BEFORE = re.compile(
    r"[ \t]{0,32}[\"']?([A-Za-z0-9_.\-]{1,100})(?: ([A-Za-z]{1,20})(?![\w.\-]))?")
#: After a separator: blanks, then the value (quoted, or up to the next blank or
#: punctuation).
_VALUE = re.compile(r"(?P<gap>[ \t]*)(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'`,;)]*)")
#: Fragments of which an assignment's name holds one (lowercase).
_NAME_HINTS = ("pass", "pw", "secret", "token", "credential", "key")
#: A name (in text, or a JSON key) that ends with a credential's word.
_NAME_END = re.compile(r"(?:" + _KEYWORDS + r")\Z")
#: What may follow a value for it to end its line ("db password: swordfish.").
_LINE_END = re.compile(r"[ \t.]*(?:\n|\Z)")


def _assignment(text: str, low: str) -> str | None:
    """Find the name a credential is assigned to in `text` (`low` is it in lowercase), or None.

    Each separator is looked at once, and the name before it read backwards: a scan
    from each start of a name would go through every keyword at every position."""
    if not any(hint in low for hint in _NAME_HINTS):
        return None
    backwards = text[::-1]
    size = len(text)
    done = 0
    for sep in _SEP.finditer(text):
        if sep.start() < done:  # inside the value of the last assignment
            continue
        before = _NAME_BEFORE.match(backwards, size - sep.start())
        if before is None:
            continue
        name, start = before[1][::-1], before.end(1)
        if not _NAME_END.search(name):
            if not before[2]:
                continue
            name, start = f"{before[2][::-1]} {name}", before.end()
            if not _NAME_END.search(name):
                continue
        if start < size and backwards[start] == ":":  # arn:aws:...:secret:name
            continue
        m = _VALUE.match(text, sep.end())
        assert m is not None  # every part of _VALUE may be empty
        done = m.end()
        raw = m["value"]
        quoted = len(raw) >= 2 and raw[0] in "\"'" and raw[-1] == raw[0]
        value = raw[1:-1] if quoted else raw.rstrip(".:")
        if not secret_value(name, value):
            continue
        # `NAME=value` and quoted values are assignments; `name: word` and `name = word`
        # are often prose ("the password: field is required"), so they count only when the
        # word looks machine-made or ends the line ("db password: swordfish"); "the
        # password is hashed" only when it looks machine-made.
        if sep.group() == " is ":
            if looks_random(value):
                return name
            continue
        if quoted or (sep.group() != ":" and not m["gap"]):
            return name
        if looks_random(value) or (len(value) >= 6 and _LINE_END.match(text, m.end())):
            return name
    return None


#: Kinds looked for after the assignments, which name what they find more precisely
#: ("a value assigned to DB_PASS" rather than a password after the word naming it).
_LATE = frozenset({"password after the word naming it"})
#: A run of base64 long enough to hold a token (28 characters, 21 bytes), from its start.
_BASE64_RUN = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{28,}={0,2}")
#: A control character other than a tab or a line break: what text does not hold.
_BINARY = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _shape(text: str, low: str, late: bool = False) -> str | None:
    """Return the kind of the first token shape found in `text` (`low` is it in lowercase):
    of the kinds in `_LATE` if `late`, else of the others."""
    for kind, pattern, hints in COMPILED:
        if (kind in _LATE) != late or (hints and not any(hint in low for hint in hints)):
            continue
        check = CHECKS.get(kind)
        scan = SCANS.get(kind)
        if scan is not None:
            if scan(pattern.finditer(text)):
                return kind
        elif check is None:
            if pattern.search(text):
                return kind
        elif any(check(m) for m in pattern.finditer(text)):
            return kind
    return None


def _in_base64(text: str) -> str | None:
    """Return the kind of the first token shape in a run of base64 that decodes to text (a
    GitHub token wrapped in base64, bare or in a header), or None. Hashes and random
    bytes decode to binary and are skipped after one C-speed decode."""
    for run in _BASE64_RUN.finditer(text):
        raw = b64decode(run.group())
        if raw is None or not raw.isascii():
            continue
        decoded = raw.decode("ascii")
        if _BINARY.search(decoded) is None:
            low = decoded.lower()
            kind = _shape(decoded, low) or _shape(decoded, low, late=True)
            if kind:
                return f"{kind}, base64-encoded"
    return None


def find(text: str) -> str | None:
    """Return the kind of the first secret-looking thing in `text`, or None."""
    low = text.lower()
    kind = _shape(text, low)
    if kind:
        return kind
    name = _assignment(text, low)
    if name:
        return f"a value assigned to {name}"
    return _shape(text, low, late=True) or _in_base64(text)


def _pair(key: str, value: str) -> str | None:
    """Return the kind of secret a JSON object holds in `value` under `key`, or None."""
    if _NAME_END.search(key):
        # A value with blanks in it is prose about the credential, not the credential.
        if not any(c.isspace() for c in value.strip()) and secret_value(key, value):
            return f"a value assigned to {key}"
    elif key.lower() in ("auth", "_auth") and user_password(value.strip()):
        return "registry auth (base64 user:password)"
    elif key.lower() in ("authorization", "proxy-authorization"):
        # A header kept as {"Authorization": "Bearer ..."}: judged as the header line.
        return find(f"{key}: {value}")
    return None


def find_json(value: JSON) -> str | None:
    """Return the kind of the first secret anywhere in a JSON value: in its strings, in the keys
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
            kind = find(key) or (_pair(key, v) if isinstance(v, str) else None)
            if kind:
                return kind
            kind = find_json(v)
            if kind:
                return kind
    return None
