"""What the warm server runs for the thin client (warm/listener.py): a hook, or a hot
command's plain form, exactly as `git-aide` would run it here (__main__.py), but reading
through the server's contexts (warm/contexts.py)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.app.context import Contexts


def run(argv: list[str], event: bytes | None, contexts: Contexts) -> int | None:
    """Run `argv` (a hook with its `event`, or a hot command's plain form) on `contexts`;
    its exit status, or None when it is not served (the client runs it itself)."""
    if argv[0] == "hook":
        return _hook(argv[1:], event, contexts)
    from git_aide.cli import commands
    from git_aide.cli.argv import parse

    if not all(arg.isascii() for arg in argv):
        status = commands.guarded(lambda: commands.check_arguments(argv))
        if status:
            return status
    parsed = parse(argv)
    if parsed is None:
        return None  # click's forms: help, an error message, a short option's value
    command, kwargs = parsed
    return commands.guarded(lambda: commands.run(command, kwargs, contexts))


def _hook(argv: list[str], event: bytes | None, contexts: Contexts) -> int | None:
    """Run one hook on `event`; None when its folder is another repository's."""
    from git_aide.agents.hooks import events

    if event is None or "-h" in argv or "--help" in argv:
        return None
    return events.main(argv, contexts, event)
