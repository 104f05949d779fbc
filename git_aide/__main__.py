"""Entry point of the `git-aide` executable (and `python -m git_aide`)."""

from __future__ import annotations

import sys


def main() -> None:
    """Run git-aide and exit with its status."""
    from git_aide.cli import run

    sys.exit(run())


if __name__ == "__main__":
    main()
