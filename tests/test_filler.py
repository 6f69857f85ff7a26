"""Summaries say something or nothing: never a sentence that only restates a name.

The filler test is the benchmark's own (`benchmarks/filler.py: is_filler`), so what these
tests forbid is what the benchmark counts.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import write_repo
from test_summarize import FIELDS, assert_prose, summaries

from refdoc_site.core.config import Config
from refdoc_site.pipeline import Workspace, index, summarize
from refdoc_site.understanding.evidence.manifests import Declaration, declared_package

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from filler import field_is_filler, words_of  # noqa: E402


def assert_no_filler(found: dict) -> None:
    """No field restates its chunk's name; a dependency that shares the name's words
    (`createApplication` uses `Application`) is another definition, so that field is left out."""
    for symbol, summary in found.items():
        assert_prose(summary)
        own = set(words_of(symbol))
        for name in FIELDS:
            if name == "mainDependencies":
                continue
            text = getattr(summary, name)
            assert not (text and field_is_filler(text, own)), f"{symbol}.{name} is filler: {text!r}"


def test_a_docstring_gives_its_first_sentence_without_rest_markup() -> None:
    found = summaries(
        "ctx.py",
        "python",
        '''
        def current(silent=False):
            """Return the current :class:`~click.Context`, as :func:`click.echo` does. More.

            :param silent: return ``None`` instead of raising.
            :returns: the context
            """
            return _stack[-1]
        ''',
    )
    summary = found["current"]
    assert summary.responsibility == "Return the current Context, as click.echo does. More."
    assert summary.inputOutput == "Takes silent (return None instead of raising); returns the context."
    assert_no_filler(found)


def test_python_class_and_constructor_without_docstrings_never_restate_their_names() -> None:
    found = summaries(
        "parser.py",
        "python",
        """
        class ParsingState:
            def __init__(self, rargs):
                self.opts = {}
                self.rargs = rargs


        class Runner(BaseRunner):
            def __init__(self, charset="utf-8"):
                self.charset = charset

            def invoke(self, cli):
                return cli.main(self.charset)
        """,
    )
    assert found["ParsingState"].responsibility == ""
    assert found["ParsingState.__init__"].responsibility == ""
    assert found["Runner"].responsibility == "Extends BaseRunner. Offers invoke."
    for summary in found.values():
        assert not summary.responsibility.startswith(("Type ", "Constructor of", "Handles"))
    assert_no_filler(found)


def test_javascript_and_typescript_say_what_the_code_does() -> None:
    js = summaries(
        "app.js",
        "javascript",
        """
        /**
         * Create an express application.
         * @param {Object} options - settings to start with
         * @return {Function}
         * @public
         */
        function createApplication(options) {
          return new Application(options);
        }

        function handleError(err) {
          throw new TypeError("bad handler");
        }

        function getName() {
          return this.name;
        }

        function getLabel() {
          return this.title;
        }
        """,
    )
    assert js["createApplication"].responsibility == "Create an express application."
    assert js["createApplication"].inputOutput == "Takes options (settings to start with)."
    assert js["handleError"].responsibility == "Throws TypeError."
    assert js["getName"].responsibility == "", "a getter returning its own name's field says nothing"
    assert js["getLabel"].responsibility == "Returns this.title."
    assert_no_filler(js)
    ts = summaries(
        "store.ts",
        "typescript",
        """
        export class Store {
          constructor(private readonly path: string) {}

          isEmpty(): boolean {
            return this.items.length === 0;
          }

          freeze(): Snapshot {
            return new Snapshot(this.path);
          }
        }
        """,
    )
    assert ts["Store.isEmpty"].responsibility == "Returns whether this.items.length === 0."
    assert ts["Store.freeze"].responsibility == "Returns a new Snapshot."
    assert ts["Store.constructor"].responsibility == ""
    assert_no_filler(ts)


def test_go_says_what_it_returns_or_nothing() -> None:
    found = summaries(
        "server.go",
        "go",
        """
        package server

        // NewServer creates a server listening on addr.
        func NewServer(addr string) *Server {
        	return &Server{addr: addr}
        }

        func (s *Server) Addr() string {
        	return s.addr
        }

        func (s *Server) Reset() {
        	s.addr = ""
        }
        """,
    )
    assert found["NewServer"].responsibility.startswith("NewServer creates a server listening on addr")
    assert found["Server.Addr"].responsibility == ""
    assert found["Server.Reset"].responsibility == ""
    assert_no_filler(found)


@pytest.mark.parametrize(
    ("path", "text", "expected"),
    [
        ("pyproject.toml", '[project]\nname = "shop-kit"\ndescription = "Sell things  online."\n', Declaration("shop-kit", "Sell things online.")),
        ("setup.cfg", "[metadata]\nname = shop\ndescription = Sell things online.\n", Declaration("shop", "Sell things online.")),
        ("package.json", '{"name": "shop", "description": "Sell things online."}', Declaration("shop", "Sell things online.")),
        ("Cargo.toml", '[package]\nname = "shop"\ndescription = "Sell things online."\n', Declaration("shop", "Sell things online.")),
        ("shop-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: shop\nSummary: Sell things online.\n\nLong text.\n", Declaration("shop", "Sell things online.")),
        ("go.mod", "module example.com/shop\n\ngo 1.22\n", Declaration("shop", "")),
        ("go.mod", "module example.com/shop/v2\n", Declaration("shop", "")),
        ("pyproject.toml", "not = [toml", Declaration()),
    ],
)
def test_each_manifest_declares_its_package(path: str, text: str, expected: Declaration) -> None:
    assert declared_package({path: text}) == expected


def test_the_shallowest_description_wins() -> None:
    texts = {"tools/package.json": '{"name": "tools", "description": "Build helpers."}', "pyproject.toml": '[project]\nname = "shop"\n'}
    assert declared_package(texts) == Declaration("tools", "Build helpers.")
    texts["package.json"] = '{"name": "shop", "description": "Sell things online."}'
    assert declared_package(texts) == Declaration("shop", "Sell things online.")


def test_file_module_and_system_summaries_use_the_declared_description(tmp_path: Path) -> None:
    repo = write_repo(
        tmp_path / "repo",
        {
            "package.json": '{"name": "shop", "description": "Sell things online, with carts and invoices."}',
            "shop/cart.js": """
                /** Add an item to the cart and return the new total. */
                function addItem(cart, item) {
                  cart.items.push(item);
                  return cart.total + item.price;
                }

                function removeItem(cart, item) {
                  return cart.items.filter((other) => other !== item);
                }
                """,
            "shop/invoice.js": """
                function sendfile(res) {
                  return res.send();
                }

                function stringify(value) {
                  return JSON.stringify(value);
                }
                """,
        },
    )
    workspace = Workspace.create(repo, Config(site_name="Shop"), tmp_path / "store", tmp_path / "site")
    index(workspace)
    hierarchy = summarize(workspace)
    assert hierarchy.system.text.startswith("Sell things online, with carts and invoices.")
    assert hierarchy.modules["shop"].text.endswith("Sell things online, with carts and invoices.")
    cart = hierarchy.files["shop/cart.js"].role
    assert cart.startswith("Defines addItem and removeItem: Add an item to the cart")
    invoice = hierarchy.files["shop/invoice.js"].role
    assert "about" not in invoice and "2 functions" not in invoice
    assert invoice.startswith("Defines sendfile and stringify")


def test_a_file_role_names_its_api_before_its_helpers(tmp_path: Path) -> None:
    """express's response.js: the res.* members it exports, not its two local helpers."""
    repo = write_repo(
        tmp_path / "repo",
        {
            "lib/response.js": """
                var res = Object.create(null);
                module.exports = res;

                /** Send a response body. */
                res.send = function send(body) {
                  this.end(stringify(body));
                  return this;
                };

                res.json = function json(obj) {
                  return this.send(stringify(obj));
                };

                function sendfile(res, file) {
                  return res.pipe(file);
                }

                function stringify(value) {
                  return JSON.stringify(value);
                }
                """,
        },
    )
    workspace = Workspace.create(repo, Config(site_name="Web"), tmp_path / "store", tmp_path / "site")
    index(workspace)
    role = summarize(workspace).files["lib/response.js"].role
    assert role.startswith("Defines res.send and res.json: Send a response body."), role
    assert "sendfile" not in role and "stringify" not in role
