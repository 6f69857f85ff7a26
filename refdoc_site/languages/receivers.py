"""What a call's receiver can tell about the called definition, per language, as data.

The offline call graph (`understanding/calls.py`) reads a call as written (`self.send`,
`", ".join`, `c.send`): these rows say which receivers name the enclosing class, which
method names belong to the language's built-in types (a call of one on a receiver of
unknown type is taken to be the built-in's, never linked by name alone), how a class
names its bases, how a local name is bound to a type (declared, constructed, or the
annotated return of a call), how a function annotates its return, how a class's
attributes get their types, and how a method names its receiver (Go).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .builtins import BUILTIN_METHODS


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
    call_bindings: tuple[re.Pattern[str], ...] = field(default_factory=tuple)
    """On a chunk's source, group `name`: a local name, group `call`: the call whose
    result it holds (`t = make()`: `make`'s annotated return type, or the class called)."""
    returns: re.Pattern[str] | None = None
    """On a function's signature, group `type`: the class it is annotated to return."""
    attributes: tuple[re.Pattern[str], ...] = field(default_factory=tuple)
    """On a method's source, group `name`: an attribute of the receiver (`self._t`), and
    one of `type` (annotated or constructed), `call` (a call's result) or `local` (a
    local or parameter, typed by `bindings`)."""
    fields: tuple[re.Pattern[str], ...] = field(default_factory=tuple)
    """On a class's source, group `name`: a declared field, group `type`: its class."""
    receiver: re.Pattern[str] | None = None
    """On a method's signature, group `name`: the receiver naming its type (Go's
    `func (c *Client) Do()`), a self name in that method."""
    module_objects: frozenset[str] = frozenset()
    """Objects whose members are the module's own top-level names (`exports.f = function`);
    a function assigned to any other object (`res.send = function`) is reached through
    it, never by its bare name."""
    package_members: bool = False
    """Whether a type's methods may be declared in any file of its folder (Go's package,
    a Rust crate's modules), and the folder's types are visible unimported (Java's package)."""
    package_scope: bool = False
    """Whether a folder is one namespace: its files' top-level names are visible in each
    other unimported (Go's package, Java's package); a Rust module's are not."""
    static_types: bool = False
    """Whether a declared type is the receiver's whole truth: a parameter, local or field
    declared with a type no repository class bears (`bytes.Buffer`, `Set<String>`, `&str`)
    holds a library value, whose methods are never the repository's."""
    typed: tuple[re.Pattern[str], ...] = field(default_factory=tuple)
    """With `static_types`: on a chunk's source, group `name`: a parameter or local, group
    `type`: its declared type as written (`*pflag.FlagSet`, `Map<K, V>`, `&'a mut Formatter`)."""
    path_prefixes: frozenset[str] = frozenset()
    """Heads of a path that name the root, not a receiver (Rust's `crate::`, `super::`)."""
    members_anywhere: bool = False
    """Whether a class's methods may be defined in any file of the repository (C++)."""
    overloads: bool = False
    """Whether methods of one name may differ by parameters (a call of a method's own name
    inside it may be another overload)."""
    typed_fields: tuple[re.Pattern[str], ...] = field(default_factory=tuple)
    """With `static_types`: the same for the fields on a class's source."""


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


def _attributes(self_name: str, identifier: str, constructor: str, annotation: str) -> tuple[re.Pattern[str], ...]:
    """`self.name: Class`, `self.name = Class(…)`, `self.name = make(…)` and
    `self.name = local` (on a line of its own), for the language's receiver word."""
    attribute = rf"\b{self_name}\.(?P<name>{identifier})"
    return (
        re.compile(rf"{attribute}\s*{annotation}(?P<type>[A-Z][\w$]*)\b(?!\s*[\[<.(])"),
        re.compile(rf"{attribute}\s*=\s*{constructor}(?P<type>[A-Z][\w$]*)\s*\("),
        re.compile(rf"{attribute}\s*(?::[^=\n]*)?=\s*(?:await\s+)?(?P<call>[A-Za-z_$][\w.$]*)\s*\("),
        re.compile(rf"{attribute}\s*(?::[^=\n]*)?=\s*(?P<local>{identifier})\s*;?\s*$", re.MULTILINE),
    )


def _assigned_call(identifier: str, assign: str = "=") -> re.Pattern[str]:
    """`name = make(…)` (not `obj.name = …`, not `==`)."""
    return re.compile(rf"(?<![\w.$])(?P<name>{identifier})\s*{assign}\s*(?:await\s+)?(?P<call>[A-Za-z_$][\w.$]*)\s*\(")


_PYTHON = ReceiverRules(
    self_names=frozenset({"self", "cls"}),
    builtin_methods=_PYTHON_BUILTIN_METHODS,
    bases=re.compile(r"^\s*class\s+\w+\s*\(([^)]*)\)"),
    bindings=_constructed_or_annotated(r"[A-Za-z_]\w*", constructor="", annotation=r":\s*[\"']?"),
    call_bindings=(_assigned_call(r"[A-Za-z_]\w*"),),
    returns=re.compile(r"->\s*[\"']?(?P<type>[A-Z]\w*)[\"']?\s*:?\s*$"),
    attributes=_attributes("self", r"[A-Za-z_]\w*", constructor="", annotation=r":\s*[\"']?"),
    # `_transport: Transport` at the start of a line of the class body
    fields=(re.compile(r"^[ \t]+(?P<name>[A-Za-z_]\w*)\s*:\s*[\"']?(?P<type>[A-Z]\w*)\b(?!\s*[\[.(])", re.MULTILINE),),
)

_ECMASCRIPT = ReceiverRules(
    self_names=frozenset({"this"}),
    builtin_methods=_JAVASCRIPT_BUILTIN_METHODS,
    bases=re.compile(r"\bclass\s+\w+\s+extends\s+([\w.$]+)"),
    module_objects=frozenset({"exports", "module.exports"}),
    bindings=_constructed_or_annotated(r"[A-Za-z_$][\w$]*", constructor=r"new\s+", annotation=r"\??:\s*"),
    call_bindings=(_assigned_call(r"[A-Za-z_$][\w$]*"),),
    # `function make(): Transport`, `make(): Promise<Transport>` is no class
    returns=re.compile(r"\)\s*:\s*(?P<type>[A-Z][\w$]*)\s*(?:\{|=>)?\s*$"),
    attributes=_attributes("this", r"[A-Za-z_$][\w$]*", constructor=r"new\s+", annotation=r"!?:\s*"),
    # `private t: Transport;`, `readonly t?: Transport`
    fields=(
        re.compile(
            r"^\s*(?:(?:private|public|protected|readonly|static|declare)\s+)*(?P<name>[A-Za-z_$][\w$]*)[?!]?\s*:\s*"
            r"(?P<type>[A-Z][\w$]*)\b(?!\s*[\[<.(])",
            re.MULTILINE,
        ),
    ),
)

_GO_TYPE = r"(?P<type>\*?(?:\[\d*\])*\*?[A-Za-z_][\w.]*(?:\[[^\]\n]{0,80}\])?)"
"""A Go type as written: `*Command`, `[]string`, `*pflag.FlagSet`, `List[T]`."""

_GO = ReceiverRules(
    receiver=re.compile(r"^func\s*\(\s*(?P<name>\w+)\s+\*?\s*\w+"),
    builtin_methods=BUILTIN_METHODS["go"],
    package_members=True,
    package_scope=True,
    static_types=True,
    typed=(
        # parameters (`c *Command, args []string`, a shared type: `a, b string`), `var x T`, `x := y.(*T)`
        re.compile(rf"[(,]\s*(?P<name>[a-z_]\w*)\s+{_GO_TYPE}\s*[,)]"),
        re.compile(rf"\bvar\s+(?P<name>[a-z_]\w*)\s+{_GO_TYPE}"),
        re.compile(r"\b(?P<name>[a-z_]\w*)(?:\s*,\s*\w+)?\s*:?=\s*\w+\.\((?P<type>\*?[\w.]+)\)"),
    ),
    typed_fields=(re.compile(rf"^\s*(?P<name>[A-Za-z_]\w*)\s+{_GO_TYPE}\s*(?:`[^`]*`)?\s*(?://.*)?$", re.MULTILINE),),
    # `c := &Client{…}`, `c := Client{…}`, `var c *Client`, `c *Client` (a parameter)
    bindings=(
        re.compile(r"\b(?P<name>[a-z_]\w*)\s*:?=\s*&?(?P<type>[A-Z]\w*)\s*\{"),
        re.compile(r"\b(?:var\s+)?(?P<name>[a-z_]\w*)\s+\*?(?P<type>[A-Z]\w*)\s*[,)\n=]"),
    ),
    call_bindings=(_assigned_call(r"[a-z_]\w*", assign=r"(?:,\s*\w+\s*)*:?="),),
    # `func NewClient() *Client {`, `func Open() (*Client, error) {`
    returns=re.compile(r"\)\s*\(?\s*\*?(?P<type>[A-Z]\w*)\s*(?:,[^)]*\))?\s*\{?\s*$"),
    # `transport *Transport` in the struct
    fields=(re.compile(r"^\s*(?P<name>\w+)\s+\*?(?P<type>[A-Z]\w*)\s*(?:`[^`]*`)?\s*$", re.MULTILINE),),
)

_RUST_TYPE = r"(?P<type>(?:&\s*(?:'\w+\s+)?(?:mut\s+)?|\*(?:const|mut)\s+)*(?:dyn\s+|impl\s+)?[A-Za-z_][\w:]*(?:<[^;{}\n]{0,160}?>)?)"
"""A Rust type as written: `Ref<'a, ErrorImpl>`, `&mut fmt::Formatter`, `&str`, `*const T`."""

_RUST = ReceiverRules(
    self_names=frozenset({"self", "Self"}),
    path_prefixes=frozenset({"crate", "super"}),
    builtin_methods=BUILTIN_METHODS["rust"],
    package_members=True,
    static_types=True,
    typed=(
        # parameters and `let x: T`
        re.compile(rf"[(,]\s*(?:mut\s+)?(?P<name>[a-z_]\w*)\s*:\s*{_RUST_TYPE}\s*[,)=]"),
        re.compile(rf"\blet\s+(?:mut\s+)?(?P<name>[a-z_]\w*)\s*:\s*{_RUST_TYPE}\s*="),
    ),
    typed_fields=(re.compile(rf"^\s*(?:pub(?:\([^)]*\))?\s+)?(?P<name>[a-z_]\w*)\s*:\s*{_RUST_TYPE}\s*,", re.MULTILINE),),
    # `let t = Transport::new()` is written `Transport::new`; `let t: Transport = …`
    bindings=(re.compile(r"\blet\s+(?:mut\s+)?(?P<name>[a-z_]\w*)\s*:\s*&?(?:mut\s+)?(?P<type>[A-Z]\w*)\b(?!\s*<)"),),
    call_bindings=(re.compile(r"\blet\s+(?:mut\s+)?(?P<name>[a-z_]\w*)\s*=\s*(?P<call>[A-Za-z_][\w.]*)\s*\("),),
    # `-> Mut<'a, T>` is a `Mut`; `-> Self` the impl's own type
    returns=re.compile(r"->\s*&?(?:'\w+\s+)?(?:mut\s+)?(?P<type>[A-Z]\w*)\s*(?:<[^{}]*>)?\s*(?:where\b.*)?\{?\s*$"),
    fields=(re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?P<name>[a-z_]\w*)\s*:\s*&?(?P<type>[A-Z]\w*)\b", re.MULTILINE),),
)

_IMPLICIT_THIS = ReceiverRules(
    self_names=frozenset({"this"}),
    implicit_self=True,
    # `Queue queue;`, `Queue queue = …`, `Queue* queue = new Queue(…)`
    bindings=(re.compile(r"\b(?P<type>[A-Z]\w*)\s*[*&]?\s+(?P<name>[a-z_]\w*)\s*[;=({]"),),
)

_JAVA_TYPE = (
    r"(?P<type>(?:[A-Z][\w]*\.)*[A-Z]\w*(?:<[^;{}()\n]{0,160}?>)?(?:\[\])*"
    r"|(?:int|long|short|byte|char|boolean|float|double|String|string|object|bool|decimal)\b(?:\[\])*)"
)
"""A declared type: `CodeWriter`, `Map<String, List<T>>`, `Type[]`, `FieldSpec.Builder`, a primitive."""


def _statically_typed(language: str, self_name: str, bases: str) -> ReceiverRules:
    """Java's, C#'s and C++'s receivers: `this`, bare names of the class's own methods,
    parameters, locals and fields declared with their types, bases after `extends`/`:`."""
    declared = (
        # `CodeWriter codeWriter,` `final Set<String> names =`, `List<T> list;`, `Type t)`
        re.compile(rf"(?<![\w.<])(?:final\s+|const\s+)?{_JAVA_TYPE}\s*[*&]?\s+(?P<name>[a-z_]\w*)\s*(?:[;=,)]|:(?!:))"),
    )
    constructed = (
        # `var handler = (RequestHandlerWrapper<T>)…`, `var b = new Builder(…)`, `auto x = new Foo(`
        re.compile(r"\b(?:var|auto)\s+(?P<name>[a-z_]\w*)\s*=\s*\(\s*(?P<type>[A-Z][\w.]*)(?:<[^;()\n]{0,160}>)?\s*\)"),
        re.compile(r"\b(?:var|auto)\s+(?P<name>[a-z_]\w*)\s*=\s*new\s+(?P<type>[A-Z][\w.]*)"),
    )
    return ReceiverRules(
        self_names=frozenset({self_name}),
        implicit_self=True,
        builtin_methods=BUILTIN_METHODS[language],
        bases=re.compile(bases),
        package_members=language == "java",
        package_scope=language == "java",
        members_anywhere=language == "cpp",
        overloads=True,
        static_types=True,
        bindings=(re.compile(r"\b(?P<type>[A-Z]\w*)\s*[*&]?\s+(?P<name>[a-z_]\w*)\s*[;=({]"),),
        typed=declared + constructed,
        # at a line's start, after modifiers, ended by `;`, `=` or a property's `{ get`: no parameter
        typed_fields=(
            re.compile(
                r"^[ \t]*(?:(?:public|private|protected|internal|static|readonly|final|const|volatile|transient|mutable)\s+)*"
                rf"{_JAVA_TYPE}\s*[*&]?\s+(?P<name>[a-z_]\w*)\s*(?:[;=]|\{{\s*get)",
                re.MULTILINE,
            ),
        ),
    )


_JAVA = _statically_typed(
    "java", "this", r"\bclass\s+\w+(?:<[^{]*?>)?\s+extends\s+([\w.]+)"
)
_CSHARP = _statically_typed("csharp", "this", r"\b(?:class|struct|record)\s+\w+(?:<[^{:]*?>)?\s*:\s*([\w.]+)")
_CPP = _statically_typed("cpp", "this", r"\b(?:class|struct)\s+(?:[A-Z_]+\s+)?\w+\s*(?:final\s*)?:\s*(?:public|protected|private)?\s*([\w:]+)")
_C = ReceiverRules(builtin_methods=BUILTIN_METHODS["c"])

RECEIVER_RULES: dict[str, ReceiverRules] = {
    "java": _JAVA,
    "csharp": _CSHARP,
    "cpp": _CPP,
    "c": _C,
    "kotlin": _IMPLICIT_THIS,
    "python": _PYTHON,
    "javascript": _ECMASCRIPT,
    "typescript": _ECMASCRIPT,
    "tsx": _ECMASCRIPT,
    "go": _GO,
    "rust": _RUST,
}

NO_RULES = ReceiverRules()
"""For a language without a row: no self receiver, no built-ins, no bindings."""


def receiver_rules(language: str) -> ReceiverRules:
    return RECEIVER_RULES.get(language, NO_RULES)
