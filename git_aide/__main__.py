"""Entry point of the `git-aide` executable (and `python -m git_aide`)."""

from __future__ import annotations

import sys


def main() -> None:
    """Run git-aide and exit with its status."""
    if len(sys.argv) > 1 and sys.argv[1] == "merge-driver":
        # Git starts the driver once per conflicting file: skip click and go straight
        # to the merge (DESIGN section 9 budget: under 80 ms a call).
        from git_aide.merge import main as merge_main

        sys.exit(merge_main(sys.argv[2:]))
    from git_aide.cli import run

    sys.exit(run())


if __name__ == "__main__":
    main()
