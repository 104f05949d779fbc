"""The fixtures: a real git repository with git-aide initialised, in a temporary folder.
What tests share besides fixtures is in helpers.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import NO_USER_STORE, make_repo


@pytest.fixture(autouse=True)
def no_user_store(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the developer's own user store: in this process either
    (git-aide's functions called here read the environment), unless it asks for one."""
    monkeypatch.setenv("XDG_DATA_HOME", NO_USER_STORE)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A fresh repository with git-aide initialised."""
    return make_repo(tmp_path / "repo")


@pytest.fixture(scope="session")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny sentence model (helpers.tiny_model), built once per test session: tests
    read it and never change it (one that damages a model copies it first)."""
    from helpers import tiny_model

    return tiny_model(tmp_path_factory.mktemp("tiny-model"))


@pytest.fixture
def user_env(tmp_path: Path) -> dict[str, str]:
    """A user of their own: a global git config and a cache folder in the test's
    temporary folder (`semantic fetch` writes both)."""
    (tmp_path / "xdg-cache").mkdir()
    return {"GIT_CONFIG_GLOBAL": str(tmp_path / "user.gitconfig"),
            "XDG_CACHE_HOME": str(tmp_path / "xdg-cache")}


@pytest.fixture
def user_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A user store of the test's own (read/user.py), not made yet: the environment that
    points git-aide at it, for processes; this process is pointed at it too."""
    xdg = tmp_path / "xdg-data"
    monkeypatch.setenv("XDG_DATA_HOME", str(xdg))
    return {"XDG_DATA_HOME": str(xdg)}
