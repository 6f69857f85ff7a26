"""The regex tier of the analysis: the last resort for rows and files no grammar parses.

Imports, calls, effects, security boundaries and what a file exports, read with the
regular expressions of `languages.patterns` from code whose strings and comments are
emptied first, so prose is not read as code.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..core.records import Chunk, ChunkKind
from ..languages import language_named, patterns
from ..languages.exports import EXPORT_RULES

REGEX = "regex"
"""This tier's name in `Metadata.sources`."""
PROSE_LANGUAGES = ("markdown", "text", "restructuredtext")
"""Languages whose chunks are prose: no tier looks for code in them."""


def file_imports(language: str, text: str) -> list[str]:
    """Import targets in the order written, without duplicates, by regular expressions."""
    found: list[str] = []
    for pattern in patterns.IMPORTS.get(language, ()):
        for match in pattern.finditer(text):
            found.extend(import_targets(language, match))
    return list(dict.fromkeys(t for t in found if t and not t.startswith("__future__")))


ALIAS = re.compile(r"(?:^|\s)as(?=\s|$)")
"""Where an import's alias starts; fixed width, so a long run of blanks costs one pass."""


def imported_name(member: str) -> str:
    """`b` of `b as c`, and of an alias left unfinished (`b as`, `b as )`)."""
    alias = ALIAS.search(member)
    return (member[: alias.start()] if alias else member).strip()


def import_targets(language: str, match: re.Match[str]) -> list[str]:
    if language == "python":
        if "names" in match.re.groupindex:  # `from module import names`
            module, names = match.group("module"), match.group("names")
            members = [imported_name(n) for n in names.replace("\n", " ").split(",")]
            joiner = "" if module.endswith(".") else "."
            return [module] + [f"{module}{joiner}{m}" for m in members if m and m != "*"]
        return [part.split(" as ")[0].strip() for part in match.group(1).split(",")]
    return [match.group(1)]


STRING_OR_COMMENT = re.compile(
    r'"""[\s\S]*?(?:"""|\Z)|\'\'\'[\s\S]*?(?:\'\'\'|\Z)|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''
    r"|`(?:\\.|[^`\\])*(?:`|\Z)|/\*[\s\S]*?(?:\*/|\Z)"
)
"""String literals and block comments. One left open runs to the end of the text, as it
would for a compiler, so that a text of unclosed `/*` is not rescanned from each one
(which took time growing with the square of its length)."""


def strip_strings_and_comments(text: str, language: str) -> str:
    """Code with string literals emptied and comments removed, so prose is not read as calls.

    Quotes stay (emptied), so patterns that look for a string argument still see one.
    """
    line_comment = _line_comment(language)
    if line_comment is not None:
        text = line_comment.sub("", text)
    return STRING_OR_COMMENT.sub(_emptied, text)


_EMPTIED = {'"': '""', "'": "''", "`": "``"}


def _emptied(match: re.Match[str]) -> str:
    """A string literal's quotes with nothing between them; a block comment's one blank."""
    return _EMPTIED.get(match.string[match.start()], " ")


@lru_cache(maxsize=None)
def _line_comment(language: str) -> re.Pattern | None:
    """A line comment of `language` to its line's end, or None where it has none."""
    prefixes = language_named(language).line_comment
    return re.compile(r"(?m)(?:^|\s)(?:" + "|".join(re.escape(p) for p in prefixes) + r").*$") if prefixes else None


def calls_in(body: str, language: str = "") -> list[str]:
    """Names called in a body, as written (`self.parse`, `os.path.join`), first use first;
    the language's declarations and macro definitions (`NOT_CALL_TEXT`) call nothing."""
    for pattern in patterns.NOT_CALL_TEXT.get(language, ()):
        body = pattern.sub("", body)
    names = []
    for match in patterns.CALLED_NAME.finditer(body):
        if not patterns.CALL_OPENING.match(body, match.end()):
            continue
        name = re.sub(r"\s+", "", match.group(0)).replace("::", ".").replace("->", ".")
        if name.rsplit(".", 1)[-1] in patterns.NOT_CALLS:
            continue
        names.append(name)
    return list(dict.fromkeys(names))


def security_reason(text: str, language: str = "text", code: str | None = None) -> str:
    """Why code sits on a security boundary (`subprocess (`subprocess.run`)`), or "".

    The whole chunk counts, its decorators and definition line included; strings and
    comments are read only by the reasons that look inside them (SQL text). `code` is
    `text` with them emptied (`strip_strings_and_comments`), when the caller has it.
    """
    code = strip_strings_and_comments(text, language) if code is None else code
    lowered = {False: code.lower(), True: text.lower()}
    for reason, pattern in patterns.SECURITY:
        reads_strings = reason in patterns.SECURITY_READS_STRINGS
        if not any(piece in lowered[reads_strings] for piece in patterns.SECURITY_GATES[reason]):
            continue
        match = pattern.search(text if reads_strings else code)
        if match:
            return f"{reason} (`{match.group(0).strip()[:40]}`)"
    return ""


def imports_used(words: set[str], imports_by_local: dict[str, list[tuple[int, str]]]) -> list[str]:
    """The file's imports whose local name a chunk uses, in import order: looked up from
    the chunk's words, so a file with many imports and many chunks costs their sum."""
    used = [pair for word in words & imports_by_local.keys() for pair in imports_by_local[word]]
    return [name for _, name in sorted(used)]


def chunk_body(chunk: Chunk) -> str:
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


def local_name(imported: str) -> str:
    return re.split(r"[./:\\]", imported.rstrip("/"))[-1].removesuffix(".h")


def declared_public(language: str, text: str) -> list[str] | None:
    """Names a file declares public explicitly (`__all__`, `module.exports`) in the order
    written, or None."""
    if language == "python":
        match = re.search(r"^__all__\s*=\s*[\[(]([^\])]*)[\])]", text, re.MULTILINE)
        return list(dict.fromkeys(re.findall(r"['\"](\w+)['\"]", match.group(1)))) if match else None
    if EXPORT_RULES.get(language) == "export":
        names = re.findall(r"^[ \t]*export\s+(?:default\s+)?(?:async\s+)?(?:function\*?|class|const|let|var|interface|type|enum|abstract\s+class)\s+(\w+)", text, re.MULTILINE)
        for block in re.findall(r"^[ \t]*export\s*\{([^}]*)\}", text, re.MULTILINE):
            names.extend(part.split(" as ")[-1].strip() for part in block.split(","))
        names.extend(re.findall(r"\b(?:module\.)?exports\.(\w+)\s*=", text))
        names.extend(re.findall(r"\b(\w+)\s*=\s*(?:exports\s*=\s*)?module\.exports\s*=", text))
        names.extend(re.findall(r"module\.exports\s*=\s*(?:\w+\s*=\s*)?(\w+)\s*;?\s*$", text, re.MULTILINE))
        return list(dict.fromkeys(name for name in names if name))
    return None
