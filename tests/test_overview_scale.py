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


def plugin_repo(plugins: int, checked: bool = False) -> dict[str, str]:
    """A hub of `plugins` sibling packages, each defining `async_setup_entry`, which the
    core calls on each (`checked`: after asking whether the plug-in defines it)."""
    setup = 'if hasattr(plugin, "async_setup_entry"):\n                            plugin.async_setup_entry(self)' if checked else "plugin.async_setup_entry(self)"
    files = {
        "hub/__init__.py": '"""The hub: a core and its plug-ins."""\n',
        "hub/core.py": '''
            """The core every plug-in is handed."""


            class Core:
                """What runs the plug-ins."""

                def start(self) -> None:
                    for plugin in load_plugins():
                        SETUP


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
    files["hub/core.py"] = files["hub/core.py"].replace("SETUP", setup)
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


PLATFORMS = {
    "hub/platform.py": '''
        """Platforms: the entities of one kind that the plug-ins add."""


        class EntityPlatform:
            """The entities of one kind that one plug-in adds."""

            def async_setup_entry(self, core) -> None:
                """Add them."""


        class EntityComponent:
            """The platforms of one kind of entity."""

            def __init__(self) -> None:
                self.platforms: dict = {}

            def async_setup_entry_platforms(self, core) -> None:
                """Set each platform up: a method of theirs, no plug-in's function."""
                for platform in self.platforms.values():
                    platform.async_setup_entry(core)
    ''',
}
"""A definition outside the layer that shares most of its name with the interface and calls
a method of that name on other objects (homeassistant's `EntityComponent.async_setup_platform`)."""


def hook_caller(tmp_path: Path, files: dict[str, str]) -> str | None:
    orientation, page = built(tmp_path, files)
    [hook] = [h for h in orientation.plugin_hooks if h.name == "async_setup_entry"]
    told = page.split("### Entry points", 1)[1].split("\n## ", 1)[0]
    assert ("called from" in told) == (hook.caller is not None)
    return hook.caller.symbol if hook.caller else None


def test_the_interface_s_caller_is_the_one_that_checks_a_plug_in_defines_it(tmp_path: Path) -> None:
    assert hook_caller(tmp_path, {**plugin_repo(40, checked=True), **PLATFORMS}) == "Core.start"


def test_no_caller_is_told_when_two_call_the_name_alike(tmp_path: Path) -> None:
    assert hook_caller(tmp_path, {**plugin_repo(40), **PLATFORMS}) is None, "the words of a name are no evidence"


def test_a_caller_whose_linked_calls_reach_most_implementations_comes_first(tmp_path: Path) -> None:
    imports = "\n".join(f"from hub.plugins import p{n:03}" for n in range(40))
    calls = "\n".join(f"    p{n:03}.async_setup_entry(core)" for n in range(40))
    registry = {"hub/registry.py": f'"""Every plug-in, set up in turn."""\n{imports}\n\n\ndef setup_all(core):\n{calls}\n'}
    assert hook_caller(tmp_path, {**plugin_repo(40, checked=True), **PLATFORMS, **registry}) == "setup_all"


DECLARED_CORE = '''
    """The core every plug-in is handed."""
    from typing import Protocol


    class PluginProtocol(Protocol):
        """What a plug-in defines."""

        def async_setup_entry(self, core: "Core") -> None:
            """Set the plug-in up."""


    class Core:
        """What runs the plug-ins."""

        def start(self) -> None:
            for plugin in load_plugins():
                self.set_up(plugin)

        def set_up(self, plugin: PluginProtocol) -> None:
            """Set one plug-in up."""
            plugin.async_setup_entry(self)


    def load_plugins() -> list:
        return []
'''
"""A core that calls the plug-ins' function through the interface it declares (homeassistant's
`ComponentProtocol`): the graph links that call to the declaration."""


def test_a_caller_linked_to_the_interface_s_declaration_comes_before_a_call_on_any_value(tmp_path: Path) -> None:
    assert hook_caller(tmp_path, {**plugin_repo(40), **PLATFORMS, "hub/core.py": DECLARED_CORE}) == "Core.set_up"


RELOAD = '''
    """Reloading a plug-in."""
    from typing import Protocol


    class PluginProtocol(Protocol):
        """What a plug-in defines."""

        def async_setup_entry(self, core) -> None:
            """Set the plug-in up."""


    def reload(core, plugin: PluginProtocol) -> None:
        """Set a plug-in up again."""
        plugin.async_setup_entry(core)
'''
"""Code that passes one plug-in on, typed by the interface (homeassistant's `_resetup_platform`)."""


def test_the_caller_that_checks_a_plug_in_comes_before_one_typed_by_the_interface(tmp_path: Path) -> None:
    assert hook_caller(tmp_path, {**plugin_repo(40, checked=True), **PLATFORMS, "hub/reload.py": RELOAD}) == "Core.start"
