"""Configuration: an optional `refdoc.yml` at the repository root, declared option by option.

Every problem is collected and reported at once as `refdoc.yml: <key>: <problem>`, and
the build stops before doing any work.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import re2
import yaml

from ..languages import LANGUAGES, LanguageSpec
from .api_settings import ApiSettings
from .corrections import CORRECTIONS_NAME, corrections_name_problem
from .errors import ConfigError, shown_value
from .regular_files import read_regular

CONFIG_NAME = "refdoc.yml"
OUTPUT_LANGUAGES = ("en", "ja")
LSP_MODES = ("off", "on", "only")
LSP_ASK_POLICIES = ("all", "linkable", "ambiguous")
ENGINES = ("mkdocs", "zensical")
MARKDOWN_COPIES = ("auto", "all", "none")
"""Which pages' Markdown copies the site carries for language models (rendering/llms.py)."""
"""The site builders `engine:` (and `--engine`) may name (rendering/site.py)."""
EMBEDDING_PROVIDERS = ("openai", "azure")
LLM_PROVIDERS = ("openai", "azure")
DEFAULT_EMBEDDING_MODEL = "text-embedding-3-small"
EMBEDDING_MODEL_VARIABLE = "OPENAI_EMBEDDING_MODEL"


@dataclass(frozen=True)
class ChunkSettings:
    """Token window size and overlap, with per-language overrides."""

    size: int = 512
    overlap: int = 50
    per_language: dict[str, tuple[int, int]] = field(default_factory=dict)

    def for_language(self, spec: LanguageSpec) -> tuple[int, int]:
        if spec.name in self.per_language:
            return self.per_language[spec.name]
        return (spec.chunk_size or self.size, spec.chunk_overlap or self.overlap)


@dataclass(frozen=True)
class EmbeddingConfig:
    """`embedding:` in refdoc.yml: the optional API embedder, used by the CLI only.

    An empty value falls back to the environment (`OPENAI_PROVIDER`, `OPENAI_EMBEDDING_MODEL`,
    `OPENAI_BASE_URL`, or `AZURE_OPENAI_ENDPOINT` for Azure); keys always come from it.
    """

    provider: str = ""
    """`openai` (also any OpenAI-compatible server) or `azure`."""
    model: str = ""
    """Model name; for Azure, the deployment name."""
    base_url: str = ""
    """An OpenAI-compatible server (`http://localhost:8000/v1`); for Azure, the endpoint.
    From the repository's refdoc.yml only when the operator trusts it (trust.py)."""

    def api_settings(self, environ: Mapping[str, str] | None = None) -> ApiSettings:
        """The server, key and model these values and the environment give; raises ApiError
        (one line) when they give none. The embedder and the trust check both ask here."""
        return ApiSettings.resolve(
            self.provider, self.model, self.base_url,
            model_variable=EMBEDDING_MODEL_VARIABLE, default_model=DEFAULT_EMBEDDING_MODEL, environ=environ,
        )


@dataclass(frozen=True)
class LlmConfig:
    """`llm:` in refdoc.yml: the LLM that writes the prose (see refdoc_site/llm/).

    Empty values fall back to the environment (`OPENAI_PROVIDER`, `OPENAI_BASE_URL` or
    `AZURE_OPENAI_ENDPOINT`, `OPENAI_SUMMARIZER_MODEL`, `OPENAI_DOC_MODEL`); keys always
    come from it. The section turns the LLM on like a key in the environment does.
    """

    enabled: bool = True
    """False keeps the build offline even when a key is set."""
    provider: str = ""
    """`openai` (also any OpenAI-compatible server) or `azure`."""
    base_url: str = ""
    """An OpenAI-compatible server (`http://localhost:8000/v1`); for Azure, the endpoint.
    From the repository's refdoc.yml only when the operator trusts it (trust.py)."""
    summarizer_model: str = ""
    """Writes the chunk, file and module summaries (default gpt-4o-mini); for Azure, a deployment."""
    doc_model: str = ""
    """Writes the system summary and the documents (default gpt-4o); for Azure, a deployment."""
    concurrency: int = 4
    """Requests in flight at once."""
    max_cost: float = 0.0
    """USD; 0 for no limit. When reached, the rest of the build uses extractive text."""
    timeout: float = 120.0
    """Seconds one request may take before it is retried."""
    prices: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Model → (input, output) USD per million tokens, for models the built-in table lacks."""


@dataclass(frozen=True)
class SecretsConfig:
    """`secrets:` in refdoc.yml: what the redaction of credentials (redact.py) also
    redacts, and what it keeps."""

    allow: tuple[str, ...] = ()
    """Values that are not secrets although they look like one (a test fixture's fake key)."""
    allow_patterns: tuple[str, ...] = ()
    """Regular expressions; a value one of them matches whole is not a secret."""
    patterns: tuple[str, ...] = ()
    """Regular expressions whose matches (their first group, when they have one) are
    secrets too: an in-house token format."""


@dataclass(frozen=True)
class Config:
    """Everything a build may be told; defaults make the offline build."""

    site_name: str = ""
    """Site title; defaults to the repository folder's name."""
    site_url: str = ""
    repo_url: str = ""
    """Repository host URL; source links point there at the built commit when set."""
    language: str = "en"
    """Output language of the generated prose."""
    include: tuple[str, ...] = ()
    """Gitignore-style globs; when given, only matching files are indexed."""
    exclude: tuple[str, ...] = ()
    max_file_size: int = 1_000_000
    chunk_size: int = 512
    chunk_overlap: int = 50
    languages: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per-language overrides: `{python: {chunk_size: 400, chunk_overlap: 40}}`."""
    module_depth: int = 0
    """How many directory levels name a module (`src/app` at depth 2); 0 chooses per
    folder, splitting any module of more than 50 files into its subfolders."""
    mermaid_js: str = ""
    """Path to a local `mermaid.min.js`, relative to the repository; diagrams render as
    source text without one. From the repository's refdoc.yml only when trusted (trust.py),
    and only a file that looks like Mermaid (rendering/assets.py)."""
    lsp: str = "off"
    """Language servers for the analysis: `off` (tree-sitter and regex only, the fast
    offline default), `on` (servers first where they run, then the other tiers) or
    `only` (servers alone). The servers run tools over the code, so the repository's
    refdoc.yml turns them on only when trusted (trust.py); `--lsp` always can."""
    lsp_budget: int = 600
    """Seconds the language servers may take over one build; when they are spent, the
    remaining files go to tree-sitter and regex, and the next build asks about them
    again. 0: no limit."""
    lsp_ask: str = "linkable"
    """Which call sites the servers are asked about with `lsp: on`: `all`, `linkable`
    (those whose name some function, method or class of the repository bears) or
    `ambiguous` (those whose name several bear)."""
    plans: tuple[str, ...] = ()
    """Requests the build writes a plan for (`plans/{slug}.md`), as `refdoc-site plan` does."""
    secrets: SecretsConfig = field(default_factory=SecretsConfig)
    engine: str = field(default="mkdocs", repr=False)
    """What builds the HTML site from the rendered project: `mkdocs` (MkDocs with Material)
    or `zensical` (the optional extra `refdoc-site[zensical]`). Out of the repr, which keys
    the summarize digest: the render phase's digest names it (the theme override differs)."""
    publish_source: bool = True
    """False leaves the source code out of the site: file pages keep signatures and
    summaries but show no code, and the search data carries no words of the code."""
    markdown_copies: str = field(default="auto", repr=False)
    """The pages' Markdown copies under `md/` for language models: `all`, `none`, or `auto`
    (all while they total at most rendering/llms.py's `MARKDOWN_COPIES_BUDGET`, else none:
    a big repository's site would carry every page twice). Out of the repr, which keys the
    summarize and file-page digests: the render phase's digest names it."""
    embedding: EmbeddingConfig | None = field(default=None, repr=False)
    """When set, the index phase also stores API vectors for `query --embedder api`. Out of
    the repr, which keys the summarize and render digests: no page depends on it."""
    trusted: bool = field(default=True, repr=False)
    """Whether the operator trusts the repository's own settings and files (trust.py): only
    then may the site ship a script of the repository's (`node_modules/mermaid`). A Config
    built in Python is its author's; `load_repository_config` clears it when untrusted.
    Out of the repr: what it changes (the Mermaid script) enters the digests itself."""
    corrections: str = field(default=CORRECTIONS_NAME, repr=False)
    """The maintainers' corrections file (core/corrections.py), relative to the repository.
    Out of the repr: the render phase's digest names the file's content."""
    llm: LlmConfig | None = field(default=None, repr=False)
    """The LLM's settings. Out of the repr: what shapes the pages (the models, the prompts)
    enters the digests through the LLM session's `identity`, not the concurrency or budget."""

    def chunk_settings(self) -> ChunkSettings:
        per_language = {
            name: (
                values.get("chunk_size", self.chunk_size),
                values.get("chunk_overlap", self.chunk_overlap),
            )
            for name, values in self.languages.items()
        }
        return ChunkSettings(self.chunk_size, self.chunk_overlap, per_language)


@dataclass(frozen=True)
class _Option:
    key: str
    check: Callable[[Any], str | None]
    """Returns a problem, or None when the value is fine."""
    convert: Callable[[Any], Any] = lambda value: value


def _string(value: Any) -> str | None:
    return None if isinstance(value, str) else f"expected a string, got {shown_value(value)}"


def _globs(value: Any) -> str | None:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return None
    return f"expected a list of glob strings, got {shown_value(value)}"


def _requests(value: Any) -> str | None:
    if isinstance(value, list) and all(isinstance(item, str) and item.strip() for item in value):
        return None
    return f"expected a list of requests to plan for (non-empty strings), got {shown_value(value)}"


def _int_at_least(minimum: int) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        if isinstance(value, int) and not isinstance(value, bool) and value >= minimum:
            return None
        return f"expected a whole number of at least {minimum}, got {shown_value(value)}"

    return check


def _one_of(choices: tuple[str, ...]) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        if value in choices:
            return None
        return f"expected one of {', '.join(choices)}, got {shown_value(value)}"

    return check


def _section(record: type, check_key: Callable[[str, Any], str | None]) -> Callable[[Any], str | None]:
    """A check for a mapping of `record`'s fields: every unknown key and every value
    `check_key(key, value)` finds a problem with, in one line."""
    keys = [f.name for f in fields(record)]

    def check(value: Any) -> str | None:
        if not isinstance(value, dict):
            return f"expected a mapping with {', '.join(keys)}, got {shown_value(value)}"
        problems = []
        for key, setting in value.items():
            problem = f"unknown key; known are {', '.join(keys)}" if key not in keys else check_key(key, setting)
            if problem:
                problems.append(f"{key}: {problem}")
        return "; ".join(problems) or None

    return check


def _boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else f"expected true or false, got {shown_value(value)}"


def _secrets_key(key: str, value: Any) -> str | None:
    if not (isinstance(value, list) and all(isinstance(item, str) and item for item in value)):
        return f"expected a list of non-empty strings, got {shown_value(value)}"
    if key == "allow":
        return None
    for item in value:
        try:
            pattern = re2.compile(item)
        except re2.error as error:  # RE2: linear time on any text, so no look-around or back-reference
            return f"{item!r} is not a valid RE2 regular expression, which has no look-around or back-references ({error})"
        if pattern.fullmatch(""):
            return f"{item!r} matches the empty string; make it match the secret itself"
    return None


URL_FORBIDDEN = re.compile(r"[\s\x00-\x1f\x7f-\x9f\"'<>`\\]")
"""Characters that could end a link target or an HTML attribute the URL is written into."""


def _url(value: Any) -> str | None:
    """An http(s) URL with a host, safe to write into links: no other scheme (`javascript:`)."""
    if problem := _string(value):
        return problem
    if not value:
        return None
    if not value.startswith(("http://", "https://")):
        return f"expected an http:// or https:// URL, got {shown_value(value)}"
    if URL_FORBIDDEN.search(value):
        return f"expected a URL without spaces, control characters, quotes, backslashes or angle brackets (percent-encode them), got {shown_value(value)}"
    if not _host(value):
        return f"expected an http:// or https:// URL with a host name, got {shown_value(value)}"
    return None


def _host(url: str) -> str:
    try:
        return urlsplit(url).netloc
    except ValueError:  # an unbalanced IPv6 bracket
        return ""


def _embedding_key(key: str, value: Any) -> str | None:
    if key == "provider":
        return _one_of(EMBEDDING_PROVIDERS)(value)
    return _url(value) if key == "base_url" else _string(value)


LLM_NUMBERS = {"concurrency": (int, 1), "max_cost": (float, 0.0), "timeout": (float, 1.0)}


def _llm_key(key: str, value: Any) -> str | None:
    if key == "enabled":
        return _boolean(value)
    if key == "provider":
        return _one_of(LLM_PROVIDERS)(value)
    if key in LLM_NUMBERS:
        kind, minimum = LLM_NUMBERS[key]
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not number or (kind is int and not isinstance(value, int)) or value < minimum:
            noun = "a whole number" if kind is int else "a number"
            return f"expected {noun} of at least {minimum}, got {shown_value(value)}"
        return None
    if key == "prices":
        return _prices(value)
    return _url(value) if key == "base_url" else _string(value)


def _prices(value: Any) -> str | None:
    def pair(item: Any) -> bool:
        return (
            isinstance(item, list) and len(item) == 2
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) and x >= 0 for x in item)
        )

    if isinstance(value, dict) and all(isinstance(k, str) and pair(v) for k, v in value.items()):
        return None
    return f"expected model: [input, output] USD per million tokens, got {shown_value(value)}"


def _llm_config(value: dict) -> LlmConfig:
    converted = dict(value)
    for key in ("max_cost", "timeout"):
        if key in converted:
            converted[key] = float(converted[key])
    if "prices" in converted:
        converted["prices"] = {model: (float(a), float(b)) for model, (a, b) in converted["prices"].items()}
    return LlmConfig(**converted)


def _lsp_mode_name(value: Any) -> Any:
    """YAML reads a bare `on`/`off` as true/false: they mean the modes of those names."""
    return {True: "on", False: "off"}.get(value, value) if isinstance(value, bool) else value


def _lsp_mode(value: Any) -> str | None:
    return _one_of(LSP_MODES)(_lsp_mode_name(value))


OPTIONS: tuple[_Option, ...] = (
    _Option("site_name", _string),
    _Option("site_url", _url),
    _Option("repo_url", _url),
    _Option("language", _one_of(OUTPUT_LANGUAGES)),
    _Option("include", _globs, tuple),
    _Option("exclude", _globs, tuple),
    _Option("max_file_size", _int_at_least(1)),
    _Option("chunk_size", _int_at_least(16)),
    _Option("chunk_overlap", _int_at_least(0)),
    _Option("module_depth", _int_at_least(0)),
    _Option("mermaid_js", _string),
    _Option("lsp", _lsp_mode, _lsp_mode_name),
    _Option("lsp_budget", _int_at_least(0)),
    _Option("lsp_ask", _one_of(LSP_ASK_POLICIES)),
    _Option("plans", _requests, lambda value: tuple(dict.fromkeys(item.strip() for item in value))),
    _Option("embedding", _section(EmbeddingConfig, _embedding_key), lambda value: EmbeddingConfig(**value)),
    _Option("llm", _section(LlmConfig, _llm_key), _llm_config),
    _Option("secrets", _section(SecretsConfig, _secrets_key), lambda value: SecretsConfig(**{k: tuple(v) for k, v in value.items()})),
    _Option("publish_source", _boolean),
    _Option("engine", _one_of(ENGINES)),
    _Option("markdown_copies", _one_of(MARKDOWN_COPIES)),
    _Option("corrections", corrections_name_problem),
)
LANGUAGE_KEYS = {"chunk_size": _int_at_least(16), "chunk_overlap": _int_at_least(0)}
KNOWN_LANGUAGES = {spec.name for spec in LANGUAGES}


def load_config(repo: Path, config_path: Path | None = None) -> Config:
    """Read `refdoc.yml` (or `config_path`); a missing default file means all defaults."""
    path = config_path or repo / CONFIG_NAME
    label = path.name if config_path is None else str(config_path)
    if not path.exists():
        if config_path is not None:
            raise ConfigError([f"{label}: file not found; pass an existing --config file"])
        return Config()
    try:
        raw = yaml.safe_load(read_regular(path, follow_links=True).decode("utf-8"))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or "not valid YAML"
        raise ConfigError([f"{label}{where}: {problem}; fix the YAML syntax"]) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError([f"{label}: cannot be read ({error}); check the file"]) from None
    return parse_config(raw or {}, label)


def parse_config(raw: Any, label: str = CONFIG_NAME) -> Config:
    if not isinstance(raw, dict):
        raise ConfigError([f"{label}: expected a mapping of options, got {shown_value(raw)}"])
    problems: list[str] = []
    values: dict[str, Any] = {}
    options = {option.key: option for option in OPTIONS}
    for key, value in raw.items():
        if key == "languages":
            values["languages"] = _parse_languages(value, label, problems)
            continue
        option = options.get(key)
        if option is None:
            known = ", ".join(sorted([*options, "languages"]))
            problems.append(f"{label}: {key}: unknown option; known options are {known}")
            continue
        problem = option.check(value)
        if problem:
            problems.append(f"{label}: {key}: {problem}")
        else:
            values[key] = option.convert(value)
    config = Config(**values) if not problems else Config()
    if not problems and config.chunk_overlap >= config.chunk_size:
        problems.append(f"{label}: chunk_overlap: must be smaller than chunk_size ({config.chunk_size})")
    if problems:
        raise ConfigError(problems)
    return config


def _parse_languages(value: Any, label: str, problems: list[str]) -> dict[str, dict[str, int]]:
    if not isinstance(value, dict):
        problems.append(f"{label}: languages: expected a mapping of language names, got {shown_value(value)}")
        return {}
    parsed: dict[str, dict[str, int]] = {}
    for name, overrides in value.items():
        where = f"{label}: languages.{name}"
        if name not in KNOWN_LANGUAGES:
            problems.append(f"{where}: unknown language; known are {', '.join(sorted(KNOWN_LANGUAGES))}")
            continue
        if not isinstance(overrides, dict):
            problems.append(f"{where}: expected a mapping with chunk_size/chunk_overlap")
            continue
        for key, setting in overrides.items():
            check = LANGUAGE_KEYS.get(key)
            if check is None:
                problems.append(f"{where}.{key}: unknown option; known are chunk_size, chunk_overlap")
            elif problem := check(setting):
                problems.append(f"{where}.{key}: {problem}")
        parsed[name] = {k: v for k, v in overrides.items() if k in LANGUAGE_KEYS}
    return parsed


def with_overrides(config: Config, **overrides: Any) -> Config:
    """The config with command-line overrides (None means not given) applied and checked."""
    given = {key: value for key, value in overrides.items() if value is not None}
    if not given:
        return config
    problems = []
    for key, value in given.items():
        option = next(o for o in OPTIONS if o.key == key)
        if problem := option.check(value):
            problems.append(f"--{key.replace('_', '-')}: {problem}")
    updated = replace(config, **given) if not problems else config
    if not problems and updated.chunk_overlap >= updated.chunk_size:
        problems.append(f"--overlap: must be smaller than the chunk size ({updated.chunk_size})")
    if problems:
        raise ConfigError(problems)
    return updated


def with_embedder(config: Config, embedder: str | None) -> Config:
    """`--embedder api` turns the API embedder on for one run (settings from the
    environment when refdoc.yml has none), `--embedder static` off; None keeps refdoc.yml's."""
    if embedder == "api":
        return config if config.embedding is not None else replace(config, embedding=EmbeddingConfig())
    if embedder == "static":
        return replace(config, embedding=None)
    return config
