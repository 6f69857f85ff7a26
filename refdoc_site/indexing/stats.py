"""Chunking statistics of a store, and what they suggest about the chunk size."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from statistics import mean, median

from ..core.records import ChunkKind, Document
from ..core.text import terminal_text

SPLIT_SHARE_TOO_LARGE = 0.2
"""More definitions than this share split into windows: the size is too small for them."""
TINY_SHARE = 0.8
TINY_FRACTION = 0.05
"""When most chunks are under this fraction of the size, the windows are oversized."""


@dataclass
class LanguageStats:
    files: int = 0
    chunks: int = 0
    mean_tokens: float = 0.0


@dataclass
class ChunkStats:
    files: int
    chunks: int
    chunks_per_file: float
    mean_tokens: float
    median_tokens: float
    split_definitions: int
    definitions: int
    per_language: dict[str, LanguageStats] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    secrets: dict[str, int] = field(default_factory=dict)
    """Per file with any, how many secrets were redacted from it."""
    secret_rules: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per file with any, how many secrets each rule found (rule names only, no value)."""
    unparsed: list[str] = field(default_factory=list)
    """Files of a language with a grammar that were too costly to parse (a budget of
    `languages.parse`): chunked in windows, analysed by regular expressions."""
    recommendation: str = ""


def chunk_stats(
    documents: list[Document], files: dict[str, str], skipped: dict[str, int], size: int, secrets: dict[str, int] | None = None,
    secret_rules: dict[str, dict[str, int]] | None = None, unparsed: list[str] | None = None,
) -> ChunkStats:
    """`files` maps each indexed path to its language; `secrets` the paths with redactions to their count."""
    tokens = [d.chunk.tokens for d in documents]
    by_language: dict[str, list[int]] = defaultdict(list)
    for document in documents:
        by_language[document.chunk.language].append(document.chunk.tokens)
    file_counts: dict[str, int] = defaultdict(int)
    for language in files.values():
        file_counts[language] += 1
    definitions = {
        d.chunk.path + "#" + d.chunk.symbol
        for d in documents
        if d.chunk.kind in (ChunkKind.FUNCTION, ChunkKind.METHOD, ChunkKind.CLASS)
    }
    split = {d.chunk.path + "#" + d.chunk.symbol for d in documents if d.chunk.part and d.chunk.kind in (ChunkKind.FUNCTION, ChunkKind.METHOD, ChunkKind.CLASS)}
    stats = ChunkStats(
        files=len(files),
        chunks=len(documents),
        chunks_per_file=len(documents) / len(files) if files else 0.0,
        mean_tokens=mean(tokens) if tokens else 0.0,
        median_tokens=median(tokens) if tokens else 0.0,
        split_definitions=len(split),
        definitions=len(definitions),
        per_language={
            language: LanguageStats(file_counts.get(language, 0), len(values), mean(values))
            for language, values in sorted(by_language.items())
        },
        skipped=skipped,
        secrets=dict(sorted((secrets or {}).items())),
        secret_rules={path: rules for path, rules in sorted((secret_rules or {}).items()) if rules},
        unparsed=sorted(unparsed or []),
    )
    stats.recommendation = recommend(stats, tokens, size)
    return stats


def recommend(stats: ChunkStats, tokens: list[int], size: int) -> str:
    if stats.definitions and stats.split_definitions / stats.definitions > SPLIT_SHARE_TOO_LARGE:
        suggested = sorted(tokens)[int(len(tokens) * 0.9)] if tokens else size
        return (
            f"{stats.split_definitions} of {stats.definitions} functions and classes exceed chunk_size {size} "
            f"and were split; consider chunk_size: {max(suggested, size * 2)} in refdoc.yml."
        )
    if tokens and sum(1 for t in tokens if t < size * TINY_FRACTION) / len(tokens) > TINY_SHARE:
        return (
            f"Most chunks are under {int(size * TINY_FRACTION)} tokens, far below chunk_size {size}; "
            f"windows of files without a grammar will be much larger than your functions "
            f"(median {stats.median_tokens:.0f} tokens); consider chunk_size: {max(64, int(stats.median_tokens * 4))}."
        )
    return ""


def redaction_summary(secrets: dict[str, int]) -> str:
    """`3 secrets redacted in 2 files`: counts only, never a value."""
    total, files = sum(secrets.values()), len(secrets)
    return f"{total} secret{'s' if total != 1 else ''} redacted in {files} file{'s' if files != 1 else ''}"


def unparsed_summary(paths: list[str]) -> str:
    """`2 files too costly to parse, chunked in windows`."""
    return f"{len(paths)} file{'s' if len(paths) != 1 else ''} too costly to parse, chunked in windows"


def see_stats(secrets: dict[str, int], unparsed: list[str]) -> list[str]:
    """The lines `index` and `build` end with when `stats` has more to say."""
    lines = [redaction_summary(secrets)] if secrets else []
    return [f"{line}; see refdoc-site stats" for line in lines + ([unparsed_summary(unparsed)] if unparsed else [])]


def _rules_fired(rules: dict[str, int]) -> str:
    """`  (github-pat, secret-named-assignment ×2)`: which rules found the file's secrets."""
    if not rules:
        return ""
    return "  (" + ", ".join(rule if n == 1 else f"{rule} ×{n}" for rule, n in sorted(rules.items())) + ")"


def format_stats(stats: ChunkStats) -> str:
    lines = [
        f"files indexed     {stats.files}",
        f"chunks            {stats.chunks}",
        f"chunks per file   {stats.chunks_per_file:.1f}",
        f"mean chunk size   {stats.mean_tokens:.0f} tokens (median {stats.median_tokens:.0f})",
        f"split definitions {stats.split_definitions} of {stats.definitions}",
        "",
        f"{'language':<18}{'files':>7}{'chunks':>8}{'mean tokens':>13}",
    ]
    for language, row in stats.per_language.items():
        lines.append(f"{language:<18}{row.files:>7}{row.chunks:>8}{row.mean_tokens:>13.0f}")
    lines.append("")
    if stats.skipped:
        lines.append("files skipped: " + ", ".join(f"{reason} {count}" for reason, count in stats.skipped.items()))
    else:
        lines.append("files skipped: none")
    if stats.secrets:
        lines.append(redaction_summary(stats.secrets) + ":")
        lines.extend(
            f"  {terminal_text(path, one_line=True)}  {count}{_rules_fired(stats.secret_rules.get(path, {}))}"
            for path, count in stats.secrets.items()
        )
    else:
        lines.append("secrets redacted: none")
    if stats.unparsed:
        lines.append(unparsed_summary(stats.unparsed) + " (over the parser's read or CPU budget):")
        lines.extend(f"  {terminal_text(path, one_line=True)}" for path in stats.unparsed)
    if stats.recommendation:
        lines.append(f"recommendation: {stats.recommendation}")
    return "\n".join(lines)
