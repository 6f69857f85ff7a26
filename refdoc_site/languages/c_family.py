"""What C and C++ share and how to tell them apart: the `.h` both use, and the
preprocessor conditionals tree-sitter cannot parse everywhere.

A `.h` is C by default. It is C++ when its text shows a construct C has no syntax for
(`class Foo {`, `namespace`, `template <`, an access specifier, `Foo::bar`, a standard
header without `.h`), or when the repository's sources are C++ and none is C (leveldb's
headers declare classes a C parser reads as errors).

tree-sitter parses `#if`/`#else` where a statement or a declaration may stand, not inside
an expression or a constructor's initializer list; there the error swallows the rest of
the file, and every class after it nests under the one before. A file whose tree has
errors is parsed again with each conditional's first branch kept and the others blanked
(same byte offsets, so chunks still slice the real text), and with the annotation macros
blanked too (`class LEVELDB_EXPORT Slice`, `void Insert() LOCKS_EXCLUDED(mu_);`, a
field's `GUARDED_BY(mu_)`): an upper-case name no grammar knows, where a C++ parser
expects the class's name or the end of a declarator. The tree with fewer errors wins.
"""

from __future__ import annotations

import re

MACRO_SIGNATURE = re.compile(r"^[ \t]*#[ \t]*define\b")
"""A function-like macro's signature (`#define buffer_at_offset(buffer)`): a definition of the
API, but no call target — the preprocessor expands it where it stands, and no precise indexer
(clangd) lists a use of it as a call."""
HEADER_SUFFIX = ".h"
C_SOURCES = (".c",)
CPP_SOURCES = (".cc", ".cpp", ".cxx", ".c++")

CPP_CONSTRUCTS = re.compile(
    r"^[ \t]*(?:"
    r"(?:class|struct)[ \t]+(?:[A-Z_][A-Z0-9_]*[ \t]+)?\w+[ \t]*(?:final[ \t]*)?(?::[ \t]*(?:public|private|protected)\b[^{;]*)?\{"
    r"|namespace\b[ \t]*\w*[ \t]*\{"
    r"|template[ \t]*<"
    r"|(?:public|private|protected)[ \t]*:"
    r"|#[ \t]*include[ \t]*<(?:string|vector|map|memory|cstdint|cstddef|cstdio|cstdlib|cstring|atomic|mutex|"
    r"algorithm|utility|functional|iostream|sstream|set|unordered_map|unordered_set|thread|condition_variable|"
    r"limits|type_traits|chrono|deque|list|array|tuple|optional)>"
    r"|using[ \t]+(?:namespace[ \t]+)?[\w:]+[ \t]*;"
    r")",
    re.MULTILINE,
)
"""Line starts C cannot parse (a C `struct tag {` has no base list and no `class`)."""
CLASS_IN_STRUCT = re.compile(r"^[ \t]*(?:virtual|explicit|~\w+[ \t]*\(|\w+::\w+)", re.MULTILINE)


def header_language(text: str) -> str | None:
    """`cpp` when a header's text shows C++; None when it could be either."""
    return "cpp" if CPP_CONSTRUCTS.search(text) or CLASS_IN_STRUCT.search(text) else None


def settle_headers(paths_and_languages: list[tuple[str, str]]) -> set[str]:
    """The `.h` paths still read as C that are C++ because every source beside them in
    the repository is C++ (no `.c` at all, at least one C++ source)."""
    suffixes = {path.rsplit(".", 1)[-1].lower() for path, _ in paths_and_languages if "." in path}
    has_c = any(s in suffixes for s in (x.lstrip(".") for x in C_SOURCES))
    has_cpp = any(s in suffixes for s in (x.lstrip(".") for x in CPP_SOURCES))
    if has_c or not has_cpp:
        return set()
    return {path for path, language in paths_and_languages if language == "c" and path.lower().endswith(HEADER_SUFFIX)}


CONDITIONAL = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b", re.MULTILINE)


def first_branches(text: str) -> str:
    """The text with preprocessor conditional lines blanked and, of each `#if` chain,
    every branch after the first blanked too (newlines kept, so offsets stay)."""
    out = list(text)
    depth = 0
    skipping_at: int | None = None  # the depth whose later branch is being blanked
    position = 0
    for match in CONDITIONAL.finditer(text):
        directive = match.group(1)
        line_end = text.find("\n", match.start())
        line_end = len(text) if line_end < 0 else line_end
        if skipping_at is not None:
            _blank(out, position, match.start())
        if directive.startswith("if"):
            depth += 1
        elif directive in ("elif", "else"):
            if skipping_at is None:
                skipping_at = depth
        else:  # endif
            if skipping_at == depth:
                skipping_at = None
            depth = max(depth - 1, 0)
        _blank(out, match.start(), _continued_end(text, line_end))
        position = _continued_end(text, line_end)
    if skipping_at is not None:
        _blank(out, position, len(text))
    return "".join(out)


ANNOTATION_MACROS = (
    # between `class`/`struct` and the name: an export or alignment macro
    re.compile(r"\b(?:class|struct)\s+([A-Z][A-Z0-9]*_[A-Z0-9_]+)(?=\s+[A-Za-z_]\w*\s*(?:final\b|[:{]))"),
    # after a declarator's parameters, a field's name or `const`: a thread-safety or attribute macro
    re.compile(r"(?<=[)\w])[ \t]+([A-Z][A-Z0-9]*_[A-Z0-9_]+(?:\([^()\n;{}]*\))?)(?=\s*(?:[;{=]|:(?!:)|const\b|override\b|[A-Z][A-Z0-9]*_))"),
)
"""Upper-case macros that annotate a declaration (exports, locks, attributes)."""


def without_annotation_macros(text: str) -> str:
    """The text with annotation macros blanked (offsets kept)."""
    out = list(text)
    for pattern in ANNOTATION_MACROS:
        for match in pattern.finditer(text):
            _blank(out, match.start(1), match.end(1))
    return "".join(out)


def _continued_end(text: str, line_end: int) -> int:
    """The end of a directive continued over lines with a backslash."""
    while line_end > 0 and line_end < len(text) and text[line_end - 1] == "\\":
        next_end = text.find("\n", line_end + 1)
        line_end = len(text) if next_end < 0 else next_end
    return line_end


def _blank(out: list[str], start: int, end: int) -> None:
    for index in range(start, end):
        if out[index] != "\n":
            out[index] = " "
