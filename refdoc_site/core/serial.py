"""One conversion between the typed records and JSON, driven by their type hints.

Every record that crosses a phase is a dataclass; the store writes it with `to_json` and
reads it back with `from_json(cls, data)`. Supported field types: other dataclasses,
`list[X]`, `tuple[X, ...]`, `dict[str, X]`, `X | None`, `str`-valued enums, the JSON
scalars (`Any` passes through) and unions of dataclasses tagged by key (`A | B`, each
member told apart by the JSON name of its first field, which is required). A field's JSON
name is its own, unless the field says otherwise (`json_name`); a missing key takes the
field's default, so a record that gains a field still reads files written before it; a
field marked `OMIT_DEFAULT` is left out of the JSON while it holds its default. A field
whose stored shape is not its type's (`CODEC`, a `Codec`) converts through its own pair.

The converters are compiled once per type: loading a large store turns some ten thousand
documents of several hundred floats each, and walking each value through a generic
dispatcher would cost more than parsing the JSON. A list or dict of scalars is passed as
it is, which is what keeps `Store.load` as fast as the hand-written pair it replaced.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from enum import Enum
from functools import cache
from typing import Any, TypeVar

T = TypeVar("T")

JSON_NAME = "json_name"
"""Field metadata key: the name the field has in JSON when it differs from the attribute."""
SORTED_KEYS = "sorted_keys"
"""Field metadata key: a dict written in key order, so that the file is the same whatever
order the phase built it in."""
OMIT_DEFAULT = "omit_default"
"""Field metadata key: the field is not written while it holds its default (an optional part
of a small record whose stored shape has no key for it)."""

CODEC = "codec"
"""Field metadata key: a `Codec`, the field's own conversion (its type hint is then not read)."""


@dataclasses.dataclass(frozen=True)
class Codec:
    """A field's own pair of conversions, for a value held in memory in another form than
    JSON's (the chunk vectors: float32 arrays in memory, rounded lists in the file)."""

    encode: Callable[[Any], Any]
    decode: Callable[[Any], Any]


SCALARS = (str, int, float, bool, type(None))
_KEEP = object()
"""The omitted default of a field that is always written."""

Converter = Callable[[Any], Any] | None
"""None stands for "the value as it is": the common case, skipped without a call."""


def json_name(name: str) -> dict[str, str]:
    """Field metadata giving a field another name in JSON: `field(metadata=json_name("fileSha256"))`."""
    return {JSON_NAME: name}


def to_json(record: Any) -> Any:
    """`record` (a dataclass, or a list or dict of them) as JSON-able values, fields in order."""
    encode = _encoder(type(record)) if dataclasses.is_dataclass(record) else _encode_any
    return record if encode is None else encode(record)


def from_json(cls: type[T], data: Any) -> T:
    """A `cls` made from what `to_json` wrote; TypeError or KeyError when the data does not fit."""
    decode = _decoder(cls)
    return data if decode is None else decode(data)


def _encode_any(value: Any) -> Any:
    if dataclasses.is_dataclass(value):
        return to_json(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (list, tuple)):
        return [_encode_any(item) for item in value]
    if isinstance(value, dict):
        return {key: _encode_any(item) for key, item in value.items()}
    return value


def _fields(
    cls: type, convert: Callable[[Any], Converter], side: str = ""
) -> list[tuple[dataclasses.Field, str, Converter]]:
    """(field, JSON name, converter) per field of the dataclass `cls`: the converter of its
    type, or its codec's `side` ("encode" or "decode") when it has one."""
    hints = typing.get_type_hints(cls)

    def converter(f: dataclasses.Field) -> Converter:
        return getattr(f.metadata[CODEC], side) if side and CODEC in f.metadata else convert(hints[f.name])

    return [(f, f.metadata.get(JSON_NAME, f.name), converter(f)) for f in dataclasses.fields(cls)]


def _parts(hint: Any) -> tuple[Any, tuple[Any, ...]]:
    """(origin, arguments) of a type hint, with `X | None` and `Optional[X]` as one union."""
    origin = typing.get_origin(hint)
    if origin is types.UnionType:
        origin = typing.Union
    return origin, typing.get_args(hint)


def _omitted_value(field: dataclasses.Field) -> Any:
    """The value at which an `OMIT_DEFAULT` field is left out: its default, or what its
    factory makes (an empty list); `_KEEP` for every other field."""
    if not field.metadata.get(OMIT_DEFAULT):
        return _KEEP
    return field.default_factory() if field.default is dataclasses.MISSING else field.default


@cache
def _encoder(hint: Any) -> Converter:
    """A function making JSON of a value of type `hint`, or None when the value is JSON already."""
    origin, args = _parts(hint)
    if dataclasses.is_dataclass(hint):
        fields = [
            (f.name, key, encode, bool(f.metadata.get(SORTED_KEYS)), _omitted_value(f))
            for f, key, encode in _fields(hint, _encoder, "encode")
        ]

        def encode_record(record: Any) -> dict[str, Any]:
            out = {}
            for name, key, encode, sort, omitted in fields:
                value = getattr(record, name)
                if omitted is not _KEEP and value == omitted:
                    continue
                if sort:
                    value = dict(sorted(value.items()))
                out[key] = value if encode is None else encode(value)
            return out

        return encode_record
    if isinstance(hint, type) and issubclass(hint, Enum):
        return lambda value: value.value
    if origin is typing.Union:
        if _tags(hint, args):
            encoders = {member: _encoder(member) for member in args}
            return lambda value: encoders[type(value)](value)
        return _optional(_encoder(_only_member(hint, args)))
    if origin in (list, tuple):
        item = _encoder(args[0]) if args else _encode_any
        if origin is tuple:
            return lambda values: [v if item is None else item(v) for v in values]
        return None if item is None else (lambda values: [item(v) for v in values])
    if origin is dict:
        value_encoder = _encoder(args[1]) if args else _encode_any
        return None if value_encoder is None else (lambda values: {k: value_encoder(v) for k, v in values.items()})
    if hint is Any:
        return _encode_any
    if hint in SCALARS:
        return None
    raise TypeError(f"no JSON conversion for the type {hint!r}")


@cache
def _decoder(hint: Any) -> Converter:
    """A function making a value of type `hint` from JSON, or None when the JSON is that value."""
    origin, args = _parts(hint)
    if dataclasses.is_dataclass(hint):
        fields = [(f.name, key, decode, _has_default(f)) for f, key, decode in _fields(hint, _decoder, "decode") if f.init]

        def decode_record(data: dict[str, Any]) -> Any:
            values = {}
            for name, key, decode, optional in fields:
                if key in data:
                    value = data[key]
                    values[name] = value if decode is None else decode(value)
                elif not optional:
                    raise KeyError(key)
            return hint(**values)

        return decode_record
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint
    if origin is typing.Union:
        tags = _tags(hint, args)
        if tags:
            decoders = [(tag, _decoder(member)) for tag, member in tags.items()]

            def decode_tagged(data: dict[str, Any]) -> Any:
                for tag, decode in decoders:
                    if tag in data:
                        return decode(data)
                raise KeyError(f"none of {', '.join(tags)}")

            return decode_tagged
        return _optional(_decoder(_only_member(hint, args)))
    if origin is list:
        item = _decoder(args[0]) if args else None
        return None if item is None else (lambda values: [item(v) for v in values])
    if origin is tuple:
        item = _decoder(args[0]) if args else None
        return lambda values: tuple(values if item is None else map(item, values))
    if origin is dict:
        value_decoder = _decoder(args[1]) if args else None
        return None if value_decoder is None else (lambda values: {k: value_decoder(v) for k, v in values.items()})
    if hint is Any or hint in SCALARS:
        return None
    raise TypeError(f"no JSON conversion for the type {hint!r}")


def _tags(hint: Any, args: tuple[Any, ...]) -> dict[str, type]:
    """{JSON name of the first field: member} of a union of dataclasses, or {} for `X | None`."""
    if not all(dataclasses.is_dataclass(member) for member in args):
        return {}
    firsts = [_fields(member, lambda _: None)[0] for member in args]
    tags = {key: member for (f, key, _), member in zip(firsts, args) if not _has_default(f)}
    if len(tags) != len(args):
        raise TypeError(f"no JSON conversion for the union {hint!r}: each member needs its own required first field")
    return tags


def _only_member(hint: Any, args: tuple[Any, ...]) -> Any:
    """X of `X | None`: the one union JSON tells apart without a tag."""
    members = [a for a in args if a is not type(None)]
    if len(members) != 1:
        raise TypeError(f"no JSON conversion for the union {hint!r}: only `X | None` is supported")
    return members[0]


def _optional(convert: Converter) -> Converter:
    return None if convert is None else (lambda value: None if value is None else convert(value))


def _has_default(f: dataclasses.Field) -> bool:
    return f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
