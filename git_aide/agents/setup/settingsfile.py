"""An agent's settings file, read and written inside the working tree only: a regular
file of bounded size, through a link only when it stays inside the tree and out of
`.git`, and the change init makes to it (Change), written atomically with the file's
permissions kept."""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field

from git_aide.core.errors import AideError

#: The largest JSON settings file read: agents' files are a few KiB, and a bound keeps
#: something that never ends from hanging init or doctor.
MAX_JSON = 1 << 20
#: The same for TOML, smaller: tomlkit keeps a document as written but parses slowly.
MAX_TOML = 128 << 10


@dataclass
class Change:
    """Record what init did (or would do) to one file."""

    #: Repo-relative path.
    path: str
    #: The bytes before (None: no file) and after (None: the file is removed).
    before: bytes | None
    after: bytes | None
    #: A few words on what is ours in it.
    what: str
    #: The file read and written: the path, or what a link inside the tree points to.
    dest: str = field(default="", repr=False)
    #: The permission bits of the file before, given back to the rewritten one.
    mode: int | None = field(default=None, repr=False)

    @property
    def changed(self) -> bool:
        """Tell whether the file's bytes change."""
        return self.before != self.after

    def line(self) -> str:
        """Return one line for the user."""
        if not self.changed:
            return f"{self.path}: already up to date ({self.what})"
        if self.after is None:
            return f"{self.path}: removed (it held only {self.what})"
        verb = "created" if self.before is None else "updated"
        return f"{self.path}: {verb} ({self.what})"

    def diff(self) -> str:
        """Return a unified diff of the change, for --dry-run."""
        import difflib

        old = (self.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        new = (self.after or b"").decode("utf-8", "replace").splitlines(keepends=True)
        return "".join(difflib.unified_diff(old, new, f"a/{self.path}", f"b/{self.path}"))


def place(top: str, rel: str) -> str:
    """Return the file to read and write for `rel`: the path itself, or the target of a link
    that stays inside the working tree; anything that would lead out of it is refused,
    every folder on the way checked as the memory folders are."""
    from git_aide.gitio import folders

    folder = os.path.dirname(rel)
    if folder:
        message = folders.problem(top, folder, "agent settings")
        if message:
            raise AideError(f"{rel}: {message}")
    path = os.path.join(top, rel)
    if not os.path.islink(path):
        return path
    target = os.path.realpath(path)
    root = os.path.realpath(top)
    inside = os.path.relpath(target, root)
    if inside == os.pardir or inside.startswith(os.pardir + os.sep) or os.path.isabs(inside):
        raise AideError(f"{rel} is a symbolic link out of the working tree (to "
                        f"{os.readlink(path)}); git-aide writes agent settings only inside "
                        "it: left as it was")
    if inside.split(os.sep)[0] == ".git":
        raise AideError(f"{rel} is a symbolic link into .git; left as it was")
    return target


def read_settings(top: str, rel: str, limit: int) -> tuple[bytes | None, str, int | None]:
    """Return (bytes or None, file, permission bits) of a settings file: only a regular file
    of at most `limit` bytes is read (a FIFO or a device would never end)."""
    dest = place(top, rel)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(
        os, "O_NOCTTY", 0)
    try:
        fd = os.open(dest, flags)
    except FileNotFoundError:
        return None, dest, None
    except OSError as e:
        raise AideError(f"{rel} cannot be read ({e.strerror}); left as it was") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise AideError(f"{rel} is not a regular file; left as it was")
        too_big = AideError(f"{rel} is larger than {limit >> 10} KiB, more than agent settings "
                            "ever are; left as it was")
        if st.st_size > limit:
            raise too_big
        chunks = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise too_big
    except OSError as e:
        raise AideError(f"{rel} cannot be read ({e.strerror}); left as it was") from None
    finally:
        os.close(fd)
    return b"".join(chunks), dest, stat.S_IMODE(st.st_mode)


def json_text(raw: bytes | None, rel: str) -> str:
    """Return the text of a JSON settings file, checked to be an object."""
    if raw is None:
        return ""
    try:
        text = raw.decode("utf-8")
        doc = json.loads(text) if text.strip() else {}
    except RecursionError:
        raise AideError(f"{rel} is nested too deeply to be agent settings; left as it was"
                        ) from None
    except (ValueError, UnicodeDecodeError) as e:
        raise AideError(f"{rel} is not valid JSON ({e}); fix it, then run init again "
                        "(it was left as it was)") from None
    if not isinstance(doc, dict):
        raise AideError(f"{rel} does not hold a JSON object; left as it was")
    return text
