"""No raw terminal escapes through the textconv that `init` registers (issue 19, item 14):
`git log -p`, `git show` and `git diff` of a memory file holding ESC, BEL, a C1 control
or DEL print them escaped, as every git-aide output does."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from helpers import AIDE, aide, git, make_repo, remember

#: git must find `git-aide` for the textconv.
PATH_ENV = {"PATH": os.path.dirname(AIDE[0]) + os.pathsep + os.environ.get("PATH", "")} \
    if len(AIDE) == 1 else {}
#: What a terminal would act on: C0 controls but tab and newline, DEL, C1 controls.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
CLEAR = "\u001b[2J"
TITLE = "\u001b]0;owned\u0007"


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, str]:
    """A repository whose second commit fills a memory with terminal escapes by hand."""
    repo = make_repo(tmp_path / "repo")
    doc = remember(repo, "Cache the token per request", "--scope", "src/**")
    git(repo, "commit", "-qm", "plain memory")
    path = repo / doc["path"]
    record = json.loads(path.read_text())
    record["what"] = f"clear {CLEAR} title {TITLE} csi \u009b31m del \u007f\fend"
    record["why"] = "red \u001b[31malert"
    record["context_label"] = "bold\u001b[1m"
    record["tags"] = ["blink\u001b[5m"]
    record["x_note\u001b[7m"] = "inverse\u001b[7m"
    path.write_text(json.dumps(record, indent=2) + "\n")
    git(repo, "commit", "-qam", "escapes written by hand", "--no-verify")
    return repo, doc["path"]


@pytest.mark.parametrize("args", [("log", "-p", "-1"), ("show",), ("diff", "HEAD~1", "HEAD"),
                                  ("log", "-p", "-1", "--word-diff")])
def test_git_shows_a_memory_with_escapes_escaped(hostile: tuple[Path, str],
                                                 args: tuple[str, ...]) -> None:
    repo, _ = hostile
    out = git(repo, *args, env=PATH_ENV)
    assert RAW.search(out) is None, RAW.search(out)
    # Still the readable form, and what was in the file can be read off it.
    assert "what:" in out and '"what":' not in out
    for shown in ("clear \\u001b[2J title \\u001b]0;owned\\u0007 csi \\u009b31m del \\u007f",
                  "red \\u001b[31malert", "bold\\u001b[1m", "blink\\u001b[5m",
                  "inverse\\u001b[7m", "x_note\\u001b[7m"):
        assert shown in out, shown
    # A form feed is shown, not taken as a line break.
    assert "\\u000cend" in out


def test_git_diff_of_the_working_tree_is_escaped(hostile: tuple[Path, str]) -> None:
    repo, path = hostile
    record = json.loads((repo / path).read_text())
    record["what"] += f" and {TITLE} again"
    (repo / path).write_text(json.dumps(record, indent=2) + "\n")
    out = git(repo, "diff", env=PATH_ENV)
    assert RAW.search(out) is None and "again" in out


def test_a_file_that_is_not_a_memory_is_shown_escaped(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    broken = repo / ".aide" / "memories" / "technical" / "broken.json"
    broken.parent.mkdir(parents=True, exist_ok=True)
    # A raw ESC inside a JSON string makes it invalid JSON: not a memory, shown as is.
    broken.write_bytes(b'{"what": "half written \x1b[2J \x1b]0;t\x07 \xc2\x9b \x9b"\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "broken file", "--no-verify")
    out = git(repo, "show", env=PATH_ENV)
    assert RAW.search(out) is None
    assert '"what": "half written \\u001b[2J \\u001b]0;t\\u0007 \\u009b \\x9b"' in out


def test_textconv_error_quoting_a_file_name_is_escaped(tmp_path: Path) -> None:
    r = aide(tmp_path, "textconv", f"missing{CLEAR}.json")
    assert r.returncode == 1
    assert r.stderr == ("git-aide: error: missing\\u001b[2J.json: "
                        "No such file or directory\n")


def test_an_agent_hook_reply_carries_no_raw_control(hostile: tuple[Path, str]) -> None:
    # json.dumps escapes ESC but, with ensure_ascii=False, not DEL or the C1 controls.
    repo, _ = hostile
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("x = 1\n")
    event = {"session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": str(repo),
             "hook_event_name": "PreToolUse", "tool_name": "Read",
             "tool_input": {"file_path": str(repo / "src" / "app.py")}}
    r = aide(repo, "hook", "pre-tool-use", "--agent", "claude", input=json.dumps(event))
    assert r.returncode == 0, r.stderr
    assert "csi" in r.stdout  # the memory was injected...
    assert RAW.search(r.stdout) is None  # ...with no control a terminal would act on
    json.loads(r.stdout)


def test_the_merge_driver_escapes_what_it_says(tmp_path: Path) -> None:
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    for p in (base, ours, theirs):
        p.write_text("not json\n")
    r = aide(tmp_path, "merge-driver", str(base), str(ours), str(theirs), "7",
             "evil\u001b]0;owned\u0007\u009b31m.json")
    assert r.returncode == 1
    assert "evil" in r.stderr and RAW.search(r.stderr) is None, r.stderr
