"""Patterns of text that looks like a credential, so that none is ever committed as a memory.

Each pattern is specific enough that ordinary prose and git object ids (40 hex
characters) do not trip it.
"""

from __future__ import annotations

import re

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
    ("password assignment", re.compile(
        r"(?i)\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token)"
        r"\b\s*[:=]\s*[\"'][^\"'\s]{8,}[\"']")),
)


def find(text: str) -> str | None:
    """The kind of the first secret-looking thing in `text`, or None."""
    for kind, pattern in PATTERNS:
        if pattern.search(text):
            return kind
    return None
