"""The steps of a build that read a file's (or a commit message's) text, each as a
`Stage`: `prepare` does what comes before it untimed (the chunks an analysis needs),
`run` is what is timed."""

from __future__ import annotations

import hashlib
import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass

from refdoc_site.core.config import ChunkSettings
from refdoc_site.core.records import Document, SourceFile
from refdoc_site.core.redact import Redactor
from refdoc_site.indexing.analyze import SyntaxAnalyzer
from refdoc_site.indexing.chunk import chunk_file
from refdoc_site.indexing.summarize import ExtractiveSummarizer
from refdoc_site.languages import language_for
from refdoc_site.search.ranking import code_words, sparse_fields
from refdoc_site.understanding.evidence.commits import _commit_entry, is_decision_like
from refdoc_site.languages.doc_comments import FORMATS as DOC_FORMATS
from refdoc_site.languages.doc_comments import normalize as normalize_doc_comment
from refdoc_site.writing.docstrings import parse_docstring


@dataclass(frozen=True)
class Stage:
    name: str
    prepare: Callable[[str], object]
    run: Callable[[object], object]


PATHS = {"py": "app/hostile.py", "js": "src/hostile.js", "md": "docs/hostile.md", "yaml": "config/hostile.yaml", "sh": "scripts/hostile.sh"}
"""One file of each way a file is chunked: two grammars, headings, windows of config, and
code no grammar parses (the regex tier alone)."""
SETTINGS = ChunkSettings()


def _source(path: str, text: str) -> SourceFile:
    data = text.encode("utf-8")
    return SourceFile(path, language_for(path).name, len(data), hashlib.sha256(data).hexdigest())


def _chunked(path: str) -> Callable[[str], tuple]:
    def prepare(text: str) -> tuple:
        source = _source(path, text)
        return source, text, chunk_file(source, text, SETTINGS)

    return prepare


def _analysed(path: str, tree_sitter: bool = True) -> Callable[[str], tuple]:
    def prepare(text: str) -> tuple:
        source, text, chunks = _chunked(path)(text)
        return chunks, SyntaxAnalyzer(tree_sitter).analyze(source, text, chunks)

    return prepare


def _summarize(prepared: tuple) -> None:
    chunks, analysis = prepared
    summarizer = ExtractiveSummarizer()
    for chunk in chunks:
        summarizer.summarize(chunk, analysis.metadata[chunk.id])


def _documents(path: str) -> Callable[[str], list[Document]]:
    def prepare(text: str) -> list[Document]:
        chunks, analysis = _analysed(path)(text)
        summarizer = ExtractiveSummarizer()
        return [Document(c, summarizer.summarize(c, analysis.metadata[c.id]), analysis.metadata[c.id], [], "") for c in chunks]

    return prepare


def _search_terms(documents: list[Document]) -> None:
    for document in documents:
        sparse_fields(document)
        code_words(document)


def _commit(text: str) -> None:
    subject, _, body = text.partition("\n")
    is_decision_like(subject, body)
    _commit_entry("0" * 40, "2026-01-01", subject or "x", body)


def _identity(text: str) -> str:
    return text


STAGES: list[Stage] = [
    Stage("redact file", _identity, lambda text: Redactor().redact(text, PATHS["py"])),
    Stage("redact message", _identity, lambda text: Redactor().redact(text)),
    Stage("commit message", _identity, _commit),
    Stage("docstring", _identity, parse_docstring),
    *(Stage(f"doc comment {name}", _identity, lambda text, f=name: normalize_doc_comment(text, f)) for name in DOC_FORMATS),
]
for _kind, _path in PATHS.items():
    STAGES.append(Stage(f"chunk {_kind}", lambda text, p=_path: (_source(p, text), text), lambda pair: chunk_file(pair[0], pair[1], SETTINGS)))
    STAGES.append(Stage(f"analyze {_kind}", _chunked(_path), lambda prepared: SyntaxAnalyzer().analyze(*prepared)))
    if _kind in ("py", "js"):
        STAGES.append(Stage(f"regex tier {_kind}", _chunked(_path), lambda prepared: SyntaxAnalyzer(tree_sitter=False).analyze(*prepared)))
    STAGES.append(Stage(f"summarize {_kind}", _analysed(_path), _summarize))
    STAGES.append(Stage(f"search terms {_kind}", _documents(_path), _search_terms))


SWEPT_MODULES = (
    "languages.patterns", "languages.exports", "languages.imports", "languages.roles", "languages.statements",
    "languages.doc_comments", "languages.effects", "indexing.visibility",
    "indexing.chunk", "indexing.text_chunks", "indexing.regex_tier", "indexing.analyze", "indexing.summarize",
    "indexing.code_facts", "indexing.tree_sitter_tier", "writing.docstrings", "search.ranking", "search.japanese",
    "core.text", "core.tokens", "understanding.evidence.commits",
)


def _patterns(value: object, name: str) -> list[tuple[str, re.Pattern[str]]]:
    if isinstance(value, re.Pattern):
        return [(name, value)]
    if isinstance(value, dict):
        return [found for key, item in value.items() for found in _patterns(item, f"{name}[{key}]")]
    if isinstance(value, (tuple, list)):
        return [found for index, item in enumerate(value) for found in _patterns(item, f"{name}[{index}]")]
    return []


def _scan(pattern: re.Pattern[str]) -> Callable[[str], int]:
    return lambda text: sum(1 for _ in pattern.finditer(text))


def sweep_stages() -> list[Stage]:
    """Every regular expression the modules keep at module level, on the whole text."""
    stages, seen = [], set()
    for module_name in SWEPT_MODULES:
        module = importlib.import_module(f"refdoc_site.{module_name}")
        for attribute, value in vars(module).items():
            if attribute.startswith("__"):
                continue
            for name, pattern in _patterns(value, attribute):
                if id(pattern) in seen or not isinstance(pattern.pattern, str):
                    continue
                seen.add(id(pattern))
                stages.append(Stage(f"re {module_name}.{name}", _identity, _scan(pattern)))
    return stages
