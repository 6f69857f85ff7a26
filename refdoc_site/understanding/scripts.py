"""The console scripts and JavaScript main files a repository's manifests declare, and the
definition a script names: where `flows.py` looks first for the entry points of a program."""

from __future__ import annotations

import configparser
import posixpath
from collections.abc import Mapping
from typing import Any

from ..core.records import ChunkKind
from .evidence.manifests import read_json_object, read_toml

__all__ = ["declared_scripts", "script_target"]


def declared_scripts(texts: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """Console scripts (name → `module:function`, or a file for `bin`) and JavaScript main
    files the manifests among `texts` (path → text) declare; unreadable ones declare nothing."""
    scripts: dict[str, str] = {}
    mains: list[str] = []
    for path, text in sorted(texts.items(), key=lambda item: item[0].count("/")):
        name, base = posixpath.basename(path), posixpath.dirname(path)
        try:
            if name == "pyproject.toml":
                project = read_toml(text).get("project", {})
                scripts.update({k: v for k, v in (project.get("scripts") or {}).items() if isinstance(v, str)})
            elif name in ("setup.cfg", "entry_points.txt"):
                parser = configparser.ConfigParser(interpolation=None, strict=False)
                parser.read_string(text)
                section, key = ("options.entry_points", "console_scripts") if name == "setup.cfg" else ("console_scripts", "")
                if key and parser.has_option(section, key):
                    lines = [line.partition("=") for line in parser.get(section, key).splitlines() if "=" in line]
                    scripts.update({n.strip(): t.strip() for n, _, t in lines})
                elif not key and parser.has_section(section):
                    scripts.update(dict(parser.items(section)))
            elif name == "package.json":
                data = read_json_object(text)
                if not data:
                    continue
                bin_field = data.get("bin")
                if isinstance(bin_field, str):
                    bin_field = {str(data.get("name", "")): bin_field}
                for script, file in (bin_field or {}).items() if isinstance(bin_field, dict) else ():
                    if isinstance(file, str):
                        scripts[script] = _join(base, file)
                main = data.get("main") if isinstance(data.get("main"), str) else "index.js"
                mains.append(_join(base, main if main.endswith((".js", ".mjs", ".cjs", ".ts")) else main + ".js"))
        except (ValueError, configparser.Error, AttributeError):  # a manifest that does not parse declares nothing
            continue
    return scripts, mains


def _join(base: str, path: str) -> str:
    return posixpath.normpath(posixpath.join(base, path)).lstrip("./") if path else ""


def script_target(definitions: Mapping[tuple[str, str], Any], target: str) -> tuple[str, str] | None:
    """`flask.cli:main` → the definition `main` in `…/flask/cli.py`; a file → its module chunk."""
    module, _, attribute = target.partition(":")
    attribute = attribute.split("[")[0].strip()
    if not attribute:
        keys = [key for key in definitions if key[0] == module.strip() and definitions[key].kind is ChunkKind.MODULE]
        return keys[0] if keys else None
    stem = module.strip().replace(".", "/")
    for key in sorted(definitions, key=lambda k: len(k[0])):
        path, symbol = key
        file_stem = path.rsplit(".", 1)[0].removesuffix("/__init__")
        if symbol == attribute and (file_stem == stem or file_stem.endswith("/" + stem)):
            return key
    return None
