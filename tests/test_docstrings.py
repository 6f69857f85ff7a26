"""The docstring parser: each convention on a small inline docstring."""

from __future__ import annotations

from helpers import dedent

from refdoc_site.writing.docstrings import (
    Code,
    CodeBlock,
    Directive,
    Docstring,
    FieldRow,
    FieldTable,
    Paragraph,
    Title,
    parse_docstring,
)


def parse(text: str) -> Docstring:
    return parse_docstring(dedent(text))


def tables(text: str) -> dict[str, list[FieldRow]]:
    return {block.key: block.rows for block in parse(text).blocks if isinstance(block, FieldTable)}


def row(name: str = "", type: str = "", description: str = "") -> FieldRow:
    return FieldRow(name, type, [description] if description else [])


def test_google_sections_become_tables() -> None:
    found = tables(
        """
        Connect to the server.

        Args:
            host (str): Where to connect.
                Names or addresses.
            retries: How often to try.

        Returns:
            bool: True when connected,
            False otherwise.

        Raises:
            TimeoutError: If nobody answers.
            ValueError: If the host is empty.
        """
    )
    assert found == {
        "parameters": [row("host", "str", "Where to connect. Names or addresses."), row("retries", "", "How often to try.")],
        "returns": [row("", "bool", "True when connected, False otherwise.")],
        "raises": [row("", "TimeoutError", "If nobody answers."), row("", "ValueError", "If the host is empty.")],
    }


def test_numpy_sections_become_tables() -> None:
    found = tables(
        """
        Add two numbers.

        Parameters
        ----------
        a : int
            The first.
        b
            The second.

        Returns
        -------
        int
            Their sum.

        Yields
        ------
        step : str
            Progress.
        """
    )
    assert found == {
        "parameters": [row("a", "int", "The first."), row("b", "", "The second.")],
        "returns": [row("", "int", "Their sum.")],
        "yields": [row("step", "str", "Progress.")],
    }


def test_sphinx_fields_become_tables_with_their_types() -> None:
    found = tables(
        """
        Open a file.

        :param str path: What to open.
        :param mode: How,
            read or write.
        :type mode: str
        :returns: The handle.
        :rtype: IO
        :raises OSError: When it cannot.
        """
    )
    assert found == {
        "parameters": [row("path", "str", "What to open."), row("mode", "str", "How, read or write.")],
        "returns": [row("", "IO", "The handle.")],
        "raises": [row("", "OSError", "When it cannot.")],
    }


def test_jsdoc_tags_become_tables_and_examples() -> None:
    text = """
        Send a request, see {@link Client}.
        @param {string} url - Where to send it.
        @param {Object} [options={}] Extra settings.
        @returns {Promise<Response>} The answer.
        @throws {TypeError} When the url is bad.
        @example
        send('/a').then(show);
        """
    parsed = parse(text)
    assert parsed.blocks[0] == Paragraph(["Send a request, see ", Code("Client", "Client"), "."])
    assert tables(text) == {
        "parameters": [row("url", "string", "Where to send it."), row("options", "Object", "Extra settings.")],
        "returns": [row("", "Promise<Response>", "The answer.")],
        "raises": [row("", "TypeError", "When the url is bad.")],
    }
    assert parsed.blocks[-2:] == [Title("examples"), CodeBlock("send('/a').then(show);")]


def test_jsdoc_access_tags_are_not_shown() -> None:
    """`@public` and `@api private` say what the page's API lists already say."""
    parsed = parse("Send a response.\n\n@param {string} body\n@public\n@api private\n")
    assert [block for block in parsed.blocks if isinstance(block, Paragraph)] == [Paragraph(["Send a response."])]
    assert tables("Send a response.\n@param {string} body\n@public\n") == {"parameters": [row("body", "string", "")]}


def test_rest_roles_and_backticks_become_code_names() -> None:
    [paragraph] = parse_docstring(
        "Wraps :class:`~click.core.Context`, :func:`run`, :py:meth:`the call <Runner.call>`, "
        ":meth:`!plain`, ``literal``, `single` and `linked`_."
    ).blocks
    assert paragraph.inlines == [
        "Wraps ",
        Code("Context", "click.core.Context"),
        ", ",
        Code("run", "run"),
        ", ",
        Code("the call", "Runner.call"),
        ", ",
        Code("plain"),
        ", ",
        Code("literal", "literal"),
        ", ",
        Code("single", "single"),
        " and ",
        Code("linked", "linked"),
        ".",
    ]


def test_examples_become_code_blocks() -> None:
    parsed = parse(
        """
        Double a number.

        >>> double(2)
        4

        Use it like this::

            total = double(price)

        Example:
            >>> double(0)
            0

        .. versionchanged:: 2.0
            Accepts floats.
        """
    )
    assert parsed.blocks == [
        Paragraph(["Double a number."]),
        CodeBlock(">>> double(2)\n4", "pycon"),
        Paragraph(["Use it like this:"]),
        CodeBlock("total = double(price)"),
        Title("examples"),
        CodeBlock(">>> double(0)\n0", "pycon"),
        Directive("versionchanged", "2.0", [Paragraph(["Accepts floats."])]),
    ]


def test_an_admonition_keeps_its_title_prose_and_literal_block() -> None:
    parsed = parse(
        """
        The application object.

        .. admonition:: About the First Parameter

            The idea of the first parameter is to give Flask an idea of
            what belongs to your application.

            Create it with one of the two versions below::

                app = Flask('yourapplication')
                app = Flask(__name__.split('.')[0])

        .. note:: Read :ref:`the callbacks <callbacks-and-errors>` and
            :doc:`/patterns/packages`.
        """
    )
    assert parsed.blocks == [
        Paragraph(["The application object."]),
        Directive(
            "admonition",
            "About the First Parameter",
            [
                Paragraph(["The idea of the first parameter is to give Flask an idea of what belongs to your application."]),
                Paragraph(["Create it with one of the two versions below:"]),
                CodeBlock("app = Flask('yourapplication')\napp = Flask(__name__.split('.')[0])"),
            ],
        ),
        Directive("note", "", [Paragraph(["Read ", "the callbacks", " and ", "/patterns/packages", "."])]),
    ]


def test_a_rustdoc_examples_heading_is_a_section_title() -> None:
    parsed = parse(
        """
        Adds one.

        # Examples

        ```
        assert_eq!(add_one(1), 2);
        ```
        """
    )
    assert parsed.blocks == [Paragraph(["Adds one."]), Title("examples"), CodeBlock("assert_eq!(add_one(1), 2);")]


def test_markup_is_kept_as_written_for_the_page_to_escape() -> None:
    [paragraph, table] = parse_docstring("<script>x</script> :class:`<img src=x>`\n\n:param a: <b>").blocks
    assert paragraph.inlines == ["<script>x</script> ", Code("<img src=x>", "<img src=x>")]
    assert table.rows == [row("a", "", "<b>")]


def test_an_examples_section_without_prompts_is_code() -> None:
    parsed = parse(
        """
        Check the content type.

        Examples:

            // With Content-Type: text/html
            req.is('html');
        """
    )
    assert parsed.blocks[1:] == [Title("examples"), CodeBlock("// With Content-Type: text/html\nreq.is('html');")]
