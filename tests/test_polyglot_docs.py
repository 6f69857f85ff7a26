"""Doc comments read by each language's convention: rustdoc, GoDoc, Javadoc, C# XML
documentation and Doxygen become the plain form the summary and the page read
(`languages/doc_comments.py`), with no raw markup and no attribute taken for prose."""

from __future__ import annotations

import hashlib

from helpers import dedent

from refdoc_site.core.config import ChunkSettings
from refdoc_site.core.records import Chunk, Metadata, SourceFile
from refdoc_site.indexing.chunk import chunk_file
from refdoc_site.indexing.summarize import ExtractiveSummarizer
from refdoc_site.writing.docstrings import parse_docstring


def chunks_of(path: str, language: str, text: str) -> dict[str, Chunk]:
    text = dedent(text)
    data = text.encode("utf-8")
    file = SourceFile(path, language, len(data), hashlib.sha256(data).hexdigest())
    found: dict[str, Chunk] = {}
    for chunk in chunk_file(file, text, ChunkSettings()):
        found.setdefault(chunk.symbol, chunk)
    return found


def summary(chunk: Chunk) -> str:
    return ExtractiveSummarizer().summarize(chunk, Metadata()).responsibility


RUST = '''
    pub struct Error;

    impl Error {
        /// The lowest level cause of this error &mdash; this error's cause's
        /// cause's cause etc.
        ///
        /// The root cause is the last error in the iterator produced by
        /// [`chain()`][Error::chain].
        ///
        /// # Example
        ///
        /// ```
        /// # use anyhow::Error;
        /// # fn demo(error: Error) {
        /// let cause = error.root_cause();
        /// # }
        /// ```
        #[cfg(feature = "std")]
        pub fn root_cause(&self) -> &Error {
            self
        }
    }
'''


def test_rustdoc_lines_are_one_paragraph_and_hidden_doctest_lines_are_dropped():
    chunk = chunks_of("src/error.rs", "rust", RUST)["Error.root_cause"]
    assert summary(chunk) == "The lowest level cause of this error — this error's cause's cause's cause etc."
    assert "\n\n\n" not in chunk.docstring
    assert "# use anyhow" not in chunk.docstring and "# fn demo" not in chunk.docstring
    assert "cfg" not in chunk.docstring
    blocks = parse_docstring(chunk.docstring).blocks
    kinds = [block.kind for block in blocks]
    assert kinds == ["paragraph", "paragraph", "title", "code"], kinds
    assert blocks[3].code == "let cause = error.root_cause();"
    assert "[Error::chain]" not in chunk.docstring and "`chain()`" in chunk.docstring


def test_a_rust_attribute_is_not_a_summary():
    text = '''
        #[cfg(feature = "std")]
        use std::error::Error as StdError;

        #[cfg(feature = "std")]
        pub(crate) fn display(value: &str) -> usize {
            value.len()
        }
    '''
    chunks = chunks_of("src/fmt.rs", "rust", text)
    assert "cfg" not in chunks["display"].docstring
    assert "cfg" not in summary(chunks["display"])
    assert "cfg" not in chunks["(module)"].docstring


JAVA = '''
    package com.example;

    final class CodeWriter {
      /**
       * Returns the best name to identify {@code className} with in the current context. This
       * uses the available imports; see {@link JavaFile#writeTo the writer} and {@link TypeName}.
       *
       * <p>Example: <pre>{@code
       *   Map<String, List<Integer>> names = lookup();
       * }</pre>
       *
       * @param className the class to name, a {@code List<String>} or other
       * @return the shortest name
       */
      String lookupName(ClassName className) {
        return className.simpleName();
      }
    }
'''


def test_javadoc_inline_tags_and_html_become_code_and_prose():
    chunk = chunks_of("src/CodeWriter.java", "java", JAVA)["CodeWriter.lookupName"]
    assert "{@" not in chunk.docstring and "<p>" not in chunk.docstring and "<pre>" not in chunk.docstring
    assert summary(chunk).startswith("Returns the best name to identify className with in the current context.")
    assert "`className`" in chunk.docstring and "the writer" in chunk.docstring and "`TypeName`" in chunk.docstring
    assert "`List<String>`" in chunk.docstring  # generics inside code are not read as HTML tags
    code = [block for block in parse_docstring(chunk.docstring).blocks if block.kind == "code"]
    assert code and code[0].code.strip() == "Map<String, List<Integer>> names = lookup();"


CSHARP = '''
    namespace MediatR;

    /// <summary>
    /// Default mediator implementation relying on single- and multi instance delegates
    /// for resolving handlers; see <see cref="T:MediatR.IMediator"/>.
    /// </summary>
    public class Mediator
    {
        /// <summary>
        /// Initializes a new instance of the <see cref="Mediator"/> class.
        /// </summary>
        /// <param name="serviceProvider">Service provider. Can be a scoped or root provider</param>
        /// <returns>The mediator, when <paramref name="serviceProvider"/> is not <c>null</c></returns>
        /// <exception cref="ArgumentNullException">No provider</exception>
        public Mediator(IServiceProvider serviceProvider) { }
    }
'''


def test_csharp_xml_documentation_has_no_raw_tags():
    chunks = chunks_of("src/Mediator.cs", "csharp", CSHARP)
    mediator = chunks["Mediator"]
    assert "<" not in mediator.docstring
    assert summary(mediator) == (
        "Default mediator implementation relying on single- and multi instance delegates "
        "for resolving handlers; see MediatR.IMediator."
    )
    constructor = chunks["Mediator.Mediator"]
    assert "<" not in constructor.docstring.replace("<", "", 0) or "<summary>" not in constructor.docstring
    assert "<summary>" not in constructor.docstring and "<param" not in constructor.docstring
    assert summary(constructor) == "Initializes a new instance of the Mediator class."
    tables = {block.key: block for block in parse_docstring(constructor.docstring).blocks if block.kind == "table"}
    assert [row.name for row in tables["parameters"].rows] == ["serviceProvider"]
    assert tables["returns"].rows and tables["raises"].rows[0].type == "ArgumentNullException"


def test_godoc_code_blocks_and_links():
    text = '''
        package cobra

        // ExactArgs returns an error if there are not exactly n args; see [Command.Args].
        //
        // Use it as:
        //
        //	cmd.Args = cobra.ExactArgs(2)
        //	cmd.Execute()
        func ExactArgs(n int) PositionalArgs {
        	return nil
        }
    '''
    chunk = chunks_of("args.go", "go", text)["ExactArgs"]
    assert summary(chunk) == "ExactArgs returns an error if there are not exactly n args; see Command.Args."
    code = [block for block in parse_docstring(chunk.docstring).blocks if block.kind == "code"]
    assert code and code[0].code == "cmd.Args = cobra.ExactArgs(2)\ncmd.Execute()"


def test_doxygen_commands_become_fields():
    text = '''
        /**
         * \\brief Parse a JSON text.
         * @param[in] value the text
         * \\return the item, or NULL
         */
        int parse(const char *value) { return 0; }
    '''
    chunk = chunks_of("cJSON.c", "c", text)["parse"]
    assert summary(chunk) == "Parse a JSON text."
    assert "\\brief" not in chunk.docstring and "[in]" not in chunk.docstring
    tables = {block.key: block for block in parse_docstring(chunk.docstring).blocks if block.kind == "table"}
    assert [row.name for row in tables["parameters"].rows] == ["value"] and tables["returns"].rows


def test_go_build_tags_are_not_a_file_comment():
    text = '''
        //go:build !windows
        // +build !windows

        package cobra

        var preExecHookFn func(*Command)
    '''
    module = chunks_of("command_notwin.go", "go", text)["(module)"]
    assert module.docstring == ""
    documented = chunks_of("doc.go", "go", "//go:build ignore\n\n// Package cobra is a commander.\npackage cobra\n\nvar x = 1\n")
    assert documented["(module)"].docstring == "Package cobra is a commander."


def test_badges_are_not_a_crate_summary():
    text = '''
        //! [![github]](https://github.com/dtolnay/anyhow)&ensp;[![crates-io]](https://crates.io/crates/anyhow)
        //!
        //! [github]: https://img.shields.io/badge/github-8da0cb
        //!
        //! <br>
        //!
        //! This library provides [`anyhow::Error`][Error], a trait object based error
        //! type for easy idiomatic error handling in Rust applications.

        pub struct Error;
    '''
    module = chunks_of("src/lib.rs", "rust", text)["(module)"]
    assert "<br>" not in module.docstring and "\n\n\n" not in module.docstring
    assert summary(module) == (
        "This library provides anyhow::Error, a trait object based error type for easy idiomatic error handling "
        "in Rust applications."
    )
