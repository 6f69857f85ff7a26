"""The API a file and a module offer, as a reader of the code would list it; imports that
are module names only; settings reads that are not network entry points."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import dedent, write_repo

from refdoc_site.core.config import Config
from refdoc_site.core.records import Hierarchy
from refdoc_site.indexing.regex_tier import declared_public, security_reason
from refdoc_site.indexing.tree_sitter_tier import file_interface
from refdoc_site.pipeline import Workspace, index, summarize


def summarized(root: Path, files: dict[str, str]) -> Hierarchy:
    """`files` as a repository, indexed and summarized offline: its hierarchy."""
    repo = write_repo(root / "repo", files)
    workspace = Workspace.create(repo, Config(), root / "store", root / "site")
    index(workspace)
    return summarize(workspace)


EXPRESS_LIKE = {
    "lib/response.js": """
        var send = require('send');
        var deprecate = require('depd')('express');
        var res = Object.create(http.ServerResponse.prototype);
        module.exports = res;

        res.status = function status(code) {
          deprecate('res.status(code): Use res.sendStatus(code) instead');
          this.statusCode = code;
          return this;
        };

        res.cookie = function (name, value) {
          return stringify(value);
        };

        /**
         * Internal: not for users.
         * @private
         */
        res.applyDefaults = function applyDefaults() {};

        function stringify(value) {
          return JSON.stringify(value);
        }
    """,
    "lib/application.js": """
        var debug = require('debug')('express:application');
        var app = exports = module.exports = {};

        app.use = function use(fn) {
          debug('use %o', fn);
          return this;
        };

        app._router = function () {};

        app.render = function render(name, options) {
          var etag = this.get('etag fn');
          var replacer = app.get('json replacer');
          return name;
        };

        function logerror(err) {}
    """,
    "lib/view.js": """
        var path = require('path');
        module.exports = View;

        function View(name) {
          this.name = name;
        }

        View.prototype.lookup = function lookup(name) {
          return path.resolve(name);
        };

        function tryStat(path) {}
    """,
    "lib/utils.js": """
        exports.etag = createETagGenerator({ weak: false });

        exports.isAbsolute = function (path) {
          return path[0] === '/';
        };

        Object.defineProperty(exports, 'lazy', { get: function () { return 1; } });
        Object.defineProperty(exports, '__esModule', { value: true });

        function createETagGenerator(options) {}
    """,
    "lib/shapes.js": """
        module.exports = { area, perimeter: computePerimeter };

        function area(shape) {}
        function computePerimeter(shape) {}
        function helper() {}
    """,
}


@pytest.fixture(scope="module")
def express_like(tmp_path_factory) -> Hierarchy:
    return summarized(tmp_path_factory.mktemp("express"), EXPRESS_LIKE)


def test_members_of_the_exported_object_are_the_api_named_as_users_call_them(express_like):
    assert express_like.files["lib/response.js"].public_api == ["res.status", "res.cookie"]


def test_a_chained_binding_of_module_exports_exports_its_members(express_like):
    assert express_like.files["lib/application.js"].public_api == ["app.use", "app.render"]


def test_prototype_methods_of_an_exported_constructor_follow_it(express_like):
    assert express_like.files["lib/view.js"].public_api == ["View", "View.lookup"]


def test_members_of_exports_drop_the_object_and_defined_properties_count(express_like):
    assert express_like.files["lib/utils.js"].public_api == ["isAbsolute", "etag", "lazy"]


def test_an_exported_object_literal_lists_its_keys(express_like):
    assert express_like.files["lib/shapes.js"].public_api == ["area", "perimeter"]


def test_the_module_api_holds_every_files_api(express_like):
    api = express_like.modules["lib"].public_api
    assert {"app.use", "res.cookie", "View.lookup", "isAbsolute"} <= set(api)
    assert not {"stringify", "logerror", "tryStat", "helper", "app._router", "res.applyDefaults"} & set(api)


def test_message_strings_are_not_imports(express_like):
    assert express_like.files["lib/response.js"].external_imports == ["send", "depd"]
    assert express_like.files["lib/application.js"].external_imports == ["debug"]


def test_the_regex_tier_reads_a_chained_export_binding_too():
    public = declared_public("javascript", "var app = exports = module.exports = {};\napp.use = function () {};\n")
    assert public is not None and "app" in public


TYPESCRIPT = {
    "src/store.ts": """
        import { Item } from "./item";

        export interface Shape { area(): number }
        export class Store {
          add(item: Item): void {}
        }
        export function open(name: string): Store { return new Store(); }
        /** @internal */
        export function resetForTests(): void {}
        function helper(): void {}
        export default function main(): void {}
    """,
    "src/item.ts": "export type Item = { id: string };\n",
}


def test_typescript_exports_are_the_api_classes_first(tmp_path):
    hierarchy = summarized(tmp_path, TYPESCRIPT)
    assert hierarchy.files["src/store.ts"].public_api == ["Shape", "Store", "open", "main"]


PYTHON = {
    "pkg/__init__.py": '''
        """The package."""
        from .client import Client, get

        __all__ = ["__version__", "get", "Client", "connect"]
        __version__ = "1.0"


        def connect():
            return Client()


        def not_listed():
            return 1
    ''',
    "pkg/client.py": '''
        def get(url):
            return Client().get(url)


        def _helper():
            return 2


        class Client:
            def __init__(self):
                self.open = True

            def __repr__(self):
                return "Client()"

            def get(self, url):
                return url

            def _send(self):
                return None
    ''',
}


def test_python_all_wins_over_names(tmp_path):
    hierarchy = summarized(tmp_path, PYTHON)
    assert hierarchy.files["pkg/__init__.py"].public_api == ["connect", "get", "Client"]


def test_python_without_all_lists_public_classes_then_functions_never_private_or_dunders(tmp_path):
    hierarchy = summarized(tmp_path, PYTHON)
    assert hierarchy.files["pkg/client.py"].public_api == ["Client", "get"]


def test_python_all_is_read_in_order_and_its_dunders_stay_out_of_the_api(tmp_path):
    repo = summarized(tmp_path, PYTHON)
    assert "__version__" not in repo.modules["pkg"].public_api
    interface = file_interface("python", dedent(PYTHON["pkg/__init__.py"]))
    assert interface.public == ["__version__", "get", "Client", "connect"]


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        ("var etag = app.get('etag fn');", ""),
        ("var value = this.app.get(setting);", ""),
        ("app.get('/users/:id', function (req, res) { res.send(id); });", "network entry point"),
        ("app.get(route, handler);", "network entry point"),
        ("app.post('/login', handle);", "network entry point"),
        ("var m = this.regexp.exec(path);", ""),
        ("exec('rm -rf ' + dir);", "subprocess"),
    ],
)
def test_a_settings_read_and_a_regex_exec_are_no_boundary(code, reason):
    assert security_reason(code, "javascript").split(" (")[0] == reason
