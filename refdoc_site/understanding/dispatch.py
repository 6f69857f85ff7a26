"""What a flow needs to know of a call beyond the stored call graph: where a call to a
method that does nothing lands (an override), which functions a call through a parsed
value's attribute runs (`args.run(args)` after `set_defaults(run=_build)`), and which
callee only prepares what the next call uses (`prep = self.prepare_request(req)`, then
`self.send(prep)`).

Each reads the definitions' own text, so the graph (`graph.py`) keeps only what a
receiver or a language server says; the flow rule (`flows.py`) decides what to do with it.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections import defaultdict
from collections.abc import Iterable, Mapping

from ..languages.orientation import CONTEXT_BINDINGS, PREPARATION_WORDS
from ..languages.receivers import receiver_rules

Key = tuple[str, str]
"""A definition: (file, symbol)."""


def class_bases(classes: Mapping[Key, tuple[str, str]]) -> dict[Key, list[Key]]:
    """Each class (key → (language, signature)) → the project's classes its signature names
    as bases, matched by their last dotted name (`click.core.BaseCommand` → `BaseCommand`)."""
    by_name: dict[str, list[Key]] = defaultdict(list)
    for key in classes:
        by_name[key[1].rsplit(".", 1)[-1]].append(key)
    bases: dict[Key, list[Key]] = {}
    for key, (language, signature) in classes.items():
        rule = receiver_rules(language).bases
        match = rule.search(signature) if rule else None
        if not match:
            continue
        written = match.group(1)
        while re.search(r"\[[^\[\]]*\]|<[^<>]*>", written):  # `Base[_T]`, `Base<T>`: the base is `Base`
            written = re.sub(r"\[[^\[\]]*\]|<[^<>]*>", "", written)
        named = [part.strip().rsplit(".", 1)[-1] for part in written.split(",")]
        found = [base for name in named if name.isidentifier() for base in by_name.get(name, ()) if base != key]
        if found:
            bases[key] = found
    return bases


def prepared_names(content: str, language: str) -> dict[str, set[str]]:
    """Call name (its last dotted part) → the local names the step keeps its result in:
    `prep = self.prepare_request(req)` gives `prepare_request` → {`prep`}."""
    found: dict[str, set[str]] = defaultdict(set)
    for pattern in (*receiver_rules(language).call_bindings, *CONTEXT_BINDINGS.get(language, ())):
        for match in pattern.finditer(content):
            found[match.group("call").rsplit(".", 1)[-1]].add(match.group("name"))
    return found


def prepares(name: str, kept: Mapping[str, set[str]], content: str) -> bool:
    """Whether a callee named `name` only prepares what the step goes on with: its name
    starts with a word of `PREPARATION_WORDS` and the step keeps its result in a name it
    hands to another call (`self.send(prep)`) or calls a method of (`ctx.invoke()`)."""
    words = re.split(r"[\W_]+|(?<=[a-z0-9])(?=[A-Z])", name.lstrip("_"))
    if not words or words[0].lower() not in PREPARATION_WORDS:
        return False
    for local in kept.get(name, ()):
        escaped = re.escape(local)
        handed = rf"\([^()\n]{{0,240}}?(?<![\w.]){escaped}\b|(?<![\w.]){escaped}\.\w+\s*\("
        if re.search(handed, content):
            return True
    return False


def registered_functions(sources: Iterable[str], attribute: str) -> list[str]:
    """The function names a Python file registers under a keyword `attribute`
    (`parser.set_defaults(run=_init)`), following a parameter it forwards
    (`def command(name, run): sub.set_defaults(run=run)` called as `command("build", _build)`),
    in the order the file registers them. A source that does not parse registers nothing."""
    names: list[str] = []
    for source in sources:
        if not re.search(rf"\b{re.escape(attribute)}\s*=", source):
            continue
        try:
            tree = ast.parse(textwrap.dedent(source))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        functions = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
        calls = sorted((node for node in ast.walk(tree) if isinstance(node, ast.Call)), key=lambda n: (n.lineno, n.col_offset))
        for call in calls:
            for keyword in call.keywords:
                if keyword.arg == attribute and isinstance(keyword.value, ast.Name):
                    forwarded = _forwarded(keyword.value.id, functions, calls)
                    names.extend(forwarded if forwarded is not None else [keyword.value.id])
    return list(dict.fromkeys(names))


def _forwarded(name: str, functions: list[ast.FunctionDef | ast.AsyncFunctionDef], calls: list[ast.Call]) -> list[str] | None:
    """The names passed for parameter `name` where the function that has it is called
    here; None when no function here has such a parameter."""
    for function in functions:
        parameters = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        if name not in parameters and name not in [a.arg for a in function.args.kwonlyargs]:
            continue
        position = parameters.index(name) if name in parameters else -1
        passed: list[str] = []
        for call in calls:
            if not (isinstance(call.func, ast.Name) and call.func.id == function.name):
                continue
            values = [k.value for k in call.keywords if k.arg == name]
            if 0 <= position < len(call.args):
                values.append(call.args[position])
            passed.extend(value.id for value in values if isinstance(value, ast.Name))
        return passed
    return None
