"""Chunking per language: the definitions each query file marks, with qualified names,
line ranges, signatures and docstrings; plus Markdown sections and plain windows."""

from __future__ import annotations

import hashlib
import textwrap

import pytest

from refdoc_site.core.config import ChunkSettings
from refdoc_site.core.records import Chunk, ChunkKind, SourceFile
from refdoc_site.indexing.chunk import chunk_file
from refdoc_site.languages import definition_query, language_named

# --- helpers ----------------------------------------------------------------------------


def source(text: str) -> str:
    """Inline source: dedented, without the leading newline of the triple quote."""
    return textwrap.dedent(text).lstrip("\n")


def chunk(path: str, language: str, text: str, settings: ChunkSettings | None = None):
    data = text.encode("utf-8")
    file = SourceFile(path, language, len(data), hashlib.sha256(data).hexdigest())
    return chunk_file(file, text, settings or ChunkSettings())


def outline(chunks: list[Chunk]) -> list[tuple[str, str, int, int]]:
    return [(c.kind.value, c.symbol, c.start_line, c.end_line) for c in chunks]


def by_symbol(chunks: list[Chunk]) -> dict[str, Chunk]:
    found: dict[str, Chunk] = {}
    for c in chunks:
        found.setdefault(c.symbol, c)
    return found


def signatures(chunks: list[Chunk]) -> dict[str, str]:
    return {c.symbol: c.signature for c in chunks if c.kind is not ChunkKind.MODULE}


def assert_windows(parts: list[Chunk], first_line: int, last_line: int) -> None:
    """Parts of one split: numbered 1.., increasing, overlapping, covering the range."""
    assert len(parts) >= 2
    assert [p.part for p in parts] == list(range(1, len(parts) + 1))
    assert len({p.symbol for p in parts}) == 1
    assert len({p.id for p in parts}) == len(parts)
    assert parts[0].start_line == first_line
    assert parts[-1].end_line == last_line
    for before, after in zip(parts, parts[1:]):
        assert before.start_line < after.start_line
        assert before.end_line < after.end_line
        assert after.start_line <= before.end_line, "windows should overlap"


@pytest.mark.parametrize(
    "language",
    ["python", "javascript", "typescript", "tsx", "go", "rust", "java", "csharp", "c", "cpp"],
)
def test_every_code_language_has_a_query(language):
    assert definition_query(language_named(language)) is not None


def assert_folded(chunks: list[Chunk], owner: str, nested: str) -> None:
    """A function nested in a function is no chunk of its own: it stays in its owner."""
    assert not [c for c in chunks if c.symbol.endswith(nested)], outline(chunks)
    assert nested in by_symbol(chunks)[owner].content


# --- Python -----------------------------------------------------------------------------

PYTHON = source(
    '''
"""Geometry helpers."""
import math

SCALE = 2  # applied by every area computation in this module


@cache
def area(shape: "Shape", scale: float = 1.0) -> float:
    """Area of a shape."""

    def square(x):
        return x * x

    return square(shape.side) * scale


class Shape:
    """A shape."""

    class Unit:
        def convert(self, value: int) -> int:
            return value

    def __init__(self, side: float) -> None:
        self.side = side

    async def grow(self, by: float = 1.0) -> "Shape":
        """A bigger copy."""
        return Shape(self.side + by)
'''
)


def test_python():
    chunks = chunk("pkg/geo.py", "python", PYTHON)
    assert outline(chunks) == [
        ("module", "(module)", 1, 4),
        ("function", "area", 7, 14),
        ("class", "Shape", 17, 29),
        ("class", "Shape.Unit", 20, 22),
        ("method", "Shape.Unit.convert", 21, 22),
        ("method", "Shape.__init__", 24, 25),
        ("method", "Shape.grow", 27, 29),
    ]
    sigs = signatures(chunks)
    assert sigs["area"] == 'def area(shape: "Shape", scale: float = 1.0) -> float'
    assert sigs["Shape.grow"] == 'async def grow(self, by: float = 1.0) -> "Shape"'
    assert sigs["Shape.Unit.convert"] == "def convert(self, value: int) -> int"
    found = by_symbol(chunks)
    assert found["(module)"].docstring == "Geometry helpers."
    assert found["area"].docstring == "Area of a shape."
    assert found["Shape"].docstring == "A shape."
    assert found["Shape.grow"].docstring == "A bigger copy."
    assert found["Shape.grow"].parent == "Shape"
    assert found["Shape.Unit.convert"].parent == "Shape.Unit"
    assert found["area"].content.startswith("@cache\ndef area(")
    assert_folded(chunks, "area", "square")
    # The class chunk shows its members' first lines, not their bodies.
    shape = found["Shape"].content
    assert "def __init__(self, side: float) -> None:" in shape
    assert "self.side = side" not in shape
    assert "..." in shape
    assert {c.id for c in chunks} == {f"pkg/geo.py#{c.symbol}" for c in chunks}


# --- JavaScript -------------------------------------------------------------------------

JAVASCRIPT = source(
    """
'use strict';

/**
 * Send a response.
 */
res.send = function send(body) {
  function inner() {}
  return this;
};

Router.prototype.route = function (path) {
  return path;
};

defineGetter(req, 'ip', function ip() {
  return this.socket.remoteAddress;
});

export function createApp(options = {}) {
  return new App(options);
}

const handler = async (req, res) => {
  res.end();
};

class App extends Base {
  constructor(opts) {
    super(opts);
  }

  listen(port, cb) {
    return port;
  }
}
"""
)


def test_javascript():
    chunks = chunk("lib/app.js", "javascript", JAVASCRIPT)
    assert outline(chunks) == [
        ("method", "res.send", 6, 9),
        ("method", "Router.route", 11, 13),
        ("method", "req.ip", 15, 17),
        ("function", "createApp", 19, 21),
        ("function", "handler", 23, 25),
        ("class", "App", 27, 35),
        ("method", "App.constructor", 28, 30),
        ("method", "App.listen", 32, 34),
    ]
    sigs = signatures(chunks)
    assert sigs["res.send"] == "res.send = function send(body)"
    assert sigs["createApp"] == "function createApp(options = {})"
    assert sigs["App"] == "class App extends Base"
    assert sigs["App.listen"] == "listen(port, cb)"
    found = by_symbol(chunks)
    assert found["res.send"].docstring == "Send a response."
    assert found["res.send"].name == "send"
    assert found["App.listen"].parent == "App"
    assert_folded(chunks, "res.send", "inner")


JSDOC_GAPS = source(
    """
    /**
     * The request prototype (a file header, not a docstring).
     */

    module.exports = {
      /**
       * Parse the X-Forwarded-For list when proxies are trusted.
       */

      get ips() {
        return this.header.split(",");
      },

      // a section comment, two lines above

      get ip() {
        return this.ips[0];
      },
    };
    """
)


def test_a_jsdoc_block_one_blank_line_above_still_documents_the_member():
    chunks = chunk("lib/request.js", "javascript", JSDOC_GAPS)
    found = by_symbol(chunks)
    assert found["ips"].docstring == "Parse the X-Forwarded-For list when proxies are trusted."
    assert found["ip"].docstring == ""  # a plain line comment with a gap stays apart
    module = [c for c in chunks if c.kind is ChunkKind.MODULE]
    assert all("X-Forwarded-For" not in c.content for c in module)


# --- TypeScript and TSX -----------------------------------------------------------------

TYPESCRIPT = source(
    """
import { Closeable } from "./io";

export interface Options {
  port: number;
  start(): void;
}

/** Builds a server. */
export async function createServer(opts: Options, retries = 3): Promise<Server> {
  const check = (n: number): boolean => n > 0;
  return new Server(opts);
}

export abstract class Server<T = unknown> implements Closeable {
  constructor(private readonly opts: Options) {}

  /** Stops listening. */
  @logged()
  async close(force?: boolean): Promise<void> {}
}

export const route = <T>(path: string): Route<T> => ({ path });

export enum Mode {
  Dev,
  Prod,
}
"""
)


def test_typescript():
    chunks = chunk("src/server.ts", "typescript", TYPESCRIPT)
    assert outline(chunks) == [
        ("class", "Options", 3, 6),
        ("function", "createServer", 9, 12),
        ("class", "Server", 14, 20),
        ("method", "Server.constructor", 15, 15),
        ("method", "Server.close", 19, 19),
        ("function", "route", 22, 22),
        ("class", "Mode", 24, 27),
    ]
    sigs = signatures(chunks)
    assert sigs["createServer"] == (
        "async function createServer(opts: Options, retries = 3): Promise<Server>"
    )
    assert sigs["Server"] == "abstract class Server<T = unknown> implements Closeable"
    assert sigs["Server.constructor"] == "constructor(private readonly opts: Options)"
    assert sigs["Server.close"] == "async close(force?: boolean): Promise<void>"
    assert sigs["route"] == "route = <T>(path: string): Route<T>"
    found = by_symbol(chunks)
    assert found["createServer"].docstring == "Builds a server."
    # A member decorator stands between the method and its doc comment.
    assert found["Server.close"].docstring == "Stops listening."
    assert_folded(chunks, "createServer", "check")


TSX = source(
    """
import React from "react";

type Props = { name: string };

/** Greets someone. */
export function Greeting({ name }: Props): JSX.Element {
  const onClick = () => alert(name);
  return <button onClick={onClick}>Hello {name}</button>;
}

export const Card = ({ title }: { title: string }) => {
  return <div className="card">{title}</div>;
};

export default class Panel extends React.Component<Props> {
  render() {
    return <section>{this.props.name}</section>;
  }
}
"""
)


def test_tsx():
    chunks = chunk("src/Greeting.tsx", "tsx", TSX)
    assert outline(chunks) == [
        ("module", "(module)", 1, 3),
        ("function", "Greeting", 6, 9),
        ("function", "Card", 11, 13),
        ("class", "Panel", 15, 19),
        ("method", "Panel.render", 16, 18),
    ]
    sigs = signatures(chunks)
    assert sigs["Greeting"] == "function Greeting({ name }: Props): JSX.Element"
    assert sigs["Card"] == "Card = ({ title }: { title: string })"
    assert sigs["Panel"] == "class Panel extends React.Component<Props>"
    assert by_symbol(chunks)["Greeting"].docstring == "Greets someone."
    assert_folded(chunks, "Greeting", "onClick")


# --- Go ---------------------------------------------------------------------------------

GO = source(
    """
// Package geo does geometry.
package geo

import "fmt"

// Shape is anything with an area.
type Shape interface {
\tArea() float64
}

type Rect struct {
\tW, H float64
}

// Area returns the area.
// It never fails.
func (r *Rect) Area() float64 {
\tside := func() float64 { return r.W }
\treturn side() * r.H
}

func (r Rect) String() string { return fmt.Sprint(r.W) }

func (s *Stack[T]) Push(v T) {
\ts.items = append(s.items, v)
}

func Map[T, U any](xs []T, f func(T) U) []U {
\treturn nil
}
"""
)


def test_go():
    chunks = chunk("geo/geo.go", "go", GO)
    assert outline(chunks) == [
        ("module", "(module)", 1, 4),
        ("class", "Shape", 7, 9),
        ("class", "Rect", 11, 13),
        ("method", "Rect.Area", 17, 20),
        ("method", "Rect.String", 22, 22),
        ("method", "Stack.Push", 24, 26),
        ("function", "Map", 28, 30),
    ]
    sigs = signatures(chunks)
    assert sigs["Rect.Area"] == "func (r *Rect) Area() float64"
    assert sigs["Stack.Push"] == "func (s *Stack[T]) Push(v T)"
    assert sigs["Map"] == "func Map[T, U any](xs []T, f func(T) U) []U"
    found = by_symbol(chunks)
    assert found["(module)"].docstring == "Package geo does geometry."
    assert found["Shape"].docstring == "Shape is anything with an area."
    assert found["Rect.Area"].docstring == "Area returns the area.\nIt never fails."
    assert "side := func()" in found["Rect.Area"].content


# --- Rust -------------------------------------------------------------------------------

RUST = source(
    """
//! Geometry.
use std::fmt;

/// A point in space.
#[derive(Debug, Clone)]
pub struct Point<T> {
    x: T,
    y: T,
}

pub enum Shape {
    Circle(f64),
    Square(f64),
}

pub trait Area {
    /// The area.
    fn area(&self) -> f64;
    fn name(&self) -> String {
        String::from("shape")
    }
}

impl<T: Copy> Point<T> {
    /// Makes a point.
    pub fn new(x: T, y: T) -> Self {
        fn check() {}
        Point { x, y }
    }
}

impl Area for Shape {
    fn area(&self) -> f64 {
        0.0
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "shape")
    }
}

#[cfg(test)]
pub fn parse<'a>(input: &'a str) -> Result<Shape, String> {
    Err(input.to_string())
}

/// Detached: a blank line separates it from the struct.

pub struct Unit;
pub struct Pair(pub i32, pub i32);
"""
)


def test_rust():
    chunks = chunk("src/geo.rs", "rust", RUST)
    assert outline(chunks) == [
        ("module", "(module)", 1, 49),
        ("class", "Point", 6, 9),
        ("class", "Shape", 11, 14),
        ("class", "Area", 16, 22),
        ("method", "Area.area", 18, 18),
        ("method", "Area.name", 19, 21),
        ("method", "Point.new", 26, 29),
        ("method", "Shape.area", 33, 35),
        ("method", "Shape.fmt", 39, 41),
        ("function", "parse", 45, 47),
        ("class", "Unit", 51, 51),
        ("class", "Pair", 52, 52),
    ]
    sigs = signatures(chunks)
    assert sigs["Point"] == "pub struct Point<T>"
    assert sigs["Area.area"] == "fn area(&self) -> f64"
    assert sigs["Point.new"] == "pub fn new(x: T, y: T) -> Self"
    assert sigs["Shape.fmt"] == "impl fmt::Display for Shape: fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result"  # the trait it implements
    assert sigs["parse"] == "pub fn parse<'a>(input: &'a str) -> Result<Shape, String>"
    assert sigs["Unit"] == "pub struct Unit"
    assert sigs["Pair"] == "pub struct Pair(pub i32, pub i32)"
    found = by_symbol(chunks)
    assert found["(module)"].docstring == "Geometry."
    # `///` above `#[derive]` still documents the struct.
    assert found["Point"].docstring == "A point in space."
    assert found["Area.area"].docstring == "The area."
    assert found["Point.new"].docstring == "Makes a point."
    assert found["Unit"].docstring == ""
    assert found["Point.new"].parent == "Point"
    assert found["Shape.fmt"].parent == "Shape"
    assert_folded(chunks, "Point.new", "check")
    # Attributes belong to their item, not to the module leftovers.
    assert "#[cfg(test)]" not in found["(module)"].content
    assert "impl fmt::Display for Shape {" in found["(module)"].content


# --- Java -------------------------------------------------------------------------------

JAVA = source(
    """
package com.example.geo;

import java.util.List;

/**
 * A shape with an area.
 */
@Deprecated
public class Shape<T> extends Base implements Area {
    private final int side;

    /** Builds a shape. */
    @Inject
    public Shape(int side) {
        this.side = side;
    }

    @Override
    public double area() {
        Runnable r = () -> {};
        return side * side;
    }

    public static <U> List<U> of(U item, int count) throws IllegalStateException {
        return null;
    }

    static class Builder {
        Shape<?> build() {
            return new Shape<>(1);
        }
    }
}

interface Area {
    double area();
}

enum Color {
    RED, GREEN;

    Color() {}

    String lower() { return name().toLowerCase(); }
}

record Pair(int a, int b) {
    int sum() { return a + b; }
}
"""
)


def test_java():
    chunks = chunk("src/main/java/com/example/geo/Shape.java", "java", JAVA)
    assert outline(chunks) == [
        ("module", "(module)", 1, 3),
        ("class", "Shape", 8, 33),
        ("method", "Shape.Shape", 13, 16),
        ("method", "Shape.area", 18, 22),
        ("method", "Shape.of", 24, 26),
        ("class", "Shape.Builder", 28, 32),
        ("method", "Shape.Builder.build", 29, 31),
        ("class", "Area", 35, 37),
        ("method", "Area.area", 36, 36),
        ("class", "Color", 39, 45),
        ("method", "Color.Color", 42, 42),
        ("method", "Color.lower", 44, 44),
        ("class", "Pair", 47, 49),
        ("method", "Pair.sum", 48, 48),
    ]
    sigs = signatures(chunks)
    assert sigs["Shape"] == "@Deprecated public class Shape<T> extends Base implements Area"
    assert sigs["Shape.Shape"] == "@Inject public Shape(int side)"
    assert sigs["Shape.of"] == (
        "public static <U> List<U> of(U item, int count) throws IllegalStateException"
    )
    assert sigs["Shape.Builder.build"] == "Shape<?> build()"
    assert sigs["Area.area"] == "double area()"
    assert sigs["Pair"] == "record Pair(int a, int b)"
    found = by_symbol(chunks)
    assert found["Shape"].docstring == "A shape with an area."
    assert found["Shape.Shape"].docstring == "Builds a shape."
    assert "Runnable r = () -> {};" in found["Shape.area"].content
    assert "this.side = side;" not in found["Shape"].content


# --- C# ---------------------------------------------------------------------------------

CSHARP = source(
    """
using System;

namespace Geo.Shapes
{
    /// <summary>A shape.</summary>
    [Serializable]
    public class Shape<T> : Base where T : class
    {
        /// <summary>Builds a shape.</summary>
        public Shape(int side) : base(side) { }

        [Obsolete("use Area")]
        public async Task<double> ComputeAsync(int n, string unit = "m")
        {
            int Local() => 1;
            return Local();
        }

        public int Twice(int a) => a * 2;

        public class Builder
        {
            public Shape<T> Build() { return null; }
        }
    }

    public interface IArea
    {
        double Area();
    }

    public struct Pt
    {
        public Pt(int x) { X = x; }
        public int X;
    }

    public enum Color { Red, Green }

    public record Person(string Name)
    {
        public string Greet() => "hi " + Name;
    }
}
"""
)


def test_csharp():
    chunks = chunk("src/Shape.cs", "csharp", CSHARP)
    assert outline(chunks) == [
        ("class", "Shape", 6, 25),
        ("method", "Shape.Shape", 10, 10),
        ("method", "Shape.ComputeAsync", 12, 17),
        ("method", "Shape.Twice", 19, 19),
        ("class", "Shape.Builder", 21, 24),
        ("method", "Shape.Builder.Build", 23, 23),
        ("class", "IArea", 27, 30),
        ("method", "IArea.Area", 29, 29),
        ("class", "Pt", 32, 36),
        ("method", "Pt.Pt", 34, 34),
        ("class", "Color", 38, 38),
        ("class", "Person", 40, 43),
        ("method", "Person.Greet", 42, 42),
    ]
    sigs = signatures(chunks)
    assert sigs["Shape"] == "[Serializable] public class Shape<T> : Base where T : class"
    assert sigs["Shape.ComputeAsync"] == (
        '[Obsolete("use Area")] public async Task<double> ComputeAsync(int n, string unit = "m")'
    )
    assert sigs["Shape.Twice"] == "public int Twice(int a)"
    assert sigs["IArea.Area"] == "double Area()"
    assert sigs["Person"] == "public record Person(string Name)"
    found = by_symbol(chunks)
    assert found["Shape"].docstring == "A shape."  # the XML documentation read, not shown raw
    assert found["Shape.Shape"].docstring == "Builds a shape."
    assert "int Local() => 1;" in found["Shape.ComputeAsync"].content


# --- C ----------------------------------------------------------------------------------

C = source(
    r"""
#include <stdio.h>

/* A point. */
struct point {
    int x;
    int y;
};

typedef struct {
    int w;
    int h;
} size2;

// Adds two numbers.
// Overflow is undefined.
static int add(int a, int b)
{
    return a + b;
}

char *dup_str(const char *s) { return NULL; }

char **split(char *s, int (*keep)(int)) { return NULL; }

int proto(int a);

int main(int argc, char **argv)
{
    printf("%d\n", add(1, 2));
    return 0;
}
"""
)


def test_c():
    chunks = chunk("src/geo.c", "c", C)
    assert outline(chunks) == [
        ("module", "(module)", 1, 25),
        ("class", "point", 4, 7),
        ("class", "size2", 9, 12),
        ("function", "add", 16, 19),
        ("function", "dup_str", 21, 21),
        ("function", "split", 23, 23),
        ("function", "main", 27, 31),
    ]
    sigs = signatures(chunks)
    assert sigs["add"] == "static int add(int a, int b)"
    assert sigs["dup_str"] == "char *dup_str(const char *s)"
    assert sigs["split"] == "char **split(char *s, int (*keep)(int))"
    assert sigs["main"] == "int main(int argc, char **argv)"
    assert sigs["point"] == "struct point"
    found = by_symbol(chunks)
    assert found["point"].docstring == "A point."
    assert found["add"].docstring == "Adds two numbers.\nOverflow is undefined."
    assert "int proto(int a);" in found["(module)"].content


# --- C++ --------------------------------------------------------------------------------

CPP = source(
    """
#include <vector>

namespace geo {

/// A shape.
class Shape : public Base {
public:
    explicit Shape(int w);
    virtual ~Shape() = default;

    /// The area.
    virtual double area() const override { return w_ * w_; }

    template <typename T>
    T as() const { return T(w_); }

private:
    struct Cache {
        void clear() {}
    };
    int w_;
};

Shape::Shape(int w) : w_(w) {}

std::vector<int> &Shape::items() {
    static std::vector<int> v;
    return v;
}

template <typename T>
T max_of(T a, T b) {
    auto pick = [](T x) { return x; };
    return a > b ? pick(a) : pick(b);
}

template <typename T>
void Box<T>::put(const T &item) {}

}  // namespace geo

int main() { return 0; }
"""
)


def test_cpp():
    chunks = chunk("src/geo.cpp", "cpp", CPP)
    assert outline(chunks) == [
        ("module", "(module)", 1, 40),
        ("class", "Shape", 6, 22),
        ("method", "Shape.area", 12, 12),
        ("method", "Shape.as", 14, 15),
        ("class", "Shape.Cache", 18, 20),
        ("method", "Shape.Cache.clear", 19, 19),
        ("method", "Shape.Shape", 24, 24),
        ("method", "Shape.items", 26, 29),
        ("function", "max_of", 31, 35),
        ("method", "Box.put", 37, 38),
        ("function", "main", 42, 42),
    ]
    sigs = signatures(chunks)
    assert sigs["Shape"] == "class Shape : public Base"
    assert sigs["Shape.area"] == "virtual double area() const override"
    assert sigs["Shape.Shape"] == "Shape::Shape(int w) : w_(w)"
    assert sigs["Shape.items"] == "std::vector<int> &Shape::items()"
    assert sigs["max_of"] == "T max_of(T a, T b)"
    assert sigs["Box.put"] == "void Box<T>::put(const T &item)"
    found = by_symbol(chunks)
    assert found["Shape"].docstring == "A shape."
    assert found["Shape.area"].docstring == "The area."
    assert found["Shape.Cache.clear"].parent == "Shape.Cache"
    assert found["max_of"].content.startswith("template <typename T>\nT max_of(")
    assert "auto pick = [](T x)" in found["max_of"].content
    # Namespaces lend no prefix.
    assert not [c for c in chunks if c.symbol.startswith("geo")]


# --- oversized definitions --------------------------------------------------------------

SMALL = ChunkSettings(size=40, overlap=5)


def test_oversized_python_function_is_split_into_overlapping_windows():
    steps = "\n".join(f"    v{i} = {i}" for i in range(40))
    text = f'import os\n\n\ndef big(n: int) -> int:\n    """Many steps."""\n{steps}\n    return n\n'
    chunks = chunk("big.py", "python", text, SMALL)
    parts = [c for c in chunks if c.symbol == "big"]
    assert_windows(parts, first_line=4, last_line=46)
    assert {(p.kind, p.name, p.signature, p.docstring) for p in parts} == {
        (ChunkKind.FUNCTION, "big", "def big(n: int) -> int", "Many steps.")
    }
    assert [p.id for p in parts] == [f"big.py#big~{p.part}" for p in parts]
    assert all(p.tokens <= 40 for p in parts)
    lines = text.splitlines()
    for p in parts:
        assert p.content == "\n".join(lines[p.start_line - 1 : p.end_line])


def test_oversized_method_keeps_its_qualified_name_in_every_part():
    steps = "\n".join(f"        let v{i} = {i};" for i in range(30))
    head = "struct S;\n\nimpl S {\n    pub fn run(&self) -> u32 {\n"
    text = head + steps + "\n        0\n    }\n}\n"
    chunks = chunk("src/s.rs", "rust", text, SMALL)
    parts = [c for c in chunks if c.symbol == "S.run"]
    assert_windows(parts, first_line=4, last_line=36)
    assert {(p.kind, p.parent, p.signature) for p in parts} == {
        (ChunkKind.METHOD, "S", "pub fn run(&self) -> u32")
    }


# --- Markdown and files without a grammar -----------------------------------------------

MARKDOWN = source(
    """
Intro before any heading.

# Guide

Welcome.

## Install

Run this:

```sh
# not a heading
pip install refdoc-site
```

### From source

Clone it.

## Usage

Use it.

# API

Reference.
"""
)


def test_markdown_is_split_at_headings_outside_fences():
    chunks = chunk("docs/guide.md", "markdown", MARKDOWN)
    assert outline(chunks) == [
        ("section", "guide.md", 1, 2),
        ("section", "Guide", 3, 6),
        ("section", "Guide > Install", 7, 15),
        ("section", "Guide > Install > From source", 16, 19),
        ("section", "Guide > Usage", 20, 23),
        ("section", "API", 24, 26),
    ]
    found = by_symbol(chunks)
    assert "# not a heading" in found["Guide > Install"].content
    assert found["Guide > Install"].name == "Install"
    assert found["Guide > Usage"].signature == "Guide > Usage"
    assert all(c.part == 0 for c in chunks)


CHANGELOG = """---
title: front matter
---

4.18.2 / 2022-10-08
===================

  * Fix regression routing a large stack in a single route

4.18.1 / 2022-04-29
===================

  * Fix hanging on large stack of sync routes

Upgrading
---------

- a list item
---

| a | b |
|---|---|
"""


def test_markdown_setext_headings_split_a_changelog_and_front_matter_is_no_heading():
    """Changelogs underline their versions (`===`, `---`): each version is its own section;
    a rule under a list item or a table, and front matter's closing `---`, are not headings."""
    chunks = chunk("History.md", "markdown", CHANGELOG)
    assert outline(chunks) == [
        ("section", "History.md", 1, 4),
        ("section", "4.18.2 / 2022-10-08", 5, 9),
        ("section", "4.18.1 / 2022-04-29", 10, 14),
        ("section", "4.18.1 / 2022-04-29 > Upgrading", 15, 22),
    ]
    assert by_symbol(chunks)["4.18.2 / 2022-10-08"].name == "4.18.2 / 2022-10-08"


def test_long_markdown_section_is_windowed():
    body = "\n\n".join(f"Paragraph {i} says one thing." for i in range(20))
    chunks = chunk("notes.md", "markdown", f"# Notes\n\n{body}\n", SMALL)
    assert {c.symbol for c in chunks} == {"Notes"}
    assert_windows(chunks, first_line=1, last_line=41)


def test_file_without_grammar_becomes_windows_cut_at_blank_lines():
    methods = "\n\n".join(f"  def step{i}(a, b)\n    a + b\n  end" for i in range(12))
    text = f"class Steps\n{methods}\nend\n"
    lines = text.splitlines()
    chunks = chunk("lib/steps.rb", "ruby", text, SMALL)
    assert all(c.kind is ChunkKind.WINDOW and c.symbol == "steps.rb" for c in chunks)
    assert_windows(chunks, first_line=1, last_line=len(lines))
    for c in chunks[:-1]:
        assert lines[c.end_line - 1] == "", (c.start_line, c.end_line)
    for c in chunks:
        assert c.content == "\n".join(lines[c.start_line - 1 : c.end_line])
        assert c.signature == f"steps.rb lines {c.start_line}–{c.end_line}"


def test_small_file_without_grammar_is_one_window():
    chunks = chunk("lib/one.rb", "ruby", "def one\n  1\nend\n")
    assert outline(chunks) == [("window", "one.rb", 1, 3)]
    assert chunks[0].part == 0 and chunks[0].id == "lib/one.rb#one.rb"


GO_WITH_LICENCE = source(
    """
    // Copyright 2013-2023 The Example Authors
    //
    // Licensed under the Apache License, Version 2.0 (the "License");
    // you may not use this file except in compliance with the License.

    // Package shapes measures areas of plane figures for the drawing tools.
    package shapes

    import "math"

    var unit = 1.0
    var scale = 2.0
    var names = []string{"circle", "square", "triangle", "hexagon"}

    func Circle(r float64) float64 {
        return math.Pi * r * r
    }
    """
)


def test_a_licence_header_is_not_the_file_description():
    chunks = chunk("shapes/shapes.go", "go", GO_WITH_LICENCE)
    module = next(c for c in chunks if c.kind is ChunkKind.MODULE)
    assert module.docstring == "Package shapes measures areas of plane figures for the drawing tools."
