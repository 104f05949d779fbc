"""Measure git-aide's secret detector: false negatives on credentials, false positives on
honest text.

    python3 bench/secrets/run.py [--seed N] [--show] [--dump] [--json]

The corpus is two files beside this script. positives.tsv lists credential shapes after
public scanners' rules (gitleaks, detect-secrets, trufflehog: prefix, length, alphabet),
each expanded with a seeded random body, a shape with a NAME in five contexts (prose,
NAME=..., yaml, json, code); negatives.txt holds honest memories in the style of rules
files (CLAUDE.md, .cursorrules) that mention keys, tokens, env var names, ARNs, UUIDs,
hashes, base64 and URLs. No credential in either file is real: the bodies are drawn at
run time. A third set is every non-blank line of the rules files of public projects
under tests/fixtures/rules (written by others, for the import tests). Every sample goes
through `git_aide.core.secrets.find`, as `remember` and the pre-commit hook judge text.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import re
import string
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RULES = HERE.parent.parent / "tests" / "fixtures" / "rules"
try:
    from git_aide.core import secrets
except ImportError:  # run from a checkout without an install
    sys.path.insert(0, str(HERE.parent.parent))
    from git_aide.core import secrets

#: The alphabet of each `{name:N}` placeholder.
ALPHABETS = {
    "hex": "0123456789abcdef",
    "HEX": "0123456789ABCDEF",
    "alnum": string.ascii_letters + string.digits,
    "lower": string.ascii_lowercase + string.digits,
    "letters": string.ascii_letters,
    "upper": string.ascii_uppercase + string.digits,
    "digits": string.digits,
    "b64": string.ascii_letters + string.digits + "+/",
    "url": string.ascii_letters + string.digits + "-_",
    "bech": "qpzry9x8gf2tvdw0s3jn54khce6mua7l".upper(),
}
#: The first bytes of each kind of key, base64 (DER with its version, or OpenSSH's magic).
KEY_HEADS = {
    "RSA PRIVATE KEY": "MIIEpAIBAAKCAQEA",
    "PRIVATE KEY": "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
    "EC PRIVATE KEY": "MHcCAQEEI",
    "OPENSSH PRIVATE KEY": "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB",
}
PLACEHOLDER = re.compile(
    r"\{(?P<kind>" + "|".join(ALPHABETS) + r"):(?P<n>\d+)\}|\{uuid\}"
    r"|\{(?P<fn>basic|pem64|pembody):(?P<arg>[^}]*)\}|\{b64of:(?P<text>.*)\}")


@dataclass(frozen=True)
class Sample:
    """One text to judge, where it comes from, and whether it holds a credential."""

    text: str
    rule: str
    context: str
    secret: bool


class Expander:
    """Placeholders replaced by seeded random bodies."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def draw(self, alphabet: str, n: int) -> str:
        """`n` random characters of `alphabet`."""
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def pem_body(self, kind: str) -> str:
        """The base64 lines of a PEM key of `kind`, without its BEGIN and END lines."""
        body = KEY_HEADS[kind] + self.draw(ALPHABETS["b64"], 300)
        return "\n".join(body[i:i + 64] for i in range(0, len(body), 64))

    def expand(self, template: str) -> str:
        """`template` with `\\n` as a newline and every placeholder drawn."""
        def one(m: re.Match[str]) -> str:
            if m["kind"]:
                return self.draw(ALPHABETS[m["kind"]], int(m["n"]))
            if m["text"] is not None:  # its own placeholders drawn first
                return base64.b64encode(self.expand(m["text"]).encode()).decode()
            if m["fn"] == "basic":
                pair = f"{m['arg']}:{self.draw(ALPHABETS['alnum'], 16)}"
                return base64.b64encode(pair.encode()).decode()
            if m["fn"] == "pembody":
                return self.pem_body(m["arg"])
            if m["fn"] == "pem64":
                pem = (f"-----BEGIN {m['arg']}-----\n{self.pem_body(m['arg'])}\n"
                       f"-----END {m['arg']}-----\n")
                return base64.b64encode(pem.encode()).decode()
            h = self.draw(ALPHABETS["hex"], 32)
            return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"
        return PLACEHOLDER.sub(one, template.replace("\\n", "\n"))


def contexts(name: str, token: str) -> list[tuple[str, str]]:
    """A token as a memory might hold it: in prose, and assigned to `name` four ways."""
    lower = name.lower()
    camel = re.sub(r"_([a-z])", lambda m: m[1].upper(), lower)
    return [
        ("prose", f"use {token} for the staging deploy"),
        ("env", f"{name}={token}"),
        ("yaml", f"{lower}: {token}"),
        ("json", json.dumps({lower: token})),
        ("code", f'{camel} = "{token}"'),
    ]


def corpus(seed: int) -> list[Sample]:
    """Every sample of both files, drawn with `seed`."""
    ex = Expander(seed)
    samples: list[Sample] = []
    for line in (HERE / "positives.tsv").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        rule, name, template = line.split("\t")
        if name == "-":
            samples.append(Sample(ex.expand(template), rule, "as written", True))
        else:
            token = ex.expand(template)
            samples += [Sample(text, rule, ctx, True) for ctx, text in contexts(name, token)]
    for line in (HERE / "negatives.txt").read_text().splitlines():
        if not line.strip() or line.startswith("# "):
            continue
        samples.append(Sample(ex.expand(line), "honest", "as written", False))
    for path in sorted(RULES.glob("*")) if RULES.is_dir() else ():
        if path.is_file() and path.name != "README.md":
            samples += [Sample(line, path.name, "rules file", False)
                        for line in path.read_text(errors="replace").splitlines()
                        if line.strip()]
    return samples


def measure(samples: list[Sample]) -> dict[str, list[dict[str, Any]]]:
    """Per set of samples: its size, how many were judged wrongly and the rate; and the
    samples judged wrongly."""
    wrong = [s for s in samples if (secrets.find(s.text) is not None) != s.secret]
    rows = []
    for name, wanted in (("credentials (positives.tsv)", lambda s: s.secret),
                         ("honest text (negatives.txt)",
                          lambda s: not s.secret and s.context != "rules file"),
                         ("rules files (tests/fixtures/rules)",
                          lambda s: s.context == "rules file")):
        size = sum(map(wanted, samples))
        errors = sum(map(wanted, wrong))
        rows.append({"set": name, "samples": size, "wrong": errors,
                     "kind": "false negatives" if "positives" in name else "false positives",
                     "rate": errors / size if size else 0.0})
    return {"rows": rows, "missed": [s.__dict__ for s in wrong if s.secret],
            "refused": [s.__dict__ for s in wrong if not s.secret]}


def main(argv: list[str] | None = None) -> int:
    """Print the table (or the JSON document) for the corpus drawn with --seed."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=19, help="seed of the random bodies")
    ap.add_argument("--show", action="store_true", help="list the samples judged wrongly")
    ap.add_argument("--dump", action="store_true", help="print the corpus and exit")
    ap.add_argument("--json", action="store_true", help="print one JSON document")
    args = ap.parse_args(argv)
    samples = corpus(args.seed)
    if args.dump:
        for s in samples:
            print(f"{'+' if s.secret else '-'} {s.rule} [{s.context}] {s.text!r}")
        return 0
    result = measure(samples)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"Secret detector, corpus bench/secrets (seed {args.seed})\n")
    print("| corpus | samples | judged wrongly | rate |")
    print("|---|---:|---:|---:|")
    for row in result["rows"]:
        print(f"| {row['set']} | {row['samples']} | {row['wrong']} {row['kind']} | "
              f"{row['rate']:.1%} |")
    if args.show:
        for title, key in (("False negatives", "missed"), ("False positives", "refused")):
            print(f"\n{title}:")
            for row in result[key]:
                print(f"  {row['rule']} [{row['context']}] {row['text']!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
