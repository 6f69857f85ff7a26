"""Any text at all, in every language the chunker knows, chunks, analyses and summarises
without an error, and the chunks keep their promises: unique ids, in source order, line
ranges inside the file, content taken from those lines, token counts that match.

Texts are arbitrary Unicode or strings of language-ish fragments (keywords, brackets,
quotes, comment markers, CRLF, lone CR, form feeds, NULs, non-ASCII), kept short so a
few thousand cases run in seconds."""

from __future__ import annotations

import pytest
from helpers import source_file
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from refdoc_site.core.config import ChunkSettings
from refdoc_site.core.records import ChunkKind
from refdoc_site.core.tokens import count_tokens
from refdoc_site.indexing.analyze import SyntaxAnalyzer
from refdoc_site.indexing.chunk import chunk_file
from refdoc_site.indexing.summarize import ExtractiveSummarizer

SHARED_FRAGMENTS = (
    "\n", "\n", "\n", "\r\n", "\r", "\x0c", "\u2028", "\0", "\t", "    ", " ", "{", "}", "(", ")",
    "[", "]", "<", ">", ";", ":", ",", ".", "=", "'", '"', "`", "\\", "/*", "*/", "/**", "//",
    "#", "@", "$", "é", "日本語", "🙂", "x", "value", "1", "0x1f",
)
KEYWORDS = {
    "python": ("def ", "class ", "async def ", "return ", "import ", "from ", "lambda ", "self.", '"""', "'''", "    pass\n", "@decorator\n"),
    "javascript": ("function ", "class ", "export ", "const ", "=> ", "async ", "await ", "import ", "require(", "this.", "extends "),
    "typescript": ("function ", "class ", "interface ", "type ", "export ", "const ", ": string", "=> ", "implements ", "<T>", "namespace "),
    "tsx": ("function ", "const ", "export default ", "<div>", "</div>", "{props.", "=> ", "class ", "return ("),
    "go": ("func ", "type ", " struct ", "package main\n", "import ", "(r *Recv) ", "return ", "interface ", ":= ", "go "),
    "rust": ("fn ", "impl ", "struct ", "trait ", "pub ", "mod ", "use ", "#[derive(Debug)]\n", "///", "-> ", "::", "&self", "'a"),
    "java": ("class ", "public ", "static ", "void ", "interface ", "extends ", "@Override\n", "throws ", "new ", "package ", "import "),
    "csharp": ("class ", "public ", "static ", "void ", "namespace ", "using ", "async Task ", "=> ", "get; set; ", "[Attr]\n", "///"),
    "c": ("int ", "void ", "struct ", "#include <x.h>\n", "#define ", "static ", "return ", "typedef ", "*", "->"),
    "cpp": ("int ", "void ", "class ", "namespace ", "template <typename T> ", "::", "~", "public:\n", "virtual ", "#include <x>\n"),
    "markdown": ("# ", "## ", "###### ", "```", "~~~", "- ", "> ", "1. ", "**", "[link](x)", "<!-- ", " -->"),
    "text": ("Title\n", "=====\n", "# ", ". ", "! ", "? ", "    code\n", "- "),
}
"""Per language the chunker handles (all with a grammar, plus Markdown and plain text windows)."""
FILE_NAMES = {
    "python": "pkg/mod.py", "javascript": "web/app.js", "typescript": "web/app.ts", "tsx": "web/view.tsx",
    "go": "cmd/main.go", "rust": "src/lib.rs", "java": "src/Main.java", "csharp": "src/Program.cs",
    "c": "src/main.c", "cpp": "src/main.cpp", "markdown": "docs/guide.md", "text": "notes.txt",
}
IDENTIFIERS = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,5}", fullmatch=True)
SETTINGS = st.sampled_from([ChunkSettings(), ChunkSettings(size=16, overlap=4), ChunkSettings(size=40, overlap=0)])
"""The default windows, and small ones so that oversized definitions are split too."""


def texts(language: str) -> st.SearchStrategy[str]:
    fragments = st.sampled_from(SHARED_FRAGMENTS + KEYWORDS[language])
    return st.one_of(
        st.text(max_size=200),
        st.lists(st.one_of(fragments, fragments, IDENTIFIERS), max_size=120).map("".join),
    )


def file_lines(text: str) -> list[str]:
    """Lines as tree-sitter and editors number them: broken at "\\n" only, a CRLF's "\\r" dropped."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    return lines[:-1] if lines[-1] == "" else lines


def check_chunks(language: str, text: str, chunk_settings: ChunkSettings) -> None:
    source = source_file(FILE_NAMES[language], language, text)
    chunks = chunk_file(source, text, chunk_settings)
    lines = file_lines(text)

    ids = [chunk.id for chunk in chunks]
    assert len(ids) == len(set(ids)), ids
    starts = [chunk.start_line for chunk in chunks]
    assert starts == sorted(starts)
    for chunk in chunks:
        assert (chunk.path, chunk.language) == (source.path, language)
        assert chunk.id.startswith(f"{source.path}#{chunk.symbol}")
        assert 1 <= chunk.start_line <= chunk.end_line <= len(lines), (chunk.start_line, chunk.end_line, len(lines))
        span = lines[chunk.start_line - 1 : chunk.end_line]
        if chunk.kind in (ChunkKind.MODULE, ChunkKind.CLASS):
            # the module's rows not covered by a definition; a class with its members elided
            elided = {line for line in chunk.content.split("\n") if line.strip() == "..."}
            assert set(chunk.content.split("\n")) <= set(span) | elided, chunk
        else:
            assert chunk.content == "\n".join(span), chunk
        assert chunk.tokens == count_tokens(chunk.content)

    analysis = SyntaxAnalyzer().analyze(source, text, chunks)
    assert set(analysis.metadata) == set(ids)
    summarizer = ExtractiveSummarizer()
    for chunk in chunks:
        metadata = analysis.metadata[chunk.id]
        assert all(isinstance(callee, str) and callee for callee in metadata.calls), metadata.calls
        assert metadata.exports in ([], [chunk.symbol])
        summary = summarizer.summarize(chunk, metadata)
        for field in (summary.responsibility, summary.inputOutput, summary.sideEffects, summary.mainDependencies, summary.notes):
            assert field == field.strip() and "\n" not in field, summary  # empty when nothing true is said


@pytest.mark.parametrize("language", sorted(KEYWORDS))
def test_any_text_chunks_and_analyses_and_keeps_the_chunk_promises(language):
    @settings(max_examples=160, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(text=texts(language), chunk_settings=SETTINGS)
    def check(text: str, chunk_settings: ChunkSettings) -> None:
        check_chunks(language, text, chunk_settings)

    check()


def test_token_count_skips_blanks_and_counts_every_token_as_the_token_pattern_does() -> None:
    """Issue 21: the count matches blanks and a token at once and builds no string; it
    must still count exactly the tokens of `TOKEN_RE`, Unicode words and blanks included."""
    from refdoc_site.core.tokens import TOKEN_RE, count_tokens

    texts = ["", "   ", "a", "  def f(x):\n\treturn x  # note\n", "x\x1c\x1fy", "日本語 の テキスト。", "é\u00a0ß!!", "\n\n)\n"]
    for text in texts:
        assert count_tokens(text) == len(TOKEN_RE.findall(text)), repr(text)
