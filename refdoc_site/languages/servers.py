"""Language servers as data: which server answers for which languages, and how to find it.

Adding a server is adding a `ServerSpec` row. `lsp.py` starts the servers through
multilspy, always with the binary found here, so multilspy never downloads one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

NPM_PREFIX = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "refdoc-site" / "npm"
"""Where npm packages of servers are installed, once, when node and npm are present."""
NPM_INSTALL_SECONDS = 300


@dataclass(frozen=True)
class ServerSpec:
    """One language server and the languages it answers for."""

    name: str
    languages: tuple[str, ...]
    """refdoc language names (`python`, `typescript`, …)."""
    multilspy_language: str
    """The `multilspy_config.Language` value of the adapter that drives the server."""
    command: str
    """Executable name, or an absolute path (tests point it at fake servers)."""
    npm_packages: tuple[str, ...] = ()
    """Installed into NPM_PREFIX when the command is missing and npm is present."""
    optional: bool = True
    """A missing optional server is skipped quietly; a missing required one is noticed."""
    requires: tuple[str, ...] = ()
    """Other executables the server needs on PATH to answer (gopls runs `go list`)."""
    async_hover: str = ""
    """Regex over the hover text of a definition's name meaning it is asynchronous;
    empty when the server's hover does not tell (jedi omits `async`)."""
    start_seconds: float = 30.0
    """Time limit for starting and initialising the server."""
    request_seconds: float = 60.0
    """Time limit for one file's requests."""


SERVERS: tuple[ServerSpec, ...] = (
    ServerSpec(
        "jedi-language-server",
        languages=("python",),
        multilspy_language="python",
        command="jedi-language-server",
        optional=False,
    ),
    ServerSpec(
        "typescript-language-server",
        languages=("typescript", "tsx", "javascript"),
        multilspy_language="typescript",
        command="typescript-language-server",
        npm_packages=("typescript-language-server", "typescript@5"),
        optional=False,
        async_hover=r"^\s*(?:\(\w+\)\s*)?(?:[\w.]+\s+)*async\b|\)\s*:\s*Promise<",
    ),
    ServerSpec("gopls", languages=("go",), multilspy_language="go", command="gopls", requires=("go",)),
    ServerSpec("rust-analyzer", languages=("rust",), multilspy_language="rust", command="rust-analyzer"),
    ServerSpec("clangd", languages=("c", "cpp"), multilspy_language="cpp", command="clangd"),
)


def server_for(language: str, servers: tuple[ServerSpec, ...] = SERVERS) -> ServerSpec | None:
    return next((spec for spec in servers if language in spec.languages), None)


def find_binary(spec: ServerSpec, install: bool = True) -> str | None:
    """The server's executable: an absolute path, beside this Python, on PATH, or in the
    npm cache (installed there first when `install` and npm is present). None when it is
    missing or a tool it requires is."""
    if not all(shutil.which(tool) for tool in spec.requires):
        return None
    if os.path.isabs(spec.command):
        return spec.command if os.access(spec.command, os.X_OK) else None
    beside_python = Path(sys.executable).parent / spec.command
    if beside_python.is_file():
        return str(beside_python)
    cached = NPM_PREFIX / "node_modules" / ".bin" / spec.command
    found = shutil.which(spec.command) or (str(cached) if cached.is_file() else None)
    if found or not (install and spec.npm_packages and shutil.which("npm") and shutil.which("node")):
        return found
    install_npm_packages(spec.npm_packages)
    return str(cached) if cached.is_file() else None


def install_npm_packages(packages: tuple[str, ...]) -> bool:
    """`npm install` into the cache folder; False when npm failed (offline, no registry)."""
    NPM_PREFIX.mkdir(parents=True, exist_ok=True)
    command = ["npm", "install", "--prefix", str(NPM_PREFIX), "--no-save", "--no-package-lock",
               "--no-audit", "--no-fund", "--silent", *packages]
    try:
        result = subprocess.run(command, capture_output=True, timeout=NPM_INSTALL_SECONDS, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 0
