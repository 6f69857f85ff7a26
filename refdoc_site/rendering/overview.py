"""The overview's drawings: a flow's steps as a small diagram, beside the steps told as a list."""

from __future__ import annotations

from collections.abc import Callable

from ..understanding.flows import DefinitionRef, Flow
from .markup import one_line

MERMAID_KEPT = frozenset(" ._-/+,()")


def mermaid_label(name: str) -> str:
    """A node label for a double-quoted Mermaid string: one line, every character Mermaid or
    HTML could read as syntax written as Mermaid's entity code (`#60;` for `<`)."""
    return "".join(c if c.isalnum() or c in MERMAID_KEPT else f"#{ord(c)};" for c in one_line(name))


def overview_context(chunk_link: Callable[[str], str], code: Callable[[str], str], label: Callable[[str], str]) -> dict:
    """What the overview's template calls besides the common context: `definition_link` (a
    definition's name linked to its section) and `flow_diagram`."""

    def definition_link(definition: DefinitionRef) -> str:
        return linked_code(code(definition.shown or definition.symbol), chunk_link(definition.chunk_id))

    return {"definition_link": definition_link, "flow_diagram": lambda flow: flow_diagram(flow, label)}


def flow_diagram(flow: Flow, label: Callable[[str], str]) -> str:
    """A flow's steps as a Mermaid flowchart, left to right, one box a step; a step reached
    through a call matched by name alone is drawn with a dotted arrow. `label` makes a name safe as a node's label."""
    lines = ["flowchart LR"]
    for index, step in enumerate(flow.steps):
        lines.append(f'  s{index}["{label(step.definition.shown or step.definition.symbol)}"]')
        if index:
            lines.append(f"  s{index - 1} {'-.->' if step.by_name else '-->'} s{index}")
    return "\n".join(lines)


def linked_code(code: str, address: str) -> str:
    """A code span linked to a definition's section, or unlinked where it has none in this site."""
    return f"[{code}]({address})" if address else code
