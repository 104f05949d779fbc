"""The fixtures: a real git repository with git-aide initialised, in a temporary folder.
What tests share besides fixtures is in helpers.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import make_repo


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
