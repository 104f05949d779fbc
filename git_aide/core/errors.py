"""The one exception type that every layer raises and the CLI turns into one line."""

from __future__ import annotations


class AideError(Exception):
    """Report a failure the user can act on: its message is printed as one line, then we exit."""

    #: Exit status: 1 could not do it, 2 usage, 128 not a repository or git failed.
    code: int

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


class UsageError(AideError):
    """Report that the command line itself is wrong (exit status 2)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, 2)


class GitError(AideError):
    """Report that we are not inside a repository, or that git itself failed (exit status 128)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, 128)
