"""Text the code or git already holds, pasted as a memory: what a write refuses unless
forced (docs/memory-file.md; issue 41).

Agents write most memories, and they paste: a stack trace, a diff, `git log` or
`git status`, a listing of files, a tool's output. None of it is knowledge the code
does not show; a memory is what was learned from it. `find` names what a text looks
like, or None. It judges lines, not words: a memory that names a traceback, quotes an
error line or gives a command with what it prints is let through. Refused: two lines or
more of a stack trace, a diff (its `diff --git` header, or a hunk with its file names
or changed lines), git's own output (log, blame, status, branch), three lines of a
tool's output (or two that are most of the text), and listings of files, six lines
that are most of the text or eight paths on one line.

Measured by bench/gate/ (`python3 bench/gate/run.py`): of the real and generated output
of every kind, 99% and more refused; of the honest memories (the memories of real rules
files, the secrets gate's honest lines, the quality sets' memories, and memories that
quote output), none.

Every pattern is matched against one line at a time, from its start, in time about
linear in it: a memory of 4,000 characters, the most `what` holds, is judged in under
20 ms whatever it holds (under 0.1 ms as memories are).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

#: (what the text looks like, the line patterns of that kind): a line counts for the
#: kind when one of them matches it from its start.
_FRAMES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((kind, re.compile(rx)) for kind, rx in (
    ("a Python traceback",
     r"Traceback \(most recent call last\):|\s*File \"[^\"]+\", line \d+(?:, in |$)"),
    ("a Java stack trace",
     r"\s+at [\w$.<>/-]+\((?:[\w$-]+\.(?:java|kt|scala|groovy|clj):\d+|Native Method"
     r"|Unknown Source)\)|Exception in thread \"|Caused by: [\w$.]+(?:Exception|Error)"
     r"|\s+\.\.\. \d+ more$"),
    ("a .NET stack trace", r"\s+at [\w.<>`+|]+\(.*\) in .+:line \d+|\s+--- End of (?:inner "
                         r"exception|stack trace from previous location)"),
    ("a Rust panic", r"thread '[^']*'(?: \(\d+\))? panicked at |stack backtrace:$"
                     r"|\s+\d+: (?:0x[0-9a-f]+ - )?[\w:<>$., ]+$|\s+at \S+\.rs:\d+:\d+$"),
    ("a Go panic", r"goroutine \d+ \[[\w ,]+\]:|\s+\S+\.go:\d+(?: \+0x[0-9a-f]+)?$"
                   r"|panic: |\[signal SIG"),
    ("a JavaScript stack trace",
     r"\s+at (?:async )?(?:[^\s()]+(?: \[as \w+\])? \()?(?:file://|node:|/|[A-Za-z]:\\|\[eval\]"
     r"|<anonymous>|webpack:|https?://|internal/)[^()]*:\d+(?::\d+)?\)?$"),
    ("a Ruby backtrace", r"\s*(?:from )?\S+\.rb:\d+:in [`'][^`']+'"),
    ("a PHP stack trace", r"#\d+ (?:\S+\.php\(\d+\)|\{main\}|\[internal function\])"
                          r"|PHP (?:Fatal error|Stack trace):"),
    ("a debugger backtrace", r"#\d+\s+0x[0-9a-f]+ in \S+ \(|#\d+\s+\S+ \(.*\) at \S+:\d+$"),
))

#: The lines of a diff or a patch.
_DIFF_HEAD = re.compile(r"diff --git a/\S|From [0-9a-f]{40} ")
_HUNK = re.compile(r"@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")
_OLD_NEW = re.compile(r"(?:---|\+\+\+) (?:[ab]/\S|/dev/null|\S+\t)")
_CHANGED = re.compile(r"[-+ ]")

#: The lines of `git log` (each form) and of a diffstat.
_COMMIT = re.compile(r"commit [0-9a-f]{40}\b|(?:Author|Commit): +[^<>]+ <[^<>\s]+>$"
                     r"|(?:Author|Commit)?Date: +(?:\w{3} \w{3} +\d|\d{4}-\d\d-\d\d)")
_ONELINE = re.compile(r"(?:[*|/\\ ]+)?[0-9a-f]{7,40}(?: \([^)]*\))? \S")
_STAT = re.compile(r" +(?:\d+ ?[+-]*|Bin(?: \d+ -> \d+ bytes)?)$")
_STAT_SUM = re.compile(r" \d+ files? changed(?:, \d+ (?:insertion|deletion)s?\([+-]\))+$")

#: The lines of `git blame`.
_BLAME = re.compile(r"\^?[0-9a-f]{7,40} (?:\S+ +)?\([^()]* \d{4}-\d\d-\d\d [^()]* \d+\) ")

#: The lines of `git status`, long and short.
_STATUS = re.compile(
    r"On branch \S|HEAD detached (?:at|from) \S|Your branch is (?:up to date|ahead|behind"
    r"|based on)|Changes (?:not staged for commit|to be committed):|Untracked files:"
    r"|Unmerged paths:|nothing (?:added )?to commit|no changes added to commit"
    r"|\s+\(use \"git |\t(?:modified|new file|deleted|renamed|typechange|both modified):\s")
_SHORT = re.compile(r"(?:[ MADRCUT?!][MADRCUT?! ]|## \S+\.\.\.) ?\S+(?: -> \S+)?$")
#: The lines of `git branch`: the current one starred, the others indented.
_BRANCH = re.compile(r"[* ] (?:\(HEAD detached at \S+\)|\S+)(?: +[0-9a-f]{7,40} .*| -> \S+)?$")

#: A line of a tool's output: test runners, compilers and linters, package managers,
#: builds, and a shell's prompt.
_OUTPUT: tuple[tuple[str, re.Pattern[str]], ...] = tuple((kind, re.compile(rx)) for kind, rx in (
    ("test runner output",
     r"=+ (?:test session starts|FAILURES|ERRORS|short test summary info|warnings summary"
     r"|\d+ (?:passed|failed|errors?)\b.*) =+$|(?:PASSED|FAILED|ERROR|XFAIL|SKIPPED) \S+::"
     r"|\S+::\S+ (?:PASSED|FAILED|ERROR|SKIPPED)|collected \d+ items?|_{3,} \S.* _{3,}$"
     r"|E {3}\S|[.FEsxX]{3,} +\[ *\d+%\]$|\s*(?:PASS|FAIL) +\S+\.(?:test|spec)\.\w+"
     r"|Tests?: +\d+ (?:passed|failed)|Test Suites: |--- (?:FAIL|PASS): \S|=== RUN "
     r"|(?:ok|FAIL)\s+\S+\s+[\d.]+s$|test \S+ \.\.\. (?:ok|FAILED|ignored)$"
     r"|test result: (?:ok|FAILED)\."),
    ("compiler or linter output",
     r"\S+\.\w+:\d+(?::\d+)?: (?:fatal )?(?:error|warning|note)\b|\S+\(\d+,\d+\): error TS\d+"
     r"|error(?:\[E\d+\])?: \S|warning: \S|\s*--> \S+:\d+:\d+|\s*\d+ +\| |\s+\|(?: +[\^~-]|$)"
     r"|\s+\d+:\d+ +(?:error|warning) |✖ \d+ problems?|\S+:\d+:\d+: [A-Z]+\d+ |Found \d+ "
     r"errors? in|\S+: In function |make(?:\[\d+\])?: \*\*\* |ninja: build stopped"
     r"|\s*\^~*$|For more information about this error, try"),
    ("package manager output",
     r"npm (?:ERR!|WARN|error|warn|notice) |added \d+ packages?|\d+ packages? are looking "
     r"for funding|found \d+ vulnerabilit|up to date, audited|(?:Collecting|Downloading|"
     r"Installing collected packages|Successfully (?:installed|built)|Requirement already "
     r"satisfied|Building wheels?|Using cached) |\s+(?:Compiling|Checking|Downloaded|Fresh"
     r"|Locking|Adding|Installing) \S+ v\d|\s+Finished `?\w+`? (?:profile|target)"
     r"|\s+Running `|\s+Updating \S+ index|(?:yarn|pnpm) (?:install|add) v"
     r"|Resolving dependencies|\[\d/\d\] |Progress: resolved|go: (?:downloading|finding) "),
    ("build output",
     r"Step \d+/\d+ : |#\d+ \[[^\]]+\] |#\d+ (?:DONE|CACHED|ERROR)| ---> |\[INFO\] |\[ERROR\] "
     r"|BUILD (?:SUCCESS|FAILURE|FAILED|SUCCESSFUL)|> Task :|\[\s*\d+%\] (?:Building|Linking)"),
    ("a shell session",
     r"\$ \S|❯ \S|[\w.-]+@[\w.-]+:[~/][^$#]*[$#] \S|PS [A-Z]:\\[^>]*> \S|>>> \S|In \[\d+\]: "
     r"|[\w./-]+\.\w+:\d+:\s"),
))

#: A line of a listing: a path on its own (in a tree's branches, or after a size),
#: or a line of `ls -l`, `du` or `pip list`.
_PATH = re.compile(r"[\s│├└─|`+\\-]*[\w.@][\w.@+-]*(?:/[\w.@+-]+)*(?<!\.)/?$")
_LS_LONG = re.compile(r"[-dlcbps][rwxsStT-]{9}[.+@]?\s+\d+\s+\S+\s+\S+\s+[\d.,]+[KMGTP]?\s+"
                      r"\w{3}\s+\d+\s+[\d:]+\s+\S|total \d+$")
_SIZED = re.compile(r"[\d.]+[KMGTP]?i?B?\t\S+$|[\w.-]+ +\d[\w.+-]*$|[-=]+ +[-=]+$")
#: The characters a tree draws its branches with.
_BRANCHES = "│├└─|`+\\-"
#: A path named in a listing on one line: a folder, or a file name with an extension.
_NAMED = re.compile(r"(?:\./)?[\w.@+-]+(?:/[\w.@+-]+)+/?|[\w@+-]+\.[A-Za-z]\w{0,5}")
#: How many paths a one-line listing holds at least, and how much of its words they are.
_ONE_LINE_PATHS = 8
_PATHS_SHARE = 0.7
#: How many listing lines a listing has at least.
_LISTED = 6
#: The share of a text's lines that must be of one shape, from which it is that shape.
_MOST = 0.6


def find(text: str) -> str | None:
    """Say what a text looks like when it is pasted output the code or git already holds
    ("a Python traceback", "a diff", "git log output", ...), or None."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    lines = [line for line in lines if line.strip() and not line.lstrip().startswith("```")]
    if not lines:
        return None
    size = sum(map(len, lines))
    if any(len(line) >= _MOST * size and _one_line_listing(line) for line in lines):
        return "a listing of files"
    if len(lines) == 1:
        return None
    for kind, rx in _FRAMES:
        if _count(lines, rx) >= 2:
            return kind
    if _diff(lines):
        return "a diff"
    if _most(lines, _BLAME, 2):
        return "git blame output"
    if _count(lines, _COMMIT) >= 2 or _most(lines, _ONELINE, 3) \
            or sum(map(_stat, lines)) >= 2:
        return "git log output"
    if _count(lines, _STATUS) >= 2 or _most(lines, _SHORT, 3):
        return "git status output"
    if _most(lines, _BRANCH, 3) and sum(line.startswith("* ") for line in lines) == 1:
        return "git branch output"
    for kind, rx in _OUTPUT:
        if _count(lines, rx) >= 3 or _most(lines, rx, 2):
            return kind
    if _listing(lines):
        return "a listing of files"
    return None


def _count(lines: Sequence[str], rx: re.Pattern[str]) -> int:
    """Count the lines `rx` matches from their start."""
    return sum(1 for line in lines if rx.match(line))


def _most(lines: Sequence[str], rx: re.Pattern[str], least: int) -> bool:
    """Tell whether `rx` matches at least `least` of the lines and most of them (_MOST)."""
    n = _count(lines, rx)
    return n >= least and n >= _MOST * len(lines)


def _stat(line: str) -> bool:
    """Tell whether a line is a diffstat's: ` path | 12 ++--`, or its summary."""
    if _STAT_SUM.match(line):
        return True
    name, bar, count = line.rpartition("|")
    return bool(bar) and name[:1] == " " and name[1:2].strip() != "" \
        and name.endswith(" ") and bool(_STAT.match(count))


def _diff(lines: Sequence[str]) -> bool:
    """Tell whether the lines hold a diff: a diff's header, or a hunk whose file names or
    changed lines are there too."""
    if any(_DIFF_HEAD.match(line) for line in lines[:5]) and len(lines) >= 3:
        return True
    hunks = _count(lines, _HUNK)
    if not hunks:
        return False
    return _count(lines, _OLD_NEW) >= 2 or (
        _count(lines, _CHANGED) + hunks >= max(3, _MOST * len(lines)))


def _listing(lines: Sequence[str]) -> bool:
    """Tell whether the lines are a listing of files (or of packages): most of them a path
    alone, or a line of `ls -l`, `du` or `pip list`, and half of them at least more than
    a bare word."""
    listed = [line for line in lines if _PATH.match(line) or _LS_LONG.match(line)
              or _SIZED.match(line)]
    named = sum(1 for line in listed if not _PATH.match(line) or _NAMED.fullmatch(
        line.split()[-1].lstrip(_BRANCHES)))
    return len(listed) >= _LISTED and len(listed) >= 0.8 * len(lines) \
        and named >= len(listed) / 2


def _one_line_listing(line: str) -> bool:
    """Tell whether a line is a long listing of paths (`ls` output, `git diff --name-only`
    joined)."""
    words = line.split()
    if len(words) < _ONE_LINE_PATHS:
        return False
    paths = sum(1 for w in words if _NAMED.fullmatch(w.strip(",;")))
    return paths >= _ONE_LINE_PATHS and paths >= _PATHS_SHARE * len(words)
