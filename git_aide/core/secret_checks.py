"""Check the matches of the token shapes whose match alone says too little
(secret_shapes.py): a private key's base64 body, an Authorization header, a password
on a command's flag or after the word naming it, a signed URL's signature. A kind's
match counts only where its check (`CHECKS`) or its scan of all its matches (`SCANS`)
accepts it.
"""

from __future__ import annotations

import re

from git_aide.core.secret_values import (
    DOTTED_NAME,
    b64decode,
    looks_random,
    placeholder,
    plain,
    reference,
    user_password,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


def _pem_in_base64(m: re.Match[str]) -> bool:
    """Tell whether the base64 PEM file found holds a private key (not a certificate)."""
    head = m.group()[:96]
    raw = b64decode(head[:len(head) - len(head) % 4])
    return raw is not None and b"PRIVATE KEY" in raw


def _key_body(m: re.Match[str]) -> bool:
    """Tell whether the base64 found opens a private key: OpenSSH's magic, or a DER SEQUENCE
    whose first element is a small version INTEGER followed by an INTEGER, OCTET STRING
    or SEQUENCE. Public keys and certificates open with a SEQUENCE instead."""
    text = m.group()
    if text.startswith("b3Bl"):
        return True
    raw = b64decode(text[:16])
    if raw is None or len(raw) < 12 or raw[0] != 0x30:
        return False
    size = raw[1]
    at = 2 if size < 0x80 else 2 + (size & 0x7F)
    if size == 0x80 or at > 5:
        return False
    return (raw[at:at + 2] == b"\x02\x01" and raw[at + 2] in (0, 1, 3)
            and raw[at + 3] in (0x02, 0x04, 0x30))


def _machine_made(m: re.Match[str]) -> bool:
    """Tell whether the match's value is machine-made: not a placeholder, not words."""
    value = m["value"]
    return not placeholder(value) and not plain(value)


def _authorization(m: re.Match[str]) -> bool:
    """Tell whether an Authorization header carries a credential: Basic with a base64
    user:password, or another scheme with a machine-made token (not `Bearer <token>`,
    `Bearer $TOKEN` or prose such as `Authorization: Bearer header`)."""
    if (m["scheme"] or "").lower() == "basic":
        return user_password(m["value"])
    return _machine_made(m)


def _curl_password(m: re.Match[str]) -> bool:
    """Tell whether `-u user:password` is curl's (the command is named just before it) and
    the password is not a placeholder (`$PASS`, `<password>`, `${{ secrets.X }}`)."""
    before = m.string[max(0, m.start() - 300):m.start()]
    return "curl" in before and not placeholder(m["value"])


#: Command families named by their prefix (mysqldump, mariadb-dump, mongosh, ldapsearch).
_FAMILIES = ("mysql", "mariadb", "mongo", "ldap")
#: Which commands take their password on each short flag: -p stuck to its value is
#: mysql's (and sshpass's); -p before a value is a port or a project to others, and to a
#: registry client outside `login`.
_ATTACHED = frozenset({"mysql", "mariadb", "sshpass"})
_SHORT_FLAGS = {
    "-p": frozenset({"sshpass", "mongo", "twine", "cf", "az"}),
    "-a": frozenset({"redis-cli"}),
    "-P": frozenset({"sqlcmd", "bcp"}),
    "-w": frozenset({"ldap"}),
}
_REGISTRY_CLIENTS = frozenset({"docker", "podman", "nerdctl", "buildah", "skopeo", "oras", "helm",
                               "crane", "regctl"})


def _cli_password(tokens: Iterator[re.Match[str]]) -> bool:
    """Tell whether a command is given its password on a flag. The tokens are the ends of
    commands (a line, a pipe, `;`, `&&`), the commands named and the flags with their
    values, in their order: a flag belongs to the commands named before it since the
    last end."""
    named: set[str] = set()
    for token in tokens:
        if token["end"]:
            named.clear()
        elif token["command"]:
            word = token["command"]
            named.add(next((f for f in _FAMILIES if word.startswith(f)), word))
        elif _flag_password(token, named):
            return True
    return False


def _flag_password(m: re.Match[str], named: set[str]) -> bool:
    """Tell whether a password flag's value is a password given to one of the commands
    `named` that takes it there (not a placeholder, a port, a path, or the word after a
    flag named in prose)."""
    flag, raw = m["flag"], m["value"]
    quoted = len(raw) >= 2 and raw[0] in "\"'" and raw[-1] == raw[0]
    value = raw[1:-1] if quoted else raw
    if len(value) < 3 or placeholder(value) or reference(value):
        return False
    if flag.startswith("--"):
        # Many commands take --password; with none of those named, only a machine-made value.
        if not named:
            return looks_random(value) and not plain(value)
    elif not m["sep"]:  # -p<password>: mysql's or sshpass's
        return bool(named & _ATTACHED) and any(c.isalpha() for c in value)
    elif not (named & _SHORT_FLAGS[flag]
              or (flag == "-p" and "login" in named and named & _REGISTRY_CLIENTS)):
        return False
    # The flag is the command's password: anything quoted, or anything but a path and
    # lowercase words without a digit ("-p is insecure", "-p token-from-keyring").
    if quoted or not plain(value):
        return True
    return "/" not in value and not (value.islower() and not any(c.isdigit() for c in value))


def _classes(value: str) -> int:
    """Count the classes (lowercase, capitals, digits, other characters) `value` holds."""
    return (any(c.islower() for c in value) + any(c.isupper() for c in value)
            + any(c.isdigit() for c in value) + any(not c.isalnum() for c in value))


def _named_password(m: re.Match[str]) -> bool:
    """Tell whether the word after a password's name looks like a password: eight characters
    or more of three classes, not words, a path, code (a dotted name, a call, `code`), a
    placeholder or a reference ("pass the --verbose flag", "PIN the version to 1.2.3",
    "pin: <commit id>", "pass np.float32", "password = base64.b64decode(x)" do not)."""
    value = m["value"].rstrip(".:")
    if m.string[m.end():m.end() + 1] in ("(", "`"):  # the whole run: nothing of it was left
        return False
    return (len(value) >= 8 and _classes(value) >= 3 and "/" not in value and value[0] != "-"
            and not DOTTED_NAME.match(value) and not placeholder(value)
            and not reference(value) and not plain(value))


#: The judge of all of a kind's matches in their order, for a kind whose match alone says
#: too little and whose check needs the matches before it.
SCANS: dict[str, Callable[[Iterator[re.Match[str]]], bool]] = {
    "password on a command line": _cli_password,
}
#: The check a kind's match must pass, for kinds whose shape alone says too little.
CHECKS: dict[str, Callable[[re.Match[str]], bool]] = {
    "private key in base64": _pem_in_base64,
    "private key without its header": _key_body,
    "Azure account key": lambda m: not placeholder(m["value"]),
    "password in a URL": lambda m: not placeholder(m["value"]),
    "Authorization header": _authorization,
    "registry auth (base64 user:password)": lambda m: user_password(m["value"]),
    "password in a curl command": _curl_password,
    "password after the word naming it": _named_password,
    "signed URL signature": _machine_made,
}
