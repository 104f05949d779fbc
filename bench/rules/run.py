"""How well `git aide import` splits real rules files into whole rules.

Each rules file of the corpus (tests/fixtures/rules/, copied from public repositories with
their licences) has an expected file (tests/fixtures/rules/expected/NAME.expected),
written by hand before the importer ran on it: one line per memory a person would make
of the file, naming the source lines it is made of (`12-18`, or `3,5-6`); `#` starts a
comment. The files are put at their places in a fresh repository (one per source
repository), `git aide import --dry-run --json` reads them all, and each imported memory
is matched to an expected one by its words (list markers, emphasis and line breaks
aside). A memory counts only when it is the whole rule: a fragment, or two rules run
together, matches nothing.

    python3 bench/rules/run.py          # the table; exit 1 below the bars

Precision: the share of imported memories that are whole rules. Recall: the share of
expected rules imported whole. Bars: both at least 0.95, and no imported memory ending
in a colon (an introduction whose list or code was dropped).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "rules"
EXPECTED = FIXTURES / "expected"
#: The lowest precision and recall of whole rules the importer may score.
BAR = 0.95

#: fixture -> (where it lives in its repository, the repository). CLAUDE.md files that
#: only say `@AGENTS.md` are part of the corpus: importing the tree reaches AGENTS.md
#: through them, and they hold no rule of their own.
CORPUS: dict[str, tuple[str, str]] = {
    "mcp-python-sdk-AGENTS.md": ("AGENTS.md", "modelcontextprotocol/python-sdk"),
    "mcp-python-sdk-CLAUDE.md": ("CLAUDE.md", "modelcontextprotocol/python-sdk"),
    "trigger-AGENTS.md": ("AGENTS.md", "triggerdotdev/trigger.dev"),
    "trigger-CLAUDE.md": ("CLAUDE.md", "triggerdotdev/trigger.dev"),
    "trigger-webapp.mdc": (".cursor/rules/webapp.mdc", "triggerdotdev/trigger.dev"),
    "trigger-otel-metrics.mdc": (".cursor/rules/otel-metrics.mdc",
                                 "triggerdotdev/trigger.dev"),
    "trigger-executing-commands.mdc": (".cursor/rules/executing-commands.mdc",
                                       "triggerdotdev/trigger.dev"),
    "trigger-core-CLAUDE.md": ("packages/core/CLAUDE.md", "triggerdotdev/trigger.dev"),
    "github-mcp-server-copilot-instructions.md": (".github/copilot-instructions.md",
                                                  "github/github-mcp-server"),
    "fastmcp-AGENTS.md": ("AGENTS.md", "jlowin/fastmcp"),
    "fastmcp-core-mcp-objects.mdc": (".cursor/rules/core-mcp-objects.mdc", "jlowin/fastmcp"),
    "mcp-servers-CLAUDE.md": ("CLAUDE.md", "modelcontextprotocol/servers"),
    "mcp-servers-everything-AGENTS.md": ("src/everything/AGENTS.md",
                                         "modelcontextprotocol/servers"),
    "pydantic-ai-AGENTS.md": ("pydantic_ai_slim/pydantic_ai/AGENTS.md", "pydantic/pydantic-ai"),
    "pydantic-ai-capabilities-AGENTS.md": ("pydantic_ai_slim/pydantic_ai/capabilities/AGENTS.md",
                                           "pydantic/pydantic-ai"),
    "pydantic-ai-ui-AGENTS.md": ("pydantic_ai_slim/pydantic_ai/ui/AGENTS.md",
                                 "pydantic/pydantic-ai"),
    "mcp-typescript-sdk-e2e-CLAUDE.md": ("test/e2e/CLAUDE.md",
                                         "modelcontextprotocol/typescript-sdk"),
    "lyrebird-CLAUDE.md": ("CLAUDE.md", "0-sayed/lyrebird"),
    "codever-AGENTS.md": ("AGENTS.md", "CodeverDotDev/codever"),
    "bluecentre-helm-repositories.mdc": (".cursor/rules/helm.mdc", "BlueCentre/monorepo"),
    "openai-agents-AGENTS.md": ("AGENTS.md", "openai/openai-agents-python"),
}

_MARKER = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)]|#{1,6})(?=\s|$)")
_NOT_WORD = re.compile(r"[^0-9a-z]+")
#: A memory that ends in a colon, outside code: an introduction whose list or code is lost.
_DANGLING = re.compile(r":[*_]*\s*$")


def words(text: str) -> str:
    """A memory reduced to its words: list markers, heading marks, emphasis, line breaks
    and Cursor's `mdc:` link prefix do not count."""
    lines = [_MARKER.sub("", s) for s in text.replace("](mdc:", "](").split("\n")]
    return _NOT_WORD.sub(" ", " ".join(lines).casefold()).strip()


def expected(name: str) -> list[str]:
    """The memories a person made of a fixture, as texts (the lines each names)."""
    source = (FIXTURES / name).read_text(encoding="utf-8").split("\n")
    out = []
    for raw in (EXPECTED / f"{name}.expected").read_text(encoding="utf-8").split("\n"):
        spec = raw.split("#", 1)[0].strip()
        if not spec:
            continue
        lines: list[str] = []
        for part in spec.split(","):
            lo, _, hi = part.partition("-")
            lines += source[int(lo) - 1:int(hi or lo)]
        out.append("\n".join(lines))
    return out


@dataclass
class Row:
    """One repository's score."""

    #: owner/name.
    repo: str
    #: Its rules files in the corpus.
    files: int
    #: Memories expected, imported, and imported whole (matching an expected one).
    expected: int
    imported: int
    matched: int
    #: Imported memories ending in a colon (an introduction that lost what it introduced).
    colons: int
    #: (fixture, text) of the imported memories that are no whole rule, and of the
    #: expected rules not imported whole.
    extra: list[tuple[str, str]]
    missed: list[tuple[str, str]]

    @property
    def precision(self) -> float:
        return self.matched / self.imported if self.imported else 1.0

    @property
    def recall(self) -> float:
        return self.matched / self.expected if self.expected else 1.0


def import_all(top: Path, aide: list[str], env: dict[str, str] | None = None
               ) -> dict[str, list[dict]]:
    """Per repository, the memories `git aide import --dry-run` makes of its files, laid
    out at their places in a fresh repository under `top`."""
    out: dict[str, list[dict]] = {}
    for repo in dict.fromkeys(r for _d, r in CORPUS.values()):
        work = top / repo.replace("/", "+")
        subprocess.run(["git", "init", "-q", str(work)], check=True, env=env)
        files = [(name, dest) for name, (dest, r) in CORPUS.items() if r == repo]
        for name, dest in files:
            (work / dest).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(FIXTURES / name, work / dest)
        proc = subprocess.run([*aide, "import", "--dry-run", "--json",
                               *(dest for _n, dest in files)], cwd=work,
                              capture_output=True, text=True, env=env)
        if proc.returncode not in (0, 1) or not proc.stdout:
            raise SystemExit(f"git aide import failed in {repo}: {proc.stderr}")
        out[repo] = json.loads(proc.stdout)["imported"]
    return out


def score(imported: dict[str, list[dict]]) -> list[Row]:
    """One row per repository, in the corpus's order."""
    rows: dict[str, Row] = {}
    for name, (dest, repo) in CORPUS.items():
        row = rows.setdefault(repo, Row(repo, 0, 0, 0, 0, 0, [], []))
        want = Counter(words(t) for t in expected(name))
        texts = {words(t): t for t in expected(name)}
        got = [m["what"] for m in imported[repo] if m["why"].rsplit(":", 1)[0] == dest]
        have = Counter(words(t) for t in got)
        row.files += 1
        row.expected += sum(want.values())
        row.imported += len(got)
        row.matched += sum((want & have).values())
        row.colons += sum(bool(_DANGLING.search(t)) for t in got)
        row.extra += [(name, t) for t in got if words(t) not in want]
        row.missed += [(name, texts[w]) for w in want - have]
    return list(rows.values())


def table(rows: list[Row]) -> str:
    """The markdown table of the scores, with the whole corpus on the last line."""
    lines = ["| repository | files | rules | imported | whole | precision | recall |",
             "|---|--:|--:|--:|--:|--:|--:|"]
    for r in rows:
        lines.append(f"| {r.repo} | {r.files} | {r.expected} | {r.imported} | {r.matched} "
                     f"| {r.precision:.2f} | {r.recall:.2f} |")
    total = Row("all", sum(r.files for r in rows), sum(r.expected for r in rows),
                sum(r.imported for r in rows), sum(r.matched for r in rows),
                sum(r.colons for r in rows), [], [])
    lines.append(f"| **all {len(rows)} repositories** | {total.files} | {total.expected} "
                 f"| {total.imported} | {total.matched} | **{total.precision:.2f}** "
                 f"| **{total.recall:.2f}** |")
    return "\n".join(lines)


def totals(rows: list[Row]) -> tuple[float, float, int]:
    """(precision, recall, memories ending in a colon) over the whole corpus."""
    imported = sum(r.imported for r in rows)
    wanted = sum(r.expected for r in rows)
    matched = sum(r.matched for r in rows)
    return matched / imported, matched / wanted, sum(r.colons for r in rows)


def main(argv: list[str]) -> int:
    script = Path(sys.executable).parent / "git-aide"
    aide = [str(script)] if script.exists() else [sys.executable, "-m", "git_aide"]
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
        rows = score(import_all(Path(tmp) / "corpus", aide, env))
    print(table(rows))
    precision, recall, colons = totals(rows)
    print(f"\nmemories ending in a colon: {colons}")
    if "-v" in argv:
        for r in rows:
            for name, text in r.extra:
                print(f"\n-- not a whole rule ({name}):\n{text}")
            for name, text in r.missed:
                print(f"\n-- missed ({name}):\n{text}")
    return 0 if precision >= BAR and recall >= BAR and not colons else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
