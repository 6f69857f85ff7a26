"""What the repository's own `refdoc.yml` may choose, and what only the operator may.

The repository being documented is untrusted input: in CI a pull request from anyone can
change it, while the environment (keys, endpoints, models, REFDOC_MERMAID_JS) and the
command line are the operator's. A setting of the repository's configuration that would
send the code or the operator's key to a host of its choosing, choose what the key is
billed (models, prices, more than `UNTRUSTED_PLANS` plans), run tools over its code, ship
a script on the site (`mermaid_js`, and then also its `node_modules/mermaid`: `Config.trusted`),
or point the site's links and canonical address at a look-alike host (`repo_url`,
`site_url` that are no plain forge URLs) is therefore used only when the operator trusts
the configuration:

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
from urllib.parse import urlsplit

from .config import CONFIG_NAME, Config, EmbeddingConfig, load_config
from .errors import ApiError, StoreError

log = logging.getLogger("refdoc_site")

TRUST_VARIABLE = "REFDOC_TRUST_CONFIG"
TRUST_FLAG = "--trust-config"
TRUE_WORDS = ("1", "true", "yes", "on")
DEFAULT_STORE_NAME = ".refdoc"
"""The store's folder in the repository when no `--store` is given."""
HOW_TO_TRUST = f"used only with {TRUST_FLAG} or {TRUST_VARIABLE}=1"
BILLED_KEYS = ("summarizer_model", "doc_model", "prices")
"""The `llm:` settings that decide what a request costs: the repository may not choose them."""
MODEL_VARIABLES = "OPENAI_SUMMARIZER_MODEL, OPENAI_DOC_MODEL"
FORGE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "git.sr.ht", "gitea.com", "dev.azure.com", "sourceforge.net")
"""The hosts the repository's untrusted `repo_url` may name; the environment's
GITHUB_SERVER_URL is added."""
PAGES_DOMAINS = ("github.io", "gitlab.io", "codeberg.page", "bitbucket.io", "pages.dev", "readthedocs.io")
"""Domains of the forges' (and documentation hosts') pages, for an untrusted `site_url`."""
UNTRUSTED_PLANS = 5
"""How many `plans:` the repository's configuration may ask for without trust."""


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
        return Config(trusted=False)
    config, warnings = confine(load_config(repo, config_path), repo, label, command_line, env)
    for warning in warnings:
        log.warning(warning)
    return config


def check_default_store(repo: Path, given: Path | None, trusted: bool) -> None:
    """Refuse a default store (REPO/.refdoc, used when no store is `given`) that links out of
    the repository unless trusted: a build writes there and clears folders in it, so a link
    the repository committed would have it write and delete elsewhere on the machine."""
    store = repo / DEFAULT_STORE_NAME
    if given is None and not trusted and not is_inside(repo, store):
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
    if config.llm is not None and (chosen := [key for key in BILLED_KEYS if getattr(config.llm, key)]):
        config = replace(config, llm=replace(config.llm, summarizer_model="", doc_model="", prices={}))
        for key in chosen:
            warnings.append(
                f"{label}: llm.{key}: ignored: the models and their prices decide what the operator's key is billed, "
                f"so they are {HOW_TO_TRUST}; the environment's models ({MODEL_VARIABLES}) and the built-in prices apply"
            )
    if len(config.plans) > UNTRUSTED_PLANS:
        warnings.append(
            f"{label}: plans: {len(config.plans) - UNTRUSTED_PLANS} of {len(config.plans)} ignored: each plan costs "
            f"LLM requests on the operator's key, so the repository's configuration asks for at most "
            f"{UNTRUSTED_PLANS} unless trusted ({TRUST_FLAG} or {TRUST_VARIABLE}=1)"
        )
        config = replace(config, plans=config.plans[:UNTRUSTED_PLANS])
    for key, problem in _url_problems(config, env).items():
        if key not in command_line:
            warnings.append(f"{label}: {key}: ignored: {problem}; such a URL is {HOW_TO_TRUST}")
        config = replace(config, **{key: ""})
    if config.mermaid_js:
        warnings.append(
            f"{label}: mermaid_js: ignored: the site runs that file as a script on every page with a diagram, "
            f"so the repository's configuration names one only with {TRUST_FLAG} or {TRUST_VARIABLE}=1; "
            f"or name the operator's copy in REFDOC_MERMAID_JS"
        )
        config = replace(config, mermaid_js="")
    if config.lsp != "off" and "lsp" not in command_line:
        warnings.append(
            f"{label}: lsp: ignored: language servers run tools over the repository's code (rust-analyzer "
            f"its build scripts), so the repository's configuration turns them on only with {TRUST_FLAG} or "
            f"{TRUST_VARIABLE}=1; or pass --lsp"
        )
        config = replace(config, lsp="off")
    return replace(config, trusted=False), warnings


def _url_problems(config: Config, environ: Mapping[str, str]) -> dict[str, str]:
    """What is wrong with the repository's `repo_url` and `site_url` when untrusted: each
    must be a plain https URL (no port, query, fragment or user name, which make a look-alike
    or carry a session) on a known forge, or for `site_url` a forge's pages domain or the
    host of `repo_url`; the links of every page and the canonical URL point there."""
    forges = set(FORGE_HOSTS)
    if server := urlsplit(environ.get("GITHUB_SERVER_URL", "")).hostname:
        forges.add(server.lower())  # the operator's GitHub Enterprise server
    problems = {}
    repo_host = ""
    if config.repo_url:
        repo_host, problem = _plain_host(config.repo_url)
        if not problem and repo_host not in forges:
            problem = f"{config.repo_url!r} is on no known forge ({', '.join(sorted(forges))})"
        if problem:
            problems["repo_url"], repo_host = problem, ""
    if config.site_url:
        host, problem = _plain_host(config.site_url)
        pages = host.endswith(tuple(f".{domain}" for domain in PAGES_DOMAINS))
        if not problem and not pages and host != repo_host:
            problem = f"{config.site_url!r} is on no forge's pages domain (*.{', *.'.join(PAGES_DOMAINS)}) nor repo_url's host"
        if problem:
            problems["site_url"] = problem
    return problems


def _plain_host(url: str) -> tuple[str, str]:
    """The URL's host name, lowered, and what makes it no plain https://host/path ("" when
    nothing does)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "", f"{url!r} is no valid URL"
    extras = [
        name for name, present in (
            ("a port", port is not None), ("a query", parts.query), ("a fragment", parts.fragment),
            ("a user name", parts.username is not None), ("http instead of https", parts.scheme != "https"),
        ) if present
    ]
    host = (parts.hostname or "").lower()
    return host, f"{url!r} has {' and '.join(extras)}" if extras else ""


def _environment_serves(embedding: EmbeddingConfig, environ: Mapping[str, str]) -> bool:
    """Whether the environment alone gives the API embedder a server and a key."""
    try:
        embedding.api_settings(environ)
    except ApiError:
        return False
    return True
