"""Entry point of the `git-aide` executable (and `python -m git_aide`)."""

from __future__ import annotations

import sys


def main() -> None:
    """Run git-aide and exit with its status."""
    argv = sys.argv[1:]
    if argv and argv[0] == "merge-driver":
        # Git starts the driver once per conflicting file: skip click and go straight
        # to the merge (DESIGN section 9 budget: under 80 ms a call).
        from git_aide.gitprog.driver import main as merge_main

        sys.exit(merge_main(argv[1:]))
    if argv and argv[0] == "textconv":
        # Git starts the textconv once per memory file it shows: as cheap as the driver.
        from git_aide.gitprog.textconv import main as textconv_main

        sys.exit(textconv_main(argv[1:]))
    if argv and argv[0] == "hook" and "-h" not in argv and "--help" not in argv:
        # Agents run hooks on every file they touch: no click, and never a failure.
        from git_aide.agents.events import main as hook_main

        sys.exit(hook_main(argv[1:]))
    if argv == ["mcp"]:
        from git_aide.agents import serve

        sys.exit(serve())
    if not all(arg.isascii() for arg in argv):
        from git_aide.cli import commands

        status = commands.guarded(lambda: commands.check_arguments(argv))
        if status:
            sys.exit(status)
    if argv and argv[0] in ("recall", "search"):
        # The calls agents make on every file they touch: plain forms skip click, and
        # the questions for git are started first, to run while Python imports the rest.
        from git_aide.cli.fastpath import parse

        parsed = parse(argv)
        if parsed is not None:
            from git_aide.gitio.spawn import early

            command, kwargs = parsed
            # kwargs hold what parse() read from argv, each checked for its parameter:
            # a dict[str, object] that mypy cannot match to the signatures (the ignores).
            if not (kwargs.get("cached") and kwargs.get("rev") is not None):
                kwargs["asked"] = early(bool(kwargs.get("cached")), kwargs.get("rev"))  # type: ignore[arg-type]
            from git_aide.cli import commands

            work = commands.recall if command == "recall" else commands.search
            sys.exit(commands.guarded(lambda: work(**kwargs)))  # type: ignore[arg-type]
    if argv and argv[0] in ("diff", "log"):
        # A reviewer's or a CI step's call: the plain forms skip click as recall does.
        from git_aide.cli.fastpath import parse_history

        parsed = parse_history(argv)
        if parsed is not None:
            from git_aide.cli import commands

            command, kwargs = parsed
            show = commands.diff if command == "diff" else commands.log
            sys.exit(commands.guarded(lambda: show(**kwargs)))  # type: ignore[arg-type]
    from git_aide.cli.main import run

    sys.exit(run())


if __name__ == "__main__":
    main()
