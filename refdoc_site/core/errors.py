"""One error root; every message is one line that says what failed, where, and what to do."""

from __future__ import annotations

from typing import Any

SHOWN_MAX_CHARS = 80
"""A wrong value longer than this is cut in its message: the message stays one short line."""


def shown_value(value: Any) -> str:
    """A wrong value as a problem's message shows it: a string by its repr (its control
    characters escaped), anything else with its type (`int 12`), cut to `SHOWN_MAX_CHARS`."""
    text = repr(value) if isinstance(value, str) else f"{type(value).__name__} {value!r}"
    return text if len(text) <= SHOWN_MAX_CHARS else text[: SHOWN_MAX_CHARS - 3] + "…"


class RefdocError(Exception):
    """Base of every error shown to the user as one clean line."""


class ConfigError(RefdocError):
    """`refdoc.yml` (or a command-line option) is invalid; carries every problem found."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


class StoreError(RefdocError):
    """The store under `.refdoc/` cannot be read or written."""


class SiteBuildError(RefdocError):
    """MkDocs could not build the rendered project."""


class ApiError(RefdocError):
    """An OpenAI-compatible API is misconfigured or refuses every request (not one flaky batch)."""


class ApiKeyError(ApiError):
    """The API key is missing or was rejected; the message names the variable to set."""


class OutputFolderError(RefdocError):
    """`--out` or `--store` names a folder that a build would overwrite or delete."""


class StoreLockedError(StoreError):
    """Another refdoc-site command kept the store's lock past the wait allowed."""


class NothingToIndexError(RefdocError):
    """The repository holds no file refdoc-site can index, so there is nothing to document."""
