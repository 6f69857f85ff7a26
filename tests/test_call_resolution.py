"""Receiver-aware call resolution without a language server (understanding/calls.py)."""

from __future__ import annotations

from test_graph import graph_of

from refdoc_site.languages.receivers import receiver_rules
from refdoc_site.understanding.graph import RepoGraph

MODELS = """
    class Base:
        def prepare(self):
            return 1


    class URL(Base):
        def join(self, other):
            return other

        def copy_with(self):
            self.prepare()
            return self.join("x")


    class Headers:
        def items(self):
            return []


    class ProgressBar:
        def update(self, n):
            return n
    """


def test_builtin_methods_on_unknown_receivers_stay_unlinked():
    graph = graph_of(
        {
            "pkg/__init__.py": "",
            "pkg/models.py": MODELS,
            "pkg/use.py": """
                def render(items, d, s):
                    text = ", ".join(items)
                    for key, value in d.items():
                        s.update(key)
                    return text
                """,
        }
    )
    assert graph.calls["pkg/use.py#render"] == []
    assert "pkg/use.py#render" not in graph.callers.get("pkg/models.py#URL.join", [])


def test_self_links_to_the_enclosing_class_and_its_bases():
    graph = graph_of({"pkg/models.py": MODELS})
    assert graph.calls["pkg/models.py#URL.copy_with"] == ["pkg/models.py#Base.prepare", "pkg/models.py#URL.join"]


def test_bare_names_link_to_the_same_file_first_then_to_imports():
    graph = graph_of(
        {
            "pkg/__init__.py": "from .helpers import shout\n",
            "pkg/helpers.py": "def shout(text):\n    return text\n\n\ndef clean(text):\n    return text\n",
            "pkg/other.py": "def clean(text):\n    return text.strip()\n",
            "pkg/main.py": """
                from . import shout
                from .helpers import clean as tidy
                from . import helpers


                def clean(text):
                    return text


                def run(text):
                    helpers.clean(text)
                    return shout(clean(text))
                """,
        }
    )
    # `shout` through the package's re-export; `clean` is this file's own
    assert graph.calls["pkg/main.py#run"] == ["pkg/helpers.py#clean", "pkg/helpers.py#shout", "pkg/main.py#clean"]


def test_a_local_bound_to_a_class_links_to_its_method():
    graph = graph_of(
        {
            "pkg/__init__.py": "",
            "pkg/models.py": MODELS,
            "pkg/client.py": "class Client:\n    def update(self):\n        return 1\n",
            "pkg/main.py": """
                from .models import ProgressBar
                from .client import Client


                def run(client: Client):
                    bar = ProgressBar()
                    bar.update(1)
                    client.update()
                """,
        }
    )
    assert graph.calls["pkg/main.py#run"] == ["pkg/models.py#ProgressBar", "pkg/models.py#ProgressBar.update", "pkg/client.py#Client.update"]


def test_an_unknown_receiver_links_only_to_a_unique_definition():
    graph = graph_of(
        {
            "a.py": "class A:\n    def flush_queue(self):\n        return 1\n\n    def send(self):\n        return 2\n",
            "b.py": "class B:\n    def send(self):\n        return 3\n",
            "main.py": "def run(x):\n    x.flush_queue()\n    x.send()\n",
        }
    )
    assert graph.calls["main.py#run"] == ["a.py#A.flush_queue"]


def test_javascript_this_links_and_builtins_do_not():
    graph = graph_of(
        {
            "lib/app.js": """
                class App {
                  render(view) {
                    return this.stringify(view);
                  }

                  stringify(value) {
                    return JSON.stringify(value);
                  }
                }
                """,
        }
    )
    assert graph.calls["lib/app.js#App.render"] == ["lib/app.js#App.stringify"]
    assert graph.calls["lib/app.js#App.stringify"] == []


def test_builtin_method_names_are_data_per_language():
    assert {"join", "items", "update", "close"} <= receiver_rules("python").builtin_methods
    assert {"stringify", "push", "then"} <= receiver_rules("javascript").builtin_methods
    assert {"Error", "String", "WriteString"} <= receiver_rules("go").builtin_methods
    assert {"Ok", "len", "as_ptr"} <= receiver_rules("rust").builtin_methods


# --- receivers typed by return annotations, attributes, assignment and method receivers ---

SENDERS = """
    class Transport:
        def send(self):
            return 1


    class Mailer:
        def send(self):
            return 2


    class Pool:
        def send(self):
            return 3
    """


def graph_with_senders(path: str, source: str) -> RepoGraph:
    """The graph of a package holding SENDERS' three `send` methods and `source` at `path`."""
    return graph_of({"pkg/__init__.py": "", "pkg/senders.py": SENDERS, path: source})


def test_python_a_local_holding_an_annotated_return_links_to_that_class():
    graph = graph_with_senders(
        "pkg/main.py",
        """
                from .senders import Transport


                def make() -> Transport:
                    return Transport()


                def run(items):
                    t = make()
                    t.send()
                    items.append(t)
                """,
    )
    assert graph.calls["pkg/main.py#run"] == ["pkg/main.py#make", "pkg/senders.py#Transport.send"]
    assert graph.unresolved_calls["pkg/main.py#run"] == ["items.append"]


def test_python_attributes_typed_in_the_class_or_its_methods_link_to_their_class():
    graph = graph_with_senders(
        "pkg/client.py",
        """
                from .senders import Mailer, Pool, Transport


                def build() -> Mailer:
                    return Mailer()


                class Client:
                    _transport: Transport

                    def __init__(self, pool: Pool):
                        self._pool = pool
                        self._mailer = build()
                        self._items = []

                    def go(self):
                        self._transport.send()
                        self._pool.send()
                        self._mailer.send()
                        self._items.append(1)
                """,
    )
    assert graph.calls["pkg/client.py#Client.go"] == [
        "pkg/senders.py#Transport.send", "pkg/senders.py#Pool.send", "pkg/senders.py#Mailer.send"
    ]
    assert graph.unresolved_calls["pkg/client.py#Client.go"] == ["self._items.append"]


def test_python_an_attribute_constructed_in_init_links_and_one_bound_two_ways_does_not():
    graph = graph_of(
        {
            "m.py": SENDERS + """

    class Client:
        def __init__(self):
            self._transport = Transport()
            self._either = Mailer()

        def reset(self):
            self._either = Pool()

        def go(self):
            self._transport.send()
            self._either.send()
    """,
        }
    )
    assert graph.calls["m.py#Client.go"] == ["m.py#Transport.send"]


def test_typescript_annotated_returns_and_class_fields_link_to_their_class():
    graph = graph_of(
        {
            "src/senders.ts": """
                export class Transport { send(): void {} }
                export class Mailer { send(): void {} }
                """,
            "src/client.ts": """
                import { Transport, Mailer } from "./senders";

                function make(): Transport {
                  return new Transport();
                }

                export class Client {
                  private mailer: Mailer;

                  go(): void {
                    const t = make();
                    t.send();
                    this.mailer.send();
                    [1].push(2);
                  }
                }
                """,
        }
    )
    assert graph.calls["src/client.ts#Client.go"] == ["src/client.ts#make", "src/senders.ts#Transport.send", "src/senders.ts#Mailer.send"]


def test_javascript_this_in_a_function_assigned_to_an_object_is_that_object():
    graph = graph_of(
        {
            "lib/app.js": "var app = exports = module.exports = {};\napp.set = function set(k, v) { return v; };\n",
            "lib/res.js": """
                var accepts = require('accepts');
                var res = module.exports = {};

                res.set = function set(field, value) {
                  return value;
                };

                res.accepts = function () {
                  return accepts(this);
                };

                res.send = function send(body) {
                  this.set('Content-Type', 'text/html');
                  return this.end(body);
                };

                function View(name) {
                  this.name = name;
                }

                View.prototype.lookup = function lookup(name) {
                  return this.resolve(name);
                };

                View.prototype.resolve = function resolve(name) {
                  return name;
                };
                """,
        }
    )
    assert graph.calls["lib/res.js#res.send"] == ["lib/res.js#res.set"]  # not app.set; `end` is Node's
    assert graph.calls["lib/res.js#View.lookup"] == ["lib/res.js#View.resolve"]
    assert graph.calls["lib/res.js#res.accepts"] == []  # the required package, not res.accepts


def test_go_method_receivers_and_constructors_link_to_their_type():
    graph = graph_of(
        {
            "go.mod": "module example.com/shop\n",
            "client/client.go": """
                package client

                type Client struct {
                \ttransport *Transport
                }

                func (c *Client) Do() error {
                \tc.send()
                \tc.transport.Flush()
                \tt := NewTransport()
                \tt.Flush()
                \treturn nil
                }
                """,
            "client/send.go": """
                package client

                type Transport struct{}

                type Server struct{}

                func NewTransport() *Transport { return &Transport{} }

                func (c *Client) send() {}

                func (s *Server) send() {}

                func (t *Transport) Flush() {}

                func (s *Server) Flush() {}
                """,
        }
    )
    assert graph.calls["client/client.go#Client.Do"] == [
        "client/send.go#Client.send", "client/send.go#Transport.Flush", "client/send.go#NewTransport"
    ]


def test_rust_self_in_an_impl_block_links_to_that_type():
    graph = graph_of(
        {
            "src/lib.rs": """
                pub struct Foo { n: u32 }
                pub struct Bar { n: u32 }

                impl Foo {
                    pub fn run(&self) -> u32 { self.step() }
                    fn step(&self) -> u32 { 1 }
                }

                impl Bar {
                    fn step(&self) -> u32 { 2 }
                }
                """,
        }
    )
    assert graph.calls["src/lib.rs#Foo.run"] == ["src/lib.rs#Foo.step"]


def test_a_local_made_by_an_outside_package_never_links_to_a_method_of_the_same_name():
    """cobra's `tmpl`: `t := template.New("top"); t.Execute(w, data)` is text/template's
    Execute, not `Command.Execute`, though that is the one repository definition of the name."""
    graph = graph_of(
        {
            "go.mod": "module example.com/cli\n",
            "command.go": """
                package cli

                type Command struct{}

                func (c *Command) Execute() error {
                \treturn c.run()
                }

                func (c *Command) run() error { return nil }
                """,
            "template.go": """
                package cli

                import (
                \t"io"
                \t"text/template"
                )

                func render(w io.Writer, text string, data interface{}) error {
                \tt := template.New("top")
                \ttemplate.Must(t.Parse(text))
                \treturn t.Execute(w, data)
                }
                """,
            "tool.py": """
                import requests


                class Session:
                    def close(self):
                        return 1


                def fetch(url):
                    s = requests.Session()
                    return s.close()
                """,
        }
    )
    assert "template.go#render" not in graph.callers.get("command.go#Command.Execute", [])
    assert graph.calls["template.go#render"] == []
    assert graph.calls["tool.py#fetch"] == [], "requests' Session, not the repository's"
