"""Judge whether a value is a secret: what stands in for one (a placeholder), what names
where one is kept (a reference), what a person chose (words, identifiers, paths) and
what a machine made. The secret scanner (secrets.py) and the checks of its token shapes
(secret_checks.py) judge a value by these.
"""

from __future__ import annotations

import re

#: Names whose every value that is not a placeholder, reference or path is a secret; the
#: rest (keys, tokens, credentials) hold identifiers too (`credentials: "include"`).
_STRONG = re.compile(r"(?i)pass|pwd|secret|(?<![a-z])pw(?![a-z])")
#: Names of what is published by design (PUBLIC_KEY, STRIPE_PUBLISHABLE_KEY).
_PUBLIC = re.compile(r"(?i)public|publishable")
#: A dotted name such as settings.DB_PASSWORD: a reference, not a value.
DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\Z")
#: An environment variable's name (POSTGRES_PASSWORD), the usual right side of a
#: reference written without its `$`.
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\Z")
#: Where a secret manager or a config system is named instead of the secret itself.
_REFERENCE_PREFIX = re.compile(
    r"(?i)(?:arn:aws[a-z-]*:|(?:vault|ssm|secretsmanager|env|keyvault|azure-?keyvault|kv|akv"
    r"|doppler|infisical|bws|file|gcp-?sm|aws-?sm|sm|op):(?://)?"
    r"|projects/[^/\s]+/secrets/|[\w.\-/]+:latest\Z)")
#: Values that stand for a credential without being one.
_PLACEHOLDER_WORDS = frozenset({
    "changeme", "change-me", "change_me", "changeit", "redacted", "placeholder", "none",
    "null", "nil", "true", "false", "yes", "no", "on", "off", "required", "optional",
    "string", "str", "int", "bool", "bytes", "text", "any", "secretstr", "secret", "password",
    "passwd", "pass", "pwd", "token", "key", "example", "dummy", "undefined", "unset", "empty",
    "hidden", "masked", "todo", "tbd", "env", "fixme", "replace_me", "replace-me",
    "replaceme", "your-password", "yourpassword", "your_password",
})
#: A run of letters and digits: the parts a value is judged by.
_RUN = re.compile(r"[A-Za-z0-9]+")
#: A word, with an optional number after it (users, python3, sha256, ed25519).
_WORD_SHAPE = re.compile(r"([A-Za-z]+)([0-9]*)\Z")
#: The humps of a camelCase or PascalCase word (XMLHttpRequest: XML, Http, Request).
_HUMP = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def placeholder(value: str) -> bool:
    """Tell whether a value stands in for a credential (***, <...>, ${VAR}, $VAR, changeme,
    xxxx, your-token-here, empty, a call such as os.environ[...]) rather than being one."""
    v = value.strip()
    if not v or set(v) <= set("*xX.•#?-_") or len(set(v.lower())) <= 2:
        return True
    if v[0] in "$<{[(%!" or "..." in v or "…" in v or "(" in v or "[" in v:
        return True
    low = v.lower()
    return low in _PLACEHOLDER_WORDS or low.startswith("your")


def reference(value: str) -> bool:
    """Tell whether a value names where a secret is kept instead of holding it: a secret
    manager's reference (`vault:secret/data/prod#api_key`, an ARN), a dotted name
    (`settings.DB_PASSWORD`) or an environment variable's name."""
    v = value.strip()
    if _REFERENCE_PREFIX.match(v) or _ENV_NAME.match(v):
        return True
    # Dotted words (settings.DB_PASSWORD), not dotted random parts (a Discord token).
    return bool(DOTTED_NAME.match(v)) and plain(v)


def _word(run: str) -> bool:
    """Tell whether a run of letters and digits reads as a word or a number a person chose
    (id, created_at's parts, users_v2's, XMLHttpRequest, sha256, 2024) rather than as
    something a machine drew (abcd1234efgh, x9f8e7d6c5, 0123abcd, QwErTyUiOp)."""
    if len(run) <= 4:
        return True
    if run.isdigit():
        return len(run) <= 8
    shape = _WORD_SHAPE.match(run)
    if shape is None:
        return False
    letters, digits = shape.groups()
    if (len(digits) > 3 and len(letters) > 3) or (len(digits) > 1 and len(letters) > 4):
        return False
    if letters.islower() or letters.isupper():
        return True
    humps = _HUMP.findall(letters)
    return sum(map(len, humps)) == len(letters) and len(letters) >= 2.5 * len(humps)


def plain(value: str) -> bool:
    """Tell whether a value is made of words a person chose: an identifier (tenant_id,
    session:user_id, ON), a path (uploads/{user_id}/avatar.png) or a phrase."""
    runs = _RUN.findall(value)
    return bool(runs) and all(_word(r) for r in runs)


def looks_random(value: str) -> bool:
    """Tell whether a word looks machine-made (letters and digits mixed, or long, not a word)."""
    if len(value) < 6:
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    return (has_digit and has_alpha) or (len(value) >= 16 and not value.isalpha())


def secret_value(name: str, value: str) -> bool:
    """Tell whether `value`, assigned to the credential name `name`, is a secret."""
    v = value.strip()
    if len(v) < 3 or _PUBLIC.search(name) or placeholder(v) or reference(v):
        return False
    if plain(v):
        # A key or a token named by words is an identifier (PRIMARY_KEY=id); a
        # password in words is still a password, but a path is where one is kept.
        return bool(_STRONG.search(name)) and "/" not in v
    return True


def b64decode(text: str) -> bytes | None:
    """Decode base64 `text` into bytes (padding added as needed), or return None."""
    import binascii

    body = text.rstrip("=")
    body = body[:len(body) - len(body) % 4] if len(body) % 4 == 1 else body
    try:
        return binascii.a2b_base64(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        return None


def user_password(value: str) -> bool:
    """Tell whether base64 `value` decodes to `user:password` (what HTTP Basic, Docker's
    `auth` and npm's `_auth` hold), with a password that is not a placeholder."""
    raw = b64decode(value)
    if raw is None or not raw.isascii():
        return False
    user, colon, password = raw.decode("ascii").partition(":")
    return (bool(colon) and user.isprintable() and " " not in user and password.isprintable()
            and len(password) >= 3 and not placeholder(password))
