"""Analyze stage: metadata per chunk (imports, exports, callees, async, raising, effects).

Analyzers sit behind the `Analyzer` protocol. The syntax analyzer here reads the chunks
the grammar produced and the regular expressions of `languages.patterns`; a language
server tier can be registered in front of it. Callers are not decided here: they come
from the whole call graph (`graph.py`) once every file is analysed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from .languages import language_named, patterns
from .records import Chunk, ChunkKind, Metadata, SourceFile

TIER = "syntax"


@dataclass
class FileAnalysis:
    """What an analyzer learnt about one file."""

    imports: list[str] = field(default_factory=list)
    """Import targets as written (`os.path`, `./util`, `fmt`)."""
    metadata: dict[str, Metadata] = field(default_factory=dict)
    """Per chunk id."""


class Analyzer(Protocol):
    name: str

    def analyze(self, source: SourceFile, text: str, chunks: list[Chunk]) -> FileAnalysis: ...


class SyntaxAnalyzer:
    """Chunk structure from tree-sitter plus regular expressions for everything else."""

    name = TIER

    def analyze(self, source: SourceFile, text: str, chunks: list[Chunk]) -> FileAnalysis:
        imports = file_imports(source.language, text)
        local_names = {name: _local_name(name) for name in imports}
        public = _declared_public(source.language, text)
        analysis = FileAnalysis(imports=imports)
        for chunk in chunks:
            analysis.metadata[chunk.id] = self._chunk_metadata(chunk, local_names, public)
        return analysis

    def _chunk_metadata(self, chunk: Chunk, local_names: dict[str, str], public: set[str] | None) -> Metadata:
        if chunk.kind in (ChunkKind.SECTION, ChunkKind.WINDOW) and chunk.language in ("markdown", "text", "restructuredtext"):
            return Metadata(sources={"all": TIER})
        body = strip_strings_and_comments(_body(chunk), chunk.language)
        raises = patterns.RAISES.get(chunk.language, patterns.RAISES["*"])
        throws = bool(raises.search(body))
        effects = [name for name, pattern in patterns.EFFECTS.items() if pattern.search(body)]
        if throws:
            effects.append("raising")
        asynchronous = patterns.ASYNC.get(chunk.language, patterns.ASYNC["*"])
        words = set(re.findall(r"[A-Za-z_]\w*", body))
        return Metadata(
            imports=[name for name, local in local_names.items() if local in words],
            exports=[chunk.symbol] if _is_exported(chunk, public) else [],
            callees=[c for c in calls_in(body) if c != chunk.name] if chunk.kind is not ChunkKind.CLASS else [],
            isAsync=bool(asynchronous.search(chunk.signature)),
            throwsException=throws,
            securityBoundary=security_reason(chunk.signature + "\n" + body),
            effects=effects,
            sources={field_name: TIER for field_name in ("imports", "exports", "callees", "isAsync", "throwsException", "securityBoundary")},
        )


def file_imports(language: str, text: str) -> list[str]:
    """Import targets in the order written, without duplicates."""
    found: list[str] = []
    for pattern in patterns.IMPORTS.get(language, ()):
        for match in pattern.finditer(text):
            found.extend(_import_targets(language, match))
    return list(dict.fromkeys(t for t in found if t and not t.startswith("__future__")))


def _import_targets(language: str, match: re.Match[str]) -> list[str]:
    if language == "python":
        if match.re.pattern.lstrip("^\\s*").startswith("from"):
            module, names = match.group(1), match.group(2)
            members = [n.split(" as ")[0].strip() for n in names.replace("\n", " ").split(",")]
            joiner = "" if module.endswith(".") else "."
            return [module] + [f"{module}{joiner}{m}" for m in members if m and m != "*"]
        return [part.split(" as ")[0].strip() for part in match.group(1).split(",")]
    return [match.group(1)]


STRING_OR_COMMENT = re.compile(
    r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|`(?:\\.|[^`\\])*`|/\*[\s\S]*?\*/'
)


def strip_strings_and_comments(text: str, language: str) -> str:
    """Code with string literals emptied and comments removed, so prose is not read as calls.

    Quotes stay (emptied), so patterns that look for a string argument still see one.
    """
    prefixes = language_named(language).line_comment
    if prefixes:
        text = re.sub(r"(?m)(?:^|\s)(?:" + "|".join(re.escape(p) for p in prefixes) + r").*$", "", text)
    return STRING_OR_COMMENT.sub(lambda m: m.group(0)[0] * 2 if m.group(0)[0] in "\"'`" else " ", text)


def calls_in(body: str) -> list[str]:
    """Names called in a body, as written (`self.parse`, `os.path.join`), first use first."""
    names = []
    for match in patterns.CALL.finditer(body):
        name = re.sub(r"\s+", "", match.group(1)).replace("::", ".").replace("->", ".")
        if name.rsplit(".", 1)[-1] in patterns.NOT_CALLS:
            continue
        names.append(name)
    return list(dict.fromkeys(names))


def security_reason(text: str) -> str:
    for reason, pattern in patterns.SECURITY:
        match = pattern.search(text)
        if match:
            return f"{reason} (`{match.group(0).strip()[:40]}`)"
    return ""


def _body(chunk: Chunk) -> str:
    """The chunk's text below its first line, so a definition is not read as a call."""
    if chunk.kind in (ChunkKind.FUNCTION, ChunkKind.METHOD) and chunk.part <= 1:
        first, _, rest = chunk.content.partition("\n")
        return rest if rest else _after_paren(first)
    return chunk.content


def _after_paren(line: str) -> str:
    depth = 0
    for index, char in enumerate(line):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return line[index + 1 :]
    return line


def _local_name(imported: str) -> str:
    return re.split(r"[./:\\]", imported.rstrip("/"))[-1].removesuffix(".h")


EXPORT_RULES = {
    "python": "underscore",
    "go": "capitalized",
    "rust": "pub",
    "java": "public",
    "csharp": "public",
    "javascript": "export",
    "typescript": "export",
    "tsx": "export",
    "c": "not static",
    "cpp": "not static",
}
"""How each language marks a definition as public."""


def _declared_public(language: str, text: str) -> set[str] | None:
    """Names a file declares public explicitly (`__all__`, `module.exports`), or None."""
    if language == "python":
        match = re.search(r"^__all__\s*=\s*[\[(]([^\])]*)[\])]", text, re.MULTILINE)
        return set(re.findall(r"['\"](\w+)['\"]", match.group(1))) if match else None
    if EXPORT_RULES.get(language) == "export":
        names = set(re.findall(r"^\s*export\s+(?:default\s+)?(?:async\s+)?(?:function\*?|class|const|let|var|interface|type|enum|abstract\s+class)\s+(\w+)", text, re.MULTILINE))
        for block in re.findall(r"^\s*export\s*\{([^}]*)\}", text, re.MULTILINE):
            names.update(part.split(" as ")[-1].strip() for part in block.split(","))
        names.update(re.findall(r"\b(?:module\.)?exports\.(\w+)\s*=", text))
        match = re.search(r"module\.exports\s*=\s*(\w+)", text)
        if match:
            names.add(match.group(1))
        return names
    return None


def _is_exported(chunk: Chunk, public: set[str] | None) -> bool:
    if chunk.kind in (ChunkKind.MODULE, ChunkKind.SECTION, ChunkKind.WINDOW):
        return False
    rule = EXPORT_RULES.get(chunk.language)
    top = chunk.symbol.split(".")[0]
    if rule == "underscore":
        if public is not None:
            return top in public and not chunk.name.startswith("_")
        return not any(part.startswith("_") and not part.startswith("__") for part in chunk.symbol.split("."))
    if rule == "export":
        return bool(public) and (top in public or chunk.symbol in public)
    if rule == "capitalized":
        return chunk.name[:1].isupper()
    if rule == "pub":
        return chunk.signature.startswith("pub") or " pub " in chunk.signature
    if rule == "public":
        return bool(re.search(r"\bpublic\b", chunk.signature))
    if rule == "not static":
        return not chunk.signature.startswith("static")
    return False
