"""What the repository's own `refdoc.yml` may choose, and what only the operator may.

The repository being documented is untrusted input: in CI a pull request from anyone can
change it, while the environment (keys, endpoints, REFDOC_MERMAID_JS) and the command line
are the operator's. A setting of the repository's configuration that would send the code,
or the operator's key, to a host of its choosing, run tools over its code, or publish a
file from outside it is therefore used only when the operator trusts the configuration:

- `--trust-config` on the command line, or `REFDOC_TRUST_CONFIG=1` in the environment;
- or a `--config FILE` that lies outside the repository: the operator wrote it. A
  `--config` inside the repository is the repository's, like its `refdoc.yml`.

Otherwise each such setting is dropped with one warning line naming the key and how to
allow it, and the build goes on with what the environment chose. The check happens once,
where the file is read: everything downstream sees only what was allowed, so a key from
the environment only ever goes to an endpoint the environment (or a trusted file) named.
A `Config` built in Python is its author's and is not checked. For the same reason a
default store folder (`REPO/.refdoc`) that links out of the repository is refused.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Collection, Mapping
from dataclasses import replace
from pathlib import Path

from .config import CONFIG_NAME, Config, EmbeddingConfig, load_config
from .errors import ApiError, StoreError

log = logging.getLogger("refdoc_site")

TRUST_VARIABLE = "REFDOC_TRUST_CONFIG"
TRUST_FLAG = "--trust-config"
TRUE_WORDS = ("1", "true", "yes", "on")
DEFAULT_STORE_NAME = ".refdoc"
"""The store's folder in the repository when no `--store` is given."""
HOW_TO_TRUST = f"used only with {TRUST_FLAG} or {TRUST_VARIABLE}=1"


def is_inside(root: Path, path: Path) -> bool:
    """Whether `path`, every symlink resolved, lies in `root` (itself resolved)."""
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(root))


def trusted_by_operator(flag: bool, environ: Mapping[str, str] | None = None) -> bool:
    """The command line's `--trust-config` or the environment's REFDOC_TRUST_CONFIG=1."""
    env = os.environ if environ is None else environ
    return flag or env.get(TRUST_VARIABLE, "").strip().lower() in TRUE_WORDS


def load_repository_config(
    repo: Path,
    config_path: Path | None = None,
    *,
    trust_flag: bool = False,
    command_line: Collection[str] = (),
    environ: Mapping[str, str] | None = None,
) -> Config:
    """`load_config`, keeping only what the repository may choose unless trusted.

    `command_line` names the settings the command line overrides for this run: the
    operator's choice, so the file's values of those are not reported.
    """
    env = os.environ if environ is None else environ
    path = config_path or repo / CONFIG_NAME
    label = path.name if config_path is None else str(config_path)
    if trusted_by_operator(trust_flag, env) or (config_path is not None and _operators_file(repo, config_path)):
        return load_config(repo, config_path)
    if path.exists() and not is_inside(repo, path):
        log.warning("%s: ignored: a link to a file outside the repository; such a file is %s", label, HOW_TO_TRUST)
        return Config()
    config, warnings = confine(load_config(repo, config_path), repo, label, command_line, env)
    for warning in warnings:
        log.warning(warning)
    return config


def check_default_store(repo: Path, trusted: bool) -> None:
    """Refuse a default store (REPO/.refdoc) that links out of the repository unless trusted:
    a build writes there and clears folders in it, so a link the repository committed would
    have it write and delete elsewhere on the machine."""
    store = repo / DEFAULT_STORE_NAME
    if not trusted and not is_inside(repo, store):
        raise StoreError(
            f"{store}: a link out of the repository, where the build would write its store; "
            f"pass --store DIR (or {TRUST_FLAG} when the link is yours)"
        )


def _operators_file(repo: Path, config_path: Path) -> bool:
    """A `--config` outside the repository both as named and with its links resolved: a
    link inside the repository is the repository's, whatever it points at."""
    named_inside = Path(os.path.abspath(config_path)).is_relative_to(os.path.abspath(repo))
    return not named_inside and not is_inside(repo, config_path)


def confine(
    config: Config, repo: Path, label: str, command_line: Collection[str] = (), environ: Mapping[str, str] | None = None
) -> tuple[Config, list[str]]:
    """The repository's `config` without the settings it may not choose, and one line per
    setting dropped."""
    env = os.environ if environ is None else environ
    warnings = []
    endpoints = f"endpoints in the repository's configuration are {HOW_TO_TRUST}"
    if config.llm is not None and config.llm.base_url:
        config = replace(config, llm=replace(config.llm, base_url=""))
        warnings.append(f"{label}: llm.base_url: ignored: {endpoints}")
    if config.embedding is not None and config.embedding.base_url:
        embedding = replace(config.embedding, base_url="")
        served = _environment_serves(embedding, env)
        config = replace(config, embedding=embedding if served else None)
        off = "" if served else "; the API embedder is off, as the environment names no server for it"
        warnings.append(f"{label}: embedding.base_url: ignored: {endpoints}{off}")
    if config.mermaid_js and not is_inside(repo, repo / config.mermaid_js):
        warnings.append(
            f"{label}: mermaid_js: ignored: {config.mermaid_js!r} lies outside the repository; files outside it "
            f"are {HOW_TO_TRUST}, or name the script in REFDOC_MERMAID_JS"
        )
        config = replace(config, mermaid_js="")
    if config.lsp != "off" and "lsp" not in command_line:
        warnings.append(
            f"{label}: lsp: ignored: language servers run tools over the repository's code (rust-analyzer "
            f"its build scripts), so the repository's configuration turns them on only with {TRUST_FLAG} or "
            f"{TRUST_VARIABLE}=1; or pass --lsp"
        )
        config = replace(config, lsp="off")
    return config, warnings


def _environment_serves(embedding: EmbeddingConfig, environ: Mapping[str, str]) -> bool:
    """Whether the environment alone gives the API embedder a server and a key."""
    try:
        embedding.api_settings(environ)
    except ApiError:
        return False
    return True
