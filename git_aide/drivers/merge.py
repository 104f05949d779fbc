"""The git merge driver: the process git starts once per conflicting memory file.

It reads the three versions git names, writes the merged record (core/merge.py's pure
three-way merge) or diff3-style conflict markers over OURS, and says on stderr, one line a
field, what a merge dropped and the `git show` that prints it. Git starts it once per
file, so it must start fast: it imports only core/merge's modules, gitio's posix_spawn
primitive (and only when a field was dropped) and the standard library; never click,
pygit2, rich or whoosh, nor subprocess.
"""

from __future__ import annotations

import sys

from git_aide.core import controls
from git_aide.core.merge import (
    DEFAULT_MARKER_SIZE,
    Dropped,
    MergeConflict,
    conflict_bytes,
    merge_report,
    notice,
)

#: Usage line printed when the driver is called with too few arguments.
USAGE = "usage: git aide merge-driver BASE OURS THEIRS [MARKER_SIZE] [PATH]"


def _marker_size(arg: str | None) -> int:
    """Read %L as git passes it; anything unusable means the default."""
    try:
        size = int(arg) if arg else DEFAULT_MARKER_SIZE
    except ValueError:
        return DEFAULT_MARKER_SIZE
    return size if 1 <= size <= 1000 else DEFAULT_MARKER_SIZE


def _read(path: str) -> bytes:
    """Read a file's bytes; a missing one (git passes an empty %O for add/add) is empty."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return b""


def _say(line: str) -> None:
    """Say one line on stderr, which git shows beside its own CONFLICT line."""
    try:
        sys.stderr.write(f"git-aide: merge-driver: {controls.escape(line)}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _git_out(*args: str, data: bytes | None = None) -> str | None:
    """Run a git command and return its first line of output; None when it fails."""
    from git_aide.gitio.spawn import spawn

    proc = spawn(*args, input=data)
    if proc is None:
        return None
    rc, stdout, _err = proc.wait()
    out = stdout.decode(errors="replace").strip()
    return out.splitlines()[0] if rc == 0 and out else None


def _git_dir() -> str | None:
    """Return the git directory (`git rev-parse --git-dir`), or None when git fails: all of the
    answer but its last newline, as the path may hold one."""
    from git_aide.gitio.spawn import one_answer, spawn

    proc = spawn("rev-parse", "--git-dir")
    if proc is None:
        return None
    rc, stdout, _err = proc.wait()
    return one_answer(stdout) if rc == 0 and stdout else None


def _kept_in_git(data: bytes) -> str | None:
    """Store a side's exact bytes in git and return `git show <blob>` for them: a command that
    prints the dropped version whatever the operation (merge, rebase, cherry-pick, pull) and
    whatever ref moves later. Writing the blob is a no-op when git has it already, as it almost
    always has (the side came from a commit); it makes sure of it otherwise."""
    from git_aide.gitio.sides import hex_id

    oid = _git_out("hash-object", "-w", "--no-filters", "--stdin", data=data)
    return f"git show {oid}" if oid and hex_id(oid) else None


def _tell(lost: list[Dropped], sides: dict[str, bytes]) -> None:
    """Say on stderr, one line a field, what the merge dropped: git shows it in its output.

    Paid only when something was dropped: then two git processes (where the git
    directory is, and the blob id of the dropped side).
    """
    from git_aide.gitio.sides import side_names

    names = side_names(_git_dir())
    commands: dict[str, str | None] = {}
    for d in lost:
        if d.lost not in commands:
            commands[d.lost] = _kept_in_git(sides[d.lost])
        _write_line(f"git-aide: {notice(d, names, commands[d.lost])}")


def _write_line(line: str) -> None:
    """Write one line on stderr; a closed stderr loses the line, never the merge."""
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def run_driver(argv: list[str]) -> int:
    """Run `git aide merge-driver BASE OURS THEIRS [MARKER_SIZE] [PATH]`: 0 merged, 1 conflict."""
    if argv[:1] in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    if len(argv) < 3 or len(argv) > 5:
        _say(USAGE)
        return 2
    base_path, ours_path, theirs_path = argv[0], argv[1], argv[2]
    size = _marker_size(argv[3] if len(argv) > 3 else None)
    name = argv[4] if len(argv) > 4 and argv[4] else ours_path
    # Only %A (ours_path) is ever written: git copies it into the working tree itself.
    base = ours = theirs = b""
    try:
        # One at a time: if one read fails, the markers still hold what was read.
        base = _read(base_path)
        ours = _read(ours_path)
        theirs = _read(theirs_path)
        merged, lost = merge_report(base, ours, theirs)
        with open(ours_path, "wb") as f:
            f.write(merged)
    except MergeConflict as e:
        reason = str(e)
    except Exception as e:  # never a traceback in git's output, never a silent "resolved"
        reason = f"internal error: {type(e).__name__}: {e}"
    else:
        if lost:
            try:
                _tell(lost, {"ours": ours, "theirs": theirs})
            except Exception as e:  # the merge is done and right: only the notice failed
                _say(f"{name}: both sides changed {', '.join(d.field for d in lost)}; "
                     f"kept the newer side (cannot say more: {type(e).__name__}: {e})")
        return 0
    try:
        with open(ours_path, "wb") as f:
            f.write(conflict_bytes(base, ours, theirs, size))
    except OSError as e:
        _say(f"{name}: cannot write the conflict markers: {e}")
        return 1
    _say(f"{name}: cannot merge: {reason}; conflict markers written")
    return 1


def main(argv: list[str] | None = None) -> int:
    """Run the driver from the fast path in `__main__`."""
    return run_driver(sys.argv[2:] if argv is None else argv)
