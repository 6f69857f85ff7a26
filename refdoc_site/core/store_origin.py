"""Whether the default store found in the repository (`REPO/.refdoc`) is the operator's, or
came with the repository: a store the repository ships could hold pages, records and a
generated project that the current sources would not render, and the build reuses what
its records say is unchanged.

- **Tracked by git**: it came with the commit. Its files are deleted and it is rebuilt
  (git restores them); the operator's own store is never committed.
- **In a git work tree, untracked**: a build on this machine made it, or the operator's CI
  cache restored it (a clone brings no untracked file). Trusted.
- **No git to ask** (no `.git`, git missing, or "dubious ownership" in a container of
  another user): a tarball, a ZIP download or an sdist could carry it. It is trusted only
  when it bears this machine's stamp, `ORIGIN_NAME`: an HMAC of its path under a key
  kept in the operator's cache (`KEY_PATH`), which no repository can know. Else its
  files are deleted and it is rebuilt, and stamped.

A store named with `--store` is the operator's choice and is not checked. A command that
only reads the store (`query`, `ask`, `stats`, `serve`, `mcp`) deletes nothing: it refuses
a store not the operator's (`check_operators_store`), whose records would otherwise reach
its answers and the operator's model.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import StoreError
from .repository import git_output
from .store import LOCK_NAME

log = logging.getLogger("refdoc_site")

ORIGIN_NAME = "origin"
"""The store's stamp: hex HMAC-SHA256 of its resolved path under the machine's key."""
KEY_PATH = Path.home() / ".cache/refdoc-site/store-key"
"""The operator's key for the stamps; made (mode 600) on first use."""


@contextmanager
def operators_store(repo: Path, store: Path, default: bool = True) -> Iterator[None]:
    """Clear the default store `store` of `repo` unless it is the operator's (see the
    module's text), saying why in one line; stamp it when the block leaves anything in it.
    Entered with the store's lock held; a store that is not the `default` one is the
    operator's choice (`--store`), left as it is."""
    if not default:
        yield
        return
    held = _held(store)
    reason = _foreign(repo, store) if held else ""
    if reason:
        log.warning("%s: %s, so it is not trusted: its files are deleted and it is built again", store, reason)
        for entry in held:
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
    yield
    key = _machine_key()
    if key is not None and _held(store):
        (store / ORIGIN_NAME).write_text(_stamp(key, store) + "\n", encoding="utf-8")


def check_operators_store(repo: Path, store: Path, default: bool = True) -> None:
    """For a command that only reads the default store `store`: a `StoreError` naming it
    when it is not the operator's (see the module's text)."""
    reason = _foreign(repo, store) if default and _held(store) else ""
    if reason:
        raise StoreError(
            f"{store}: {reason}, so it is not read; run `refdoc-site index {repo}` to build your own, "
            "or name a store of yours with --store"
        )


def _held(store: Path) -> list[Path]:
    """The store's entries but its lock and stamp: an empty store needs no stamp, and goes."""
    return [entry for entry in store.iterdir() if entry.name not in (LOCK_NAME, ORIGIN_NAME)] if store.is_dir() else []


def _foreign(repo: Path, store: Path) -> str:
    """Why the store is not the operator's, or "" when it is."""
    if git_output(repo, "rev-parse", "--is-inside-work-tree") == "true":
        tracked = git_output(repo, "ls-files", "--", os.path.relpath(store, repo))
        return "git tracks it: it came with the repository" if tracked else ""
    key = _machine_key()
    try:
        found = (store / ORIGIN_NAME).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        found = ""
    if key is not None and found and hmac.compare_digest(found, _stamp(key, store)):
        return ""
    return "no git tells whether it came with the repository, and it bears no stamp of this machine"


def _stamp(key: bytes, store: Path) -> str:
    return hmac.new(key, os.fsencode(os.path.realpath(store)), hashlib.sha256).hexdigest()


def _machine_key() -> bytes | None:
    """The operator's key, made on first use; None when the cache cannot hold one (then no
    store without git is trusted, and every such build starts afresh)."""
    try:
        return bytes.fromhex(KEY_PATH.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        pass
    try:
        KEY_PATH.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(KEY_PATH, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="ascii") as file:
            file.write(secrets.token_hex(32) + "\n")
        return bytes.fromhex(KEY_PATH.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None
