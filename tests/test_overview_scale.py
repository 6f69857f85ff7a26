"""The overview on a large repository: its parts are the component hierarchy's top view
(a plug-in layer of many sibling packages named once), its page stays small, and its
central abstractions count the uses that resolve to them, a base class its subclasses'."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import built_overview

from refdoc_site.understanding.orientation import Orientation

PLUGINS = 240
PAGE_BOUND = 64_000
"""Bytes: the overview of a repository of hundreds of packages (a small one's is ~25 kB)."""


def built(tmp_path: Path, files: dict[str, str]) -> tuple[Orientation, str]:
    return built_overview(tmp_path, files, "Hub")


def plugin_repo(plugins: int) -> dict[str, str]:
    files = {
        "hub/__init__.py": '"""The hub: a core and its plug-ins."""\n',
        "hub/core.py": '''
            """The core every plug-in is handed."""


            class Core:
                """What runs the plug-ins."""

                def start(self) -> None:
                    for plugin in load_plugins():
                        plugin.async_setup_entry(self)


            def load_plugins() -> list:
                return []
        ''',
        "hub/entity.py": '''
            """Entities."""


            class Entity:
                """The base of every entity."""

                def update(self) -> None:
                    pass


            class SensorEntity(Entity):
                """An entity that measures."""
        ''',
        "hub/llm.py": '''
            """Talking to a model."""


            class API:
                """A model's API."""


            def make() -> API:
                return API()
        ''',
        "hub/tools.py": '''
            """Tools."""
            from hub import llm


            def call() -> llm.API:
                return llm.API()
        ''',
        "hub/plugins/__init__.py": '"""The plug-ins."""\n',
    }
    for n in range(plugins):
        files[f"hub/plugins/p{n:03}/__init__.py"] = f'''
            """Plug-in number {n}."""
            from extlib import API
            from hub.core import Core
            from hub.entity import SensorEntity


            class Sensor{n}(SensorEntity):
                """A sensor of plug-in {n}."""

                def read(self, api: API) -> API:
                    return api


            def async_setup_entry(core: Core) -> None:
                """Set the plug-in up."""
                Sensor{n}()
        '''
    return files


def test_a_plugin_layer_is_one_part_and_the_page_stays_small(tmp_path: Path) -> None:
    orientation, page = built(tmp_path, plugin_repo(PLUGINS))
    size = len(page.encode("utf-8"))
    assert size < PAGE_BOUND, f"the overview is {size} bytes"
    parts = page.split("## Its parts", 1)[1].split("\n## ", 1)[0]
    entries = re.findall(r"^- \[", parts, re.MULTILINE)
    assert 0 < len(entries) <= 30, parts
    assert f"a plug-in layer of {PLUGINS} packages beside each other" in parts
    assert len(orientation.top_parts) <= 30
    layer = next(part for part in orientation.top_parts if part.members)
    assert layer.members == PLUGINS and len(layer.largest) == 5


def test_a_base_class_counts_its_subclasses_uses_and_a_name_only_where_it_resolves(tmp_path: Path) -> None:
    orientation, page = built(tmp_path, plugin_repo(12))
    by_symbol = {a.definition.symbol: a for a in orientation.abstractions}
    assert by_symbol["Entity"].files > by_symbol["SensorEntity"].files - 1 >= 11, "the plug-ins' sensors are entities"
    assert by_symbol["Entity"].files >= 13, "its own file's subclass and the twelve plug-ins"
    assert by_symbol["API"].files == 2, "llm.py's own `make` and tools.py's `llm.API`; the plug-ins' API is extlib's"
    assert "[`Entity`](files/hub/entity.py.md#chunk-Entity)" in page


def test_the_plug_ins_shared_function_is_told_once_as_the_interface(tmp_path: Path) -> None:
    orientation, page = built(tmp_path, plugin_repo(40))
    entries = page.split("### Entry points", 1)[1].split("\n## ", 1)[0]
    assert "hub/plugins/p0" not in "".join(e.definition.path for e in orientation.entry_points), "no plug-in's function is an entry point"
    [hook] = [h for h in orientation.plugin_hooks if h.name == "async_setup_entry"]
    assert (hook.implementers, hook.packages, hook.layer) == (40, 40, "hub/plugins")
    assert hook.caller is not None and hook.caller.symbol == "Core.start"
    assert entries.count("async_setup_entry") == 2, "the name and one implementation, once"
    assert "40 of the 40 packages of [hub/plugins](modules/hub/plugins.md) define it" in entries


def test_a_small_repository_lists_its_modules_as_before(tmp_path: Path) -> None:
    orientation, page = built(tmp_path, plugin_repo(3))
    assert orientation.top_parts == [] and orientation.plugin_hooks == []
    assert "The components of its own code, largest first" in page
    assert "a plug-in layer of" not in page and "the plug-in interface" not in page
