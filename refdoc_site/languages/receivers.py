"""What a call's receiver can tell about the called definition, per language, as data.

The offline call graph (`understanding/calls.py`) reads a call as written (`self.send`,
`", ".join`, `c.send`): these rows say which receivers name the enclosing class, which
method names belong to the language's built-in types (a call of one on a receiver of
unknown type is taken to be the built-in's, never linked by name alone), how a class
names its bases, and how a local name is bound to a type.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ReceiverRules:
    """How one language's receivers are read."""

    self_names: frozenset[str] = frozenset()
    """Receivers naming the enclosing class (`self`, `cls`, `this`)."""
    builtin_methods: frozenset[str] = frozenset()
    """Methods of the built-in types: on an unknown receiver they are not linked."""
    implicit_self: bool = False
    """Whether a bare name inside a class may be one of its methods (Java's `sum()`)."""
    bases: re.Pattern[str] | None = None
    """On a class's signature, group 1: its bases, comma-separated."""
    bindings: tuple[re.Pattern[str], ...] = field(default_factory=tuple)
    """On a chunk's source, group `name`: a local name, group `type`: the class it is
    bound to (constructed, declared or annotated)."""


_PYTHON_BUILTIN_METHODS = frozenset(
    # str and bytes
    "capitalize casefold center count decode encode endswith expandtabs find format format_map "
    "hex index isalnum isalpha isascii isdecimal isdigit isidentifier islower isnumeric "
    "isprintable isspace istitle isupper join ljust lower lstrip maketrans partition "
    "removeprefix removesuffix replace rfind rindex rjust rpartition rsplit rstrip split "
    "splitlines startswith strip swapcase title translate upper zfill fromhex "
    # list, dict, set, tuple
    "append clear copy extend insert pop remove reverse sort fromkeys get items keys "
    "popitem setdefault update values add difference difference_update discard "
    "intersection intersection_update isdisjoint issubset issuperset symmetric_difference "
    "symmetric_difference_update union "
    # files and streams
    "close closed detach fileno flush isatty read read1 readable readall readinto readline "
    "readlines seek seekable tell truncate writable write writelines getvalue getbuffer "
    # numbers, objects, iterators, context managers, async
    "bit_length conjugate to_bytes from_bytes is_integer as_integer_ratio __enter__ __exit__ "
    "__aenter__ __aexit__ __init__ __new__ __call__ __iter__ __next__ "
    "__getitem__ __setitem__ __contains__ __len__ __eq__ __hash__ __repr__ __str__ "
    # built-in functions, for a bare name no import or definition of the file explains
    "abs all any callable chr dir divmod enumerate filter format getattr hasattr hash id input "
    "isinstance issubclass iter len map max min next open ord pow print range repr reversed "
    "round setattr sorted sum super type vars zip".split()
)

_JAVASCRIPT_BUILTIN_METHODS = frozenset(
    # Object, JSON, Array, String, Map, Set, Promise, Function, Number, Math, Date, RegExp
    "assign create defineProperty defineProperties entries freeze fromEntries "
    "getOwnPropertyNames getOwnPropertyDescriptor getPrototypeOf setPrototypeOf hasOwnProperty "
    "isPrototypeOf keys values toString valueOf toJSON parse stringify "
    "at concat copyWithin every fill filter find findIndex findLast findLastIndex flat flatMap "
    "forEach from includes indexOf isArray join lastIndexOf map of pop push reduce reduceRight "
    "reverse shift slice some sort splice unshift charAt charCodeAt codePointAt endsWith "
    "localeCompare match matchAll normalize padEnd padStart repeat replace replaceAll search "
    "split startsWith substr substring toLowerCase toUpperCase trim trimEnd trimStart "
    "toLocaleLowerCase toLocaleUpperCase clear delete get has set add all allSettled any "
    "race reject resolve then catch finally apply bind call toFixed toPrecision isInteger "
    "isNaN isFinite parseInt parseFloat abs ceil floor max min pow random round sqrt now "
    "getTime toISOString exec test emit on once removeListener".split()
)

def _constructed_or_annotated(identifier: str, constructor: str, annotation: str) -> tuple[re.Pattern[str], ...]:
    """`name = Class(…)` (after the language's `new`) and `name: Class`; a generic
    (`Optional[Client]`, `Map<K, V>`) or a dotted type binds nothing."""
    return (
        re.compile(rf"\b(?P<name>{identifier})\s*=\s*{constructor}(?P<type>[A-Z][\w$]*)\s*\("),
        re.compile(rf"\b(?P<name>{identifier})\s*{annotation}(?P<type>[A-Z][\w$]*)\b(?!\s*[\[<.(])"),
    )


_PYTHON = ReceiverRules(
    self_names=frozenset({"self", "cls"}),
    builtin_methods=_PYTHON_BUILTIN_METHODS,
    bases=re.compile(r"^\s*class\s+\w+\s*\(([^)]*)\)"),
    bindings=_constructed_or_annotated(r"[A-Za-z_]\w*", constructor="", annotation=r":\s*[\"']?"),
)

_ECMASCRIPT = ReceiverRules(
    self_names=frozenset({"this"}),
    builtin_methods=_JAVASCRIPT_BUILTIN_METHODS,
    bases=re.compile(r"\bclass\s+\w+\s+extends\s+([\w.$]+)"),
    bindings=_constructed_or_annotated(r"[A-Za-z_$][\w$]*", constructor=r"new\s+", annotation=r"\??:\s*"),
)

_IMPLICIT_THIS = ReceiverRules(
    self_names=frozenset({"this"}),
    implicit_self=True,
    # `Queue queue;`, `Queue queue = …`, `Queue* queue = new Queue(…)`
    bindings=(re.compile(r"\b(?P<type>[A-Z]\w*)\s*[*&]?\s+(?P<name>[a-z_]\w*)\s*[;=({]"),),
)

RECEIVER_RULES: dict[str, ReceiverRules] = {
    "java": _IMPLICIT_THIS,
    "csharp": _IMPLICIT_THIS,
    "cpp": _IMPLICIT_THIS,
    "kotlin": _IMPLICIT_THIS,
    "python": _PYTHON,
    "javascript": _ECMASCRIPT,
    "typescript": _ECMASCRIPT,
    "tsx": _ECMASCRIPT,
}

NO_RULES = ReceiverRules()
"""For a language without a row: no self receiver, no built-ins, no bindings."""


def receiver_rules(language: str) -> ReceiverRules:
    return RECEIVER_RULES.get(language, NO_RULES)
