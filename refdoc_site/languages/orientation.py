"""What marks a repository's entry points, its main flow and its guide documents: the
tables the overview's analysis (`understanding/flows.py`, `understanding/orientation.py`)
reads. A new convention is a row here, not a branch in a phase.
"""

from __future__ import annotations

import re

MAIN_FUNCTION_NAMES = frozenset({"main"})
"""Top-level functions a program starts in (Python's `main()`, Go's `func main`, C's)."""

MAIN_GUARD = re.compile(r"^if\s+__name__\s*==\s*['\"]__main__['\"]\s*:", re.MULTILINE)
"""A Python module run as a script: the calls under it are where the program starts."""

HANDLER_SIGNATURES: dict[str, re.Pattern[str]] = {
    "wsgi": re.compile(r"\(\s*(?:self\s*,\s*)?environ\b[^,)]*,\s*start_response\b"),
    "asgi": re.compile(r"\(\s*(?:self\s*,\s*)?scope\b[^,)]*,\s*receive\b[^,)]*,\s*send\b"),
    "node": re.compile(r"\(\s*req(?:uest)?\b[^,)]*,\s*res(?:ponse)?\b"),
    "go-http": re.compile(r"\(\s*\w+\s+http\.ResponseWriter\s*,\s*\w+\s+\*http\.Request\s*\)"),
}
"""Parameter lists of a request handler, by the protocol that calls it (a WSGI app,
an ASGI app, a Node `(req, res)` handler, Go's `ServeHTTP`)."""

CALLABLE_OBJECT_METHODS = frozenset({"__call__"})
"""Methods that make an instance callable: a public class's is where its users' calls land."""

CONSTRUCTOR_NAMES = frozenset({"constructor", "__init__", "__new__"})
"""Methods that make an object: reached through the class, no entry point of their own."""

CONSTRUCTOR_FUNCTION_LANGUAGES = frozenset({"javascript", "typescript"})
FOLDER_PACKAGE_LANGUAGES = frozenset({"go"})
"""Languages whose package is its folder: a file names what its folder's other files define
without importing them (cobra's `args.go` and `command.go`)."""
"""Languages where a top-level function named in PascalCase is a constructor (express's
`function Layer(path, options, fn)`), so an abstraction as much as a class is."""

ERROR_PATH_WORDS = frozenset({"error", "errors", "exception", "exceptions", "fail", "failure", "abort", "panic", "raise"})
"""Name words of a callee on the error path: a flow follows what happens when all goes well."""

PREPARATION_WORDS = frozenset({"prepare", "make", "create", "new", "init", "setup"})
"""First name words of a callee that makes what the step then hands on (`prep =
self.prepare_request(req)`, `with self.make_context(...) as ctx`): the flow goes on with the
call that uses it (`self.send(prep)`, `self.invoke(ctx)`), not into the preparation. Not
`build`, `get` or `load`: `report = build(...)` and `response = self.get_response(request)`
are often the work itself."""

CONTEXT_BINDINGS: dict[str, tuple[re.Pattern[str], ...]] = {
    "python": (re.compile(r"\bwith\s+(?:await\s+)?(?P<call>[A-Za-z_][\w.]*)\s*\([^\n]{0,240}?\)\s*as\s+(?P<name>[A-Za-z_]\w*)\s*[:,)]"),),
}
"""A call's result kept for the block after it, beside the assignments every language's
receiver rules read (`languages/receivers.py`'s `call_bindings`): Python's `with f(...) as x:`."""

MAX_FLOW_STEPS = 6
MIN_FLOW_REACH = 2
"""A flow goes on to a callee that shares a word with the step's name, that is the step's
only callee, or that reaches at least this many more of the project's definitions."""
MAX_STEP_CALLERS = 8
"""A callee called from more places than this is a helper (an `echo`, a `get_logger`), not a step."""

GUIDE_NAMES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("readme", re.compile(r"^readme$", re.IGNORECASE)),
    ("quickstart", re.compile(r"^(?:quick[-_ ]?start|getting[-_ ]?started|get[-_ ]?started|start(?:ing)?[-_ ]?here)$", re.IGNORECASE)),
    ("installation", re.compile(r"^(?:install(?:ation|ing)?|setup)$", re.IGNORECASE)),
    ("tutorial", re.compile(r"^(?:tutorials?|walkthrough|user[-_ ]?guide|guide)$", re.IGNORECASE)),
    ("overview", re.compile(r"^(?:overview|introduction|intro|concepts?|foreword|why)$", re.IGNORECASE)),
    ("architecture", re.compile(r"^(?:architecture|design|internals|lifecycle|life[-_ ]?cycle|how[-_ ]?it[-_ ]?works)$", re.IGNORECASE)),
    ("contributing", re.compile(r"^(?:contributing|contribute|hacking|development)$", re.IGNORECASE)),
)
"""A guide's kind by its file's stem (or, for an `index` page, its folder's name), in the
order a newcomer reads them: the README, how to start, the concepts and the design, and
how to contribute last."""

DESIGN_DOC_KINDS = frozenset({"architecture"})
"""Guide kinds whose text says what the system is: quoted under "What it is"."""

INDEX_STEMS = frozenset({"index", "_index", "readme"})
"""Stems of a folder's front page: the folder's name says what it is about."""

DOCUMENT_LANGUAGES = frozenset({"markdown", "restructuredtext", "text", "asciidoc"})
"""Prose, not code: never "mostly" what a system is written in."""
NON_CODE_LANGUAGES = DOCUMENT_LANGUAGES | {"config"}

BADGE_OR_MARKUP = re.compile(
    r"^\s*(?:\[!\[|!\[|<|\.\. |:\w+:|#|={3,}|-{3,}|~{3,}|\*{3,}|\||>\s*\[!|\[\w[^\]]*\]:\s)"
)
"""A README line that is no prose: a badge, an image, HTML, an RST directive or field, a
heading or its underline, a table row, an admonition marker, a link definition."""
