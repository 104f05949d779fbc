"""The folders a write may use: real folders inside the working tree, never a link out.

A clone or a pull runs no hook, so a committed symlink such as
`.aide/memories/technical -> /somewhere` arrives silently; writing through it would put
memories (or personal preferences) outside the repository. The writing commands refuse
such a folder, and `validate` and `doctor` name it.
"""

from __future__ import annotations

import os
import stat

from git_aide.core.memory import LAYERS, MEMORIES_DIR

#: Every folder a memory can be written to, repo-relative, parents before children.
FOLDERS: tuple[str, ...] = (
    ".aide", MEMORIES_DIR,
    *(f"{MEMORIES_DIR}/{layer}" for layer in LAYERS),
    f"{MEMORIES_DIR}/preferences/shared", f"{MEMORIES_DIR}/preferences/personal",
)


def problem(top: str, rel: str, what: str = "memories") -> str | None:
    """Say why writing into the folder `rel` (repo-relative) could leave the working tree, or
    None when every part of it that exists is a real folder inside it (`what`: the files
    written there, for the message)."""
    path = top
    done: list[str] = []
    for part in rel.split("/"):
        path = os.path.join(path, part)
        done.append(part)
        shown = "/".join(done)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            break  # made by the write itself, as a real folder
        except OSError as e:
            return f"{shown} cannot be read ({e.strerror})"
        if stat.S_ISLNK(st.st_mode):
            try:
                target = os.readlink(path)
            except OSError:
                target = "?"
            return (f"{shown} is a symbolic link (to {target}); git-aide writes {what} only "
                    "inside the working tree: replace the link with a real folder")
        if not stat.S_ISDIR(st.st_mode):
            return f"{shown} is not a folder; move it away so that {what} can be written"
    real_top = os.path.realpath(top)
    real = os.path.realpath(path)
    if real != real_top and not real.startswith(real_top.rstrip(os.sep) + os.sep):
        return (f"{rel} resolves outside the working tree ({real}); git-aide writes {what} "
                "only inside it")
    return None


def problems(top: str) -> list[tuple[str, str]]:
    """List (folder, problem) for every memory folder a write would refuse; a folder below
    one already named is not named again."""
    out: list[tuple[str, str]] = []
    for rel in FOLDERS:
        if any(rel.startswith(bad + "/") for bad, _ in out):
            continue
        message = problem(top, rel)
        if message and not any(message.startswith(bad + " ") for bad, _ in out):
            out.append((message.split(" ", 1)[0], message))
    return out


def linked(top: str) -> list[str]:
    """Return a warning for each memory folder that is a symbolic link, for the readers of the
    working tree: what it points to is not in the repository, so no file of it is read
    (git lists nothing beyond a link; this says why those memories are missing)."""
    out: list[str] = []
    bad: list[str] = []
    for rel in FOLDERS:
        if any(rel.startswith(b + "/") for b in bad):
            continue
        try:
            st = os.lstat(os.path.join(top, rel))
        except OSError:
            bad.append(rel)  # absent: nothing below it to read either
            continue
        if stat.S_ISLNK(st.st_mode):
            bad.append(rel)
            try:
                target = os.readlink(os.path.join(top, rel))
            except OSError:
                target = "?"
            out.append(f"{rel}: a symbolic link (to {target}); skipped, git-aide reads no "
                       "memories through it: replace the link with a real folder")
    return out


def unwritable(top: str, rel: str) -> str | None:
    """Find the folder (repo-relative) that keeps a file from being written into the folder
    `rel`: `rel` itself, or the nearest of its parents that exists when it does not (the
    write would make it there); None when it can be written (os.access: permission bits,
    a read-only file system)."""
    parts = rel.split("/") if rel else []
    while True:
        path = os.path.join(top, *parts)
        if os.path.isdir(path):
            if os.access(path, os.W_OK | os.X_OK):
                return None
            return "/".join(parts) or top
        if not parts:
            return None  # the top is gone: the write says why
        parts.pop()
