"""The component maps: each view of the component hierarchy drawn as an SVG laid out at build
time by Graphviz, with no script at all, or, where Graphviz is not installed, as a list.

Measured on flask (benchmarks/browser_bench.py): the Mermaid map cost the home page its
script (1.1 MB) and mobile time to interactive, and drew 5 px labels; an inline SVG is a
few kilobytes, drawn at its natural size (labels `FONT_PX` on every screen, a wide map
scrolls sideways in its frame), and each node is a plain `<a href>` to its page.

No name from the repository reaches Graphviz: it lays out boxes of a computed size named
`n0`, `n1`…, and the labels are written into the SVG here, escaped as XML text. Every view
of a render goes to one `dot` process (`dot -Tplain` reads graph after graph).
"""

from __future__ import annotations

import html
import posixpath
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from ..core.pages import component_page, relative_page_url
from ..core.records import Component, ComponentKind, Components
from ..core.text import one_line

FONT_PX = 14
"""Label size on screen: the SVG is never scaled, so this is what a reader sees (≥ 11 px)."""
CHAR_PX = 8.0
"""A generous average advance of one label character at FONT_PX (sans-serif)."""
BOX_HEIGHT_PX = 30
BOX_PADDING_PX = 20
LABEL_CHARS = 36
"""Longer labels are cut with an ellipsis; the whole name is the node's tooltip."""
ARROW_PX = 9.0
"""The gap Graphviz leaves before a node for the arrowhead (its default, less the pen)."""
DOT_TIMEOUT_S = 300
POINTS_PER_INCH = 72


@dataclass(frozen=True)
class MapNode:
    """One box of a view."""

    id: str
    label: str
    title: str
    """The tooltip: the component's full name."""
    url: str
    """The link to its page in Markdown (a `.md` path MkDocs rewrites and checks)."""
    href: str
    """The same page's served URL, for the SVG's raw HTML."""
    kind: ComponentKind
    opens: bool
    """Whether its page has a map of its own (drawn with a double border)."""


@dataclass(frozen=True)
class View:
    """The children of one component with the imports between them."""

    nodes: tuple[MapNode, ...]
    edges: tuple[tuple[int, int], ...]
    """(from, to) node indexes."""

    def uses(self, number: int) -> list[MapNode]:
        """The nodes node `number` imports from: the list that stands in for a drawing."""
        return [self.nodes[b] for a, b in self.edges if a == number]

    def key(self) -> str:
        """What the drawing depends on: a page's digest takes it in."""
        nodes = "\n".join(f"{n.label}\t{n.title}\t{n.url}\t{n.href}\t{n.kind.value}\t{n.opens}" for n in self.nodes)
        return nodes + "\n" + " ".join(f"{a}>{b}" for a, b in self.edges)


def view_of(
    components: Components,
    component_id: str,
    url: Callable[[str, str], str] | None = None,
    part_titles: Mapping[str, str] = {},
) -> View:
    """The view of a component's children, shown on the component's page; `url(target
    page, from page)` is the Markdown link between two pages (default: relative `.md`
    paths), `part_titles` names the parts in the page's language."""
    here = component_page(component_id)
    url = url or (lambda target, source: posixpath.relpath(target, posixpath.dirname(source) or "."))
    nodes = components.nodes
    children = [nodes[child] for child in nodes[component_id].children if child in nodes]
    labels = [part_titles.get(child.name, child.title) if child.kind is ComponentKind.PART else label for child, label in zip(children, _distinct_labels(children))]
    index = {child.id: number for number, child in enumerate(children)}
    shown = tuple(
        MapNode(
            child.id,
            labels[number],
            child.name if child.kind in (ComponentKind.MODULE, ComponentKind.FILE) else labels[number],
            url(component_page(child.id), here),
            relative_page_url(component_page(child.id), here),
            child.kind,
            len(child.children) > 1,
        )
        for number, child in enumerate(children)
    )
    edges = tuple(
        (index[child.id], index[target])
        for child in children
        for target in child.depends_on
        if target in index and target != child.id
    )
    return View(shown, edges)


def reduced(edges: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The edges a drawing shows, so that it reads top-down: the nodes ordered so that as
    few imports as possible point back up (Eades, Lin and Smyth's greedy order), those that
    do left out, and an import that a path of other arrows implies left out too (the
    transitive reduction of what remains; flask's files import each other 130 times)."""
    position = {node: number for number, node in enumerate(_greedy_order(edges))}
    kept = sorted({(a, b) for a, b in edges if position[a] < position[b]})
    for edge in list(kept):
        rest = [e for e in kept if e != edge]
        if _reaches(rest, edge[0], edge[1]):
            kept = rest
    return kept


def _greedy_order(edges: Sequence[tuple[int, int]]) -> list[int]:
    """The nodes of `edges` in an order most of them point forward along: sinks go last,
    sources first, else the node with most more imports out than in."""
    outs: dict[int, set[int]] = {}
    ins: dict[int, set[int]] = {}
    for a, b in edges:
        if a != b:
            outs.setdefault(a, set()).add(b)
            ins.setdefault(b, set()).add(a)
    left = set(outs) | set(ins)
    head: list[int] = []
    tail: list[int] = []

    def remove(node: int) -> None:
        left.discard(node)
        for other in outs.get(node, ()):
            ins[other].discard(node)
        for other in ins.get(node, ()):
            outs[other].discard(node)

    while left:
        sinks = sorted(n for n in left if not outs.get(n))
        sources = sorted(n for n in left if not ins.get(n))
        if sinks:
            tail.insert(0, sinks[0])
            remove(sinks[0])
        elif sources:
            head.append(sources[0])
            remove(sources[0])
        else:
            best = max(sorted(left), key=lambda n: len(outs.get(n, ())) - len(ins.get(n, ())))
            head.append(best)
            remove(best)
    return head + tail


def _reaches(edges: Sequence[tuple[int, int]], start: int, goal: int) -> bool:
    targets: dict[int, list[int]] = {}
    for a, b in edges:
        targets.setdefault(a, []).append(b)
    seen, stack = {start}, [start]
    while stack:
        for nxt in targets.get(stack.pop(), ()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False


def _distinct_labels(children: Sequence[Component]) -> list[str]:
    """Each child's title; titles shown twice in one view get the folder above them
    (express's two `index.js`)."""
    counts: dict[str, int] = {}
    for child in children:
        counts[child.title] = counts.get(child.title, 0) + 1
    labels = []
    for child in children:
        if counts[child.title] > 1 and child.kind in (ComponentKind.FILE, ComponentKind.MODULE) and "/" in child.name:
            labels.append("/".join(child.name.split("/")[-2:]))
        else:
            labels.append(child.title)
    return labels


@cache
def graphviz() -> str:
    """The `dot` command's version line, or "" where Graphviz is not installed."""
    dot = shutil.which("dot")
    if dot is None:
        return ""
    try:
        done = subprocess.run([dot, "-V"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return (done.stderr or done.stdout).strip() or "dot"


def draw_maps(views: Sequence[View], label: str, links_to_sources: bool = False) -> list[str]:
    """Each view as an HTML block for a Markdown page: an SVG when Graphviz runs, else ""
    (the page lists the nodes instead). `label` names the map for assistive technology;
    `links_to_sources`: the links name `.md` pages (for an engine that rewrites them)."""
    drawn = [""] * len(views)
    wanted = [number for number, view in enumerate(views) if len(view.nodes) > 1]
    layouts = _layouts([views[number] for number in wanted]) if wanted and graphviz() else []
    for number, layout in zip(wanted, layouts):
        if layout is not None:
            drawn[number] = _svg(views[number], layout, label, links_to_sources)
    return drawn


@dataclass
class _Layout:
    width: float
    height: float
    boxes: dict[int, tuple[float, float, float, float]]
    """Node index → centre x, centre y, width, height, in px with y downwards."""
    splines: list[tuple[int, int, list[tuple[float, float]]]]


def _dot_source(view: View) -> str:
    lines = [
        "digraph {",
        "graph [rankdir=TB, nodesep=0.2, ranksep=0.45];",
        f'node [shape=box, fixedsize=true, label="", height={BOX_HEIGHT_PX / POINTS_PER_INCH:.3f}];',
    ]
    for number, node in enumerate(view.nodes):
        width = (len(_cut(node.label)) * CHAR_PX + BOX_PADDING_PX) / POINTS_PER_INCH
        lines.append(f"n{number} [width={width:.3f}];")
    lines.extend(f"n{a} -> n{b};" for a, b in reduced(view.edges))
    lines.append("}")
    return "\n".join(lines)


def _layouts(views: Sequence[View]) -> list[_Layout | None]:
    """Every view laid out by one `dot -Tplain` run; None for each where it failed."""
    source = "\n".join(_dot_source(view) for view in views)
    try:
        done = subprocess.run(
            ["dot", "-Tplain"], input=source, capture_output=True, text=True, timeout=DOT_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return [None] * len(views)
    outputs = done.stdout.split("\nstop")
    layouts = [_parse_plain(text) for text in outputs[: len(views)]]
    return layouts + [None] * (len(views) - len(layouts))


def _parse_plain(text: str) -> _Layout | None:
    """Graphviz's plain output (inches, y upwards) in px with y downwards."""
    layout: _Layout | None = None
    for line in text.strip().splitlines():
        fields = line.split()
        if not fields:
            continue
        try:
            if fields[0] == "graph":
                layout = _Layout(float(fields[2]) * POINTS_PER_INCH, float(fields[3]) * POINTS_PER_INCH, {}, [])
            elif layout is None:
                continue
            elif fields[0] == "node":
                x, y, w, h = (float(value) * POINTS_PER_INCH for value in fields[2:6])
                layout.boxes[int(fields[1][1:])] = (x, layout.height - y, w, h)
            elif fields[0] == "edge":
                count = int(fields[3])
                values = [float(value) * POINTS_PER_INCH for value in fields[4 : 4 + 2 * count]]
                points = [(values[i], layout.height - values[i + 1]) for i in range(0, len(values), 2)]
                layout.splines.append((int(fields[1][1:]), int(fields[2][1:]), points))
        except (ValueError, IndexError):
            return None
    return layout


MARGIN_PX = 4
STYLE = (
    ".refdoc-map{overflow-x:auto;margin:1em 0}"
    ".refdoc-map svg{display:block;max-width:none;font-family:var(--md-text-font-family,sans-serif)}"
    ".refdoc-map .e{fill:none;stroke:var(--md-default-fg-color--light,#777);stroke-width:1}"
    ".refdoc-map .h{fill:var(--md-default-fg-color--light,#777)}"
    ".refdoc-map rect{fill:var(--md-default-bg-color,#fff);stroke:var(--md-typeset-a-color,#3f51b5);stroke-width:1.2}"
    ".refdoc-map .o rect{stroke-width:3}"
    ".refdoc-map .p rect{stroke-dasharray:4 3}"
    ".refdoc-map text{fill:var(--md-default-fg-color,#222);font-size:" + str(FONT_PX) + "px}"
    ".refdoc-map a:hover rect,.refdoc-map a:focus rect{fill:var(--md-accent-fg-color--transparent,#eef)}"
)


def _svg(view: View, layout: _Layout, label: str, links_to_sources: bool = False) -> str:
    width = layout.width + 2 * MARGIN_PX
    height = layout.height + 2 * MARGIN_PX
    parts = [
        f'<div class="refdoc-map"><svg xmlns="http://www.w3.org/2000/svg" role="group" aria-label="{_xml(label)}"'
        f' width="{width:.0f}" height="{height:.0f}" viewBox="{-MARGIN_PX} {-MARGIN_PX} {width:.0f} {height:.0f}">'
        f"<style>{STYLE}</style>"
    ]
    for _, _, points in layout.splines:
        parts.append(_edge(points))
    for number, node in enumerate(view.nodes):
        box = layout.boxes.get(number)
        if box is None:
            continue
        x, y, w, h = box
        classes = " ".join(c for c in ("o" if node.opens else "", "p" if node.kind is ComponentKind.PART else "") if c)
        shown = _cut(node.label)
        parts.append(
            f'<a href="{_xml(node.url if links_to_sources else node.href)}"{f" class={_quoted(classes)}" if classes else ""}>'
            f"<title>{_xml(node.title)}</title>"
            f'<rect x="{x - w / 2:.1f}" y="{y - h / 2:.1f}" width="{w:.1f}" height="{h:.1f}" rx="4"/>'
            f'<text x="{x:.1f}" y="{y + FONT_PX * 0.35:.1f}" text-anchor="middle">{_xml(shown)}</text></a>'
        )
    parts.append("</svg></div>")
    return "".join(parts)


CHAR_WIDTH = 0.6
"""A label's width per character, in font sizes: what the chain of a flow is laid out by."""
STEP_GAP_PX = 28


def chain_svg(labels: Sequence[str], label: str) -> str:
    """Steps drawn as boxes in a row joined by arrows (an overview's flow): laid out here,
    with no Graphviz and no script, styled like the maps."""
    shown = [_cut(one_line(text)) for text in labels]
    widths = [len(text) * FONT_PX * CHAR_WIDTH + BOX_PADDING_PX for text in shown]
    lefts = [sum(widths[:i]) + STEP_GAP_PX * i for i in range(len(widths))]
    width = (lefts[-1] + widths[-1] if widths else 0) + 2 * MARGIN_PX
    height = BOX_HEIGHT_PX + 2 * MARGIN_PX
    middle = BOX_HEIGHT_PX / 2
    parts = [
        f'<div class="refdoc-map"><svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{_xml(label)}"'
        f' width="{width:.0f}" height="{height:.0f}" viewBox="{-MARGIN_PX} {-MARGIN_PX} {width:.0f} {height:.0f}">'
        f"<style>{STYLE}</style>"
    ]
    for index, (text, left, box) in enumerate(zip(shown, lefts, widths)):
        if index:
            parts.append(_edge([(lefts[index - 1] + widths[index - 1], middle), (left - ARROW_PX, middle)]))
        parts.append(
            f'<g><title>{_xml(labels[index])}</title><rect x="{left:.1f}" y="0" width="{box:.1f}" height="{BOX_HEIGHT_PX}" rx="4"/>'
            f'<text x="{left + box / 2:.1f}" y="{middle + FONT_PX * 0.35:.1f}" text-anchor="middle">{_xml(text)}</text></g>'
        )
    parts.append("</svg></div>")
    return "".join(parts)


def _edge(points: list[tuple[float, float]]) -> str:
    """A spline from Graphviz's B-spline control points, and its arrowhead."""
    if len(points) < 2:
        return ""
    path = f"M{points[0][0]:.1f},{points[0][1]:.1f}"
    for i in range(1, len(points) - 2, 3):
        (x1, y1), (x2, y2), (x3, y3) = points[i : i + 3]
        path += f"C{x1:.1f},{y1:.1f} {x2:.1f},{y2:.1f} {x3:.1f},{y3:.1f}"
    (px, py), (ex, ey) = points[-2], points[-1]
    length = max(((ex - px) ** 2 + (ey - py) ** 2) ** 0.5, 1e-6)
    ux, uy = (ex - px) / length, (ey - py) / length
    tip = (ex + ux * ARROW_PX, ey + uy * ARROW_PX)
    left = (ex - uy * 3.5, ey + ux * 3.5)
    right = (ex + uy * 3.5, ey - ux * 3.5)
    head = " ".join(f"{a:.1f},{b:.1f}" for a, b in (tip, left, right))
    return f'<path class="e" d="{path}"/><polygon class="h" points="{head}"/>'


def _cut(label: str) -> str:
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"


def _xml(value: str) -> str:
    """Text or an attribute value in the SVG: one line, markup escaped (the hostile suite's
    names hold tags, quotes, newlines and fences)."""
    return html.escape(one_line(value), quote=True)


def _quoted(value: str) -> str:
    return f'"{_xml(value)}"'


class SiteMaps:
    """Every map of a site: one per component with children, drawn on that component's own
    page (`core/pages.py: component_page`), all laid out in one `dot` run when first asked."""

    def __init__(
        self,
        components: Components,
        link: Callable[[str, str], str],
        label: str,
        part_titles: Mapping[str, str],
        links_to_sources: bool = False,
    ) -> None:
        """`link(target page, from page)` is a page-relative URL; `label` names a map;
        `part_titles` the parts in the page's language."""
        self.components = components
        self.link = link
        self.label = label
        self._drawn: dict[str, str] | None = None
        self.links_to_sources = links_to_sources
        self.views = {
            node_id: view_of(components, node_id, link, part_titles)
            for node_id, node in components.nodes.items()
            if node.children
        }

    def view(self, component_id: str) -> View | None:
        return self.views.get(component_id)

    def drawn(self, component_id: str) -> str:
        """The component's map as an inline SVG block, or "" (no Graphviz, or one node)."""
        if self._drawn is None:
            ids = sorted(self.views)
            self._drawn = dict(zip(ids, draw_maps([self.views[i] for i in ids], self.label, self.links_to_sources)))
        return self._drawn.get(component_id, "")

    def pages(self) -> list[tuple[str, Component]]:
        """The pages of the parts and groups, which only the maps link to."""
        return [
            (component_page(node.id), node)
            for node in self.components.nodes.values()
            if node.kind in (ComponentKind.PART, ComponentKind.GROUP)
        ]
