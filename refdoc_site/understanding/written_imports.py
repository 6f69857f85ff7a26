"""What an import, as the index wrote it down (`from .models import User` as `.models.User`,
`pkg.Util.*`, `utils`), says about the names it brings in: the module part before a name,
the owner a static import names, whether a file is the module a receiver names. The call
resolver (calls.py) reads a file's imports through these."""

from __future__ import annotations

import functools
import re


@functools.cache
def import_owner(module: str) -> str:
    """The last part of an import as written (`Util` of `pkg.Util.*`)."""
    return re.split(r"[./]|::", module.rstrip(".*"))[-1]


def module_importing(written: str, name: str) -> str | None:
    """The module of an import as written that brings in `name` (`.models.User` → `.models`,
    `..User` → `..`), or None when it brings in another name."""
    if not written.endswith(name) or written == name:
        return None
    module = written[: -len(name)]
    if module.strip(".") == "":
        return module
    return module[:-1] if module.endswith(".") else None


def is_module_of(path: str, receiver: str) -> bool:
    """Whether the file is the module the receiver names (`pkg/utils.py`,
    `pkg/utils/__init__.py` for `utils`), not its package reached by a shorter prefix."""
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    last = receiver.rsplit(".", 1)[-1]
    if stem in ("__init__", "index", "mod"):
        stem = path.rsplit("/", 2)[-2] if path.count("/") else stem
    return stem == last
