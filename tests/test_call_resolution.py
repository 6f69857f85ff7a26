"""Receiver-aware call resolution without a language server (understanding/calls.py)."""

from __future__ import annotations

from test_graph import graph_of

from refdoc_site.languages.receivers import receiver_rules

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
    assert not receiver_rules("go").builtin_methods
