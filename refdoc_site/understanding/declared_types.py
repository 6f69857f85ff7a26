"""What declarations tell the call resolver (`calls.py`) in statically typed languages:
the declared types of parameters, locals and fields, what a type as written names
(a repository class, or a library's: `*pflag.FlagSet`, `Set<String>`, `&str`), which
imported modules and names come from outside the repository, C#'s extension methods,
and which of a method's overloads a call's arguments fit.

`DeclaredTypes` is a part of `CallResolver`: it reads the indexes the resolver builds
(`classes`, `by_path`, `windows`, `extensions`, `overloads`, the imports) and asks it
back for `classes_named`, `lineage` and `attribute_classes`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from ..core.records import Chunk, ChunkKind
from ..languages.receivers import ReceiverRules, receiver_rules


class DeclaredTypes:
    """The declaration-reading half of the call resolver."""

    def declared_types(self, chunk: Chunk) -> dict[str, list[Chunk]]:
        """Parameter or local → the repository classes its declared type names, `[]` for
        a library or built-in type (statically typed languages); a name declared twice
        with different types is left out."""
        if chunk.id in self._declared:
            return self._declared[chunk.id]
        rules = receiver_rules(chunk.language)
        written = _matches(rules.typed, self.text_so_far(chunk), "type")
        self._declared[chunk.id] = {
            name: found
            for name, types in written.items()
            if len(types) == 1 and (found := self.type_classes(chunk.path, next(iter(types)), rules)) is not None
        }
        return self._declared[chunk.id]

    def text_so_far(self, chunk: Chunk) -> str:
        """A window's text with its definition's earlier windows before it: the
        parameters and locals a later window uses are declared there."""
        if chunk.part <= 1:
            return chunk.content
        earlier = [w.content for w in self.windows.get(_definition_id(chunk.id), ()) if w.part < chunk.part]
        return "\n".join([*earlier, chunk.content])

    def declared_fields(self, path: str, owner: str, rules: ReceiverRules) -> set[str]:
        """The fields of an owner (or its bases) declared with any type."""
        found: set[str] = set()
        for current_path, current in self.lineage(path, owner, rules):
            cls = self.class_of(current_path, current, rules)
            if cls is not None:
                found.update(_matches(rules.typed_fields, cls.content, "type"))
        return found

    def type_classes(self, path: str, written: str, rules: ReceiverRules) -> list[Chunk] | None:
        """The repository classes a declared type means: `[]` when it names none (a
        library or built-in type), None when the name is ambiguous."""
        qualifier, base = _type_name(written)
        if not base:
            return None
        if qualifier:
            head = qualifier.split(".")[0]
            in_package = [c for f in self.package_files(path, qualifier) for c in self.top_level.get((f, base), ()) if c.kind is ChunkKind.CLASS]
            if in_package:
                return in_package
            outer = self.classes_named(path, qualifier.rsplit(".", 1)[-1], rules) if head[:1].isupper() else []
            nested = [self.classes[(c.path, f"{c.symbol}.{base}")] for c in outer if (c.path, f"{c.symbol}.{base}") in self.classes]
            if nested:
                return nested  # `FieldSpec.Builder`
            if self.external_module(path, head) or not head[:1].isupper() and head not in ("crate", "super"):
                return []  # `pflag.FlagSet`, `fmt::Formatter`, `java.util.Set`
        found = self.classes_named(path, base, rules)
        if len(found) > 1:
            return None
        return found

    def package_files(self, path: str, qualifier: str) -> list[str]:
        """The repository files an imported package qualifier names (`cobra` of
        `cobra.Command`: the files of the package `github.com/spf13/cobra`)."""
        files: list[str] = []
        for written in self.imports.get(path, ()):
            if written == qualifier or written.endswith(("/" + qualifier, "." + qualifier, "::" + qualifier)):
                for target in self.resolve_import(path, written):
                    # a Go import names a package: every file of its folder
                    files.extend(self.folder_files.get(_folder(target), [target]) if self._package_scope(target) else [target])
        return [f for f in dict.fromkeys(files) if f != path]

    def _package_scope(self, path: str) -> bool:
        return bool(self.by_path.get(path)) and receiver_rules(self.by_path[path][0].language).package_scope

    def external_module(self, path: str, head: str) -> bool:
        """Whether a receiver is a module the file imports from outside the repository
        (`fmt`, `strings`, `os.path`): none of its calls are the repository's."""
        if not head:
            return False
        key = (path, head)
        if key not in self._external:
            self._external[key] = self._imports_externally(path, head)
        return self._external[key]

    def _imports_externally(self, path: str, head: str) -> bool:
        for written in self.imports.get(path, ()):
            alias = written.rsplit(" as ", 1)[-1].strip()
            last = re.split(r"[./]|::", alias)[-1]
            if last == head and not self.resolve_import(path, written.rsplit(" as ", 1)[0].strip()):
                return True
        return False

    def class_of(self, path: str, owner: str, rules: ReceiverRules) -> Chunk | None:
        """The class chunk of an owner: in its file, else (Go, Rust) a file of its folder."""
        cls = self.classes.get((path, owner))
        if cls is None and rules.package_members:
            cls = next((self.classes[(f, owner)] for f in self.folder_files.get(_folder(path), ()) if (f, owner) in self.classes), None)
        return cls

    def extension(self, name: str) -> list[Chunk]:
        """The repository's extension methods of that name (C#'s `static T F(this X x)`,
        called as `x.F()` on a value of any type), when one class declares them."""
        found = self.extensions.get(name, [])
        return found[:1] if len({_owner(c) for c in found}) == 1 else []

    def imports_from_outside(self, path: str, name: str, rules: ReceiverRules) -> bool:
        """Whether the file imports `name` from a module outside the repository."""
        for written in self.imports.get(path, ()):
            if written != name and not written.endswith(("." + name, "/" + name, "::" + name)):
                continue
            module = written[: -len(name)].rstrip(".:/")
            if re.split(r"[./]|::", written)[0] in rules.path_prefixes | {"self"}:
                continue  # `crate::Error`: the repository's own
            if not self.resolve_import(path, written) and not (module and self.resolve_import(path, module)):
                return True
        return False

    def by_arguments(self, chunk: Chunk, targets: list[Chunk], arguments: list[list[str]]) -> list[Chunk]:
        """Each target replaced by the overloads (same file, owner and name) the call
        sites' arguments fit, an exact parameter list before varargs; kept when none fits."""
        declared = {name: next(iter(types)) for name, types in _matches(receiver_rules(chunk.language).typed, self.text_so_far(chunk), "type").items() if len(types) == 1}
        chosen: dict[str, Chunk] = {}
        for target in targets:
            overloads = self.overloads.get((target.path, _owner(target), target.name), [target])
            if len(overloads) < 2:
                chosen[target.id] = target
                continue
            for passed in arguments:
                fitting = [o for o in overloads if takes(o.signature, o.name, passed, declared)]
                fitting.sort(key=lambda o: "..." in o.signature or "params " in o.signature)
                for picked in fitting[:1] or [target]:
                    chosen[picked.id] = picked
        return list(chosen.values())


TYPE_DECORATION = re.compile(r"&|\*|'\w+\b|\b(?:mut|const|dyn|impl|final|struct|class|volatile)\b|\?|\.\.\.|\s+")


GENERIC_ARGUMENTS = re.compile(r"<[^<>]*>|\[[^\[\]]*\]")


EXTENSION = re.compile(r"\bstatic\b[^(]*\(\s*this\s")
"""A C# extension method's signature: its first parameter is the receiver."""


ANY_TYPES = frozenset({"Object", "object", "dynamic", "var", "auto"})


BOOLEAN_TYPES = frozenset({"boolean", "bool", "Boolean"})


NUMBER_TYPES = frozenset("int long short byte double float char Integer Long Short Byte Double Float Number "
                         "size_t uint8_t uint16_t uint32_t uint64_t int8_t int16_t int32_t int64_t unsigned decimal uint ulong".split())


STRING_TYPES = frozenset({"String", "string", "CharSequence", "char", "Slice", "std.string"})


def _matches(patterns: Iterable[re.Pattern[str]], text: str, group: str) -> dict[str, set[str]]:
    """Group `name` → the values of `group` the patterns find for it in the text."""
    found: dict[str, set[str]] = defaultdict(set)
    for pattern in patterns:
        for match in pattern.finditer(text):
            found[match.group("name")].add(match.group(group))
    return found


def _owner(chunk: Chunk) -> str:
    """What `self`/`this` means in a chunk: its class, or for a method assigned outside
    one (`res.send = function`, `Foo.prototype.bar`, Go's `func (c *Client) Do`) the
    object, constructor or type before its name."""
    if chunk.parent:
        return chunk.parent
    return chunk.symbol.rpartition(".")[0] if chunk.kind is ChunkKind.METHOD else ""


def _folder(path: str) -> str:
    return path.rpartition("/")[0]


def takes(signature: str, name: str, arguments: list[str], declared: dict[str, str]) -> bool:
    """Whether a definition's parameters (after `name` in its signature) take a call's
    arguments: their number (varargs take any from the fixed ones on, a parameter with
    a default may be left out) and, where an argument shows its type (a literal, a name
    `declared` with one), that parameter's type."""
    parameters = _parameters(signature, name)
    if parameters is None:
        return True
    variadic = bool(parameters) and ("..." in parameters[-1] or parameters[-1].strip().startswith("params "))
    required = sum(1 for p in parameters if "=" not in p) - variadic
    if len(arguments) < required or (len(arguments) > len(parameters) and not variadic):
        return False
    for position, argument in enumerate(arguments):
        parameter = parameters[min(position, len(parameters) - 1)]
        if not _fits(argument, parameter.rsplit(None, 1)[0] if len(parameter.split()) > 1 else parameter, declared):
            return False
    return True


def _parameters(signature: str, name: str) -> list[str] | None:
    """The parameter texts of the list after `name(` in a signature (None without one)."""
    start = signature.find(name + "(")
    start = signature.find("(", start if start >= 0 else 0)
    if start < 0:
        return None
    depth, current, parameters = 0, "", []
    for char in signature[start + 1 :]:
        if char in "(<[{":
            depth += 1
        elif char in ")>]}":
            if depth == 0:
                break
            depth -= 1
        if char == "," and depth == 0:
            parameters.append(current)
            current = ""
        else:
            current += char
    found = [p.strip() for p in (*parameters, current) if p.strip() and p.strip() != "void"]
    return found[1:] if found and found[0].startswith("this ") else found  # an extension's receiver is no argument


def _fits(argument: str, parameter_type: str, declared: dict[str, str]) -> bool:
    """Whether an argument (a kind, or `=name`) may be passed as a parameter of that type."""
    _, base = _type_name(parameter_type.replace("params ", ""))
    if not base or base in ANY_TYPES or len(base) == 1:  # unknown, Object, a type parameter `T`
        return True
    if argument.startswith("="):
        written = declared.get(argument[1:])
        return written is None or _type_name(written)[1] in (base, "", "var", "auto")
    if argument == "string":
        return base in STRING_TYPES
    if argument == "number":
        return base in NUMBER_TYPES
    if argument == "boolean":
        return base in BOOLEAN_TYPES
    if argument == "null":
        return base not in NUMBER_TYPES | BOOLEAN_TYPES
    return True


def _definition_id(chunk_id: str) -> str:
    """`a.java#C.emit~2` → `a.java#C.emit`: the definition a window belongs to."""
    return re.sub(r"~\d+(?=@\d+$|$)", "", chunk_id)


def _type_name(written: str) -> tuple[str, str]:
    """A declared type as (qualifier, name): `*pflag.FlagSet` → (`pflag`, `FlagSet`),
    `&'a mut fmt::Formatter<'_>` → (`fmt`, `Formatter`), `Map<K, List<V>>` → (``, `Map`)."""
    text = written
    for _ in range(4):  # nested type arguments, innermost first
        text = GENERIC_ARGUMENTS.sub("", text)
    text = TYPE_DECORATION.sub("", text).replace("::", ".")
    qualifier, _, name = text.rpartition(".")
    return qualifier, name if name.isidentifier() else ""
