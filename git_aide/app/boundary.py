"""The one error boundary: what an exception says, in one line, and the exit status;
and the one line a command's notices (a damaged cache that was rebuilt) are said in.

Every front end ends its work here: the command line (its click-free path and click's),
the hooks (which say the line and still exit 0: a hook never breaks an agent's session)
and the MCP server (which returns the message as the call's error result and lives on).
"""

from __future__ import annotations

import os
import sys

from git_aide.core.errors import AideError

#: How an error line starts, whichever front end says it.
PREFIX = "git-aide: error: "


def failure(e: BaseException) -> tuple[str | None, int]:
    """Return (what the error says, the exit status); None when there is nothing to say (the
    reader went away, or the user interrupted)."""
    if isinstance(e, AideError):
        return str(e), e.code
    if isinstance(e, BrokenPipeError):
        return None, 0
    if isinstance(e, KeyboardInterrupt):
        return None, 130
    if isinstance(e, SystemExit):  # sys.exit(): its status, or its message and 1
        if e.code is None or isinstance(e.code, int):
            return None, e.code or 0
        return str(e.code), 1
    return f"internal error: {type(e).__name__}: {e}", 1


def error_line(message: str) -> str:
    """Return `message` as the one error line: its lines joined, its control characters
    escaped (an error may quote a memory file or an argument)."""
    from git_aide.core.controls import escape

    return PREFIX + escape(" ".join(message.strip().splitlines()))


def report(e: BaseException, *, debug_hint: bool = True) -> int:
    """Say `e` on stderr as one line; its exit status.

    With GIT_AIDE_DEBUG set, an internal error (not an AideError) is raised again, for
    its traceback. `debug_hint`: say so after an internal error's line.
    """
    message, status = failure(e)
    if message is None:
        return status
    if not isinstance(e, AideError):
        if os.environ.get("GIT_AIDE_DEBUG"):
            raise e
        if debug_hint:
            message += " (set GIT_AIDE_DEBUG=1 for the traceback)"
    sys.stderr.write(error_line(message) + "\n")
    return status


def notice_line(notices: list[str]) -> str | None:
    """Return one notice line, so that the user hears once however many cache files were
    damaged: the first notice and how many more there were; None when there is nothing to
    say."""
    if not notices:
        return None
    from git_aide.core.controls import escape

    more = f" (and {len(notices) - 1} more)" if len(notices) > 1 else ""
    return f"git-aide: notice: {escape(notices[0])}{more}"
