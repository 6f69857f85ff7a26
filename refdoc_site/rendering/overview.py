"""The overview's drawings: a flow's steps as a small diagram, beside the steps told as a list.

The diagram is an SVG drawn at build time (`component_map.chain_svg`), like the maps: a
home page that needs no script (Mermaid is 1 MB) to show how a request goes through."""

from __future__ import annotations

from collections.abc import Callable

from ..understanding.flows import DefinitionRef, Flow
from .component_map import chain_svg

LIMITS = {"layers": 12, "names": 8, "cycles": 10}
"""What the overview shows of the layers and dependency cycles, whatever the repository's
size: so many layers and cycles, so many modules of each; the rest is counted."""


def overview_context(chunk_link: Callable[[str], str], code: Callable[[str], str], label: str) -> dict:
    """What the overview's template calls besides the common context: `definition_link` (a
    definition's name linked to its section), `flow_diagram` and the `limits` of its lists."""

    def definition_link(definition: DefinitionRef) -> str:
        return linked_code(code(definition.shown or definition.symbol), chunk_link(definition.chunk_id))

    return {"definition_link": definition_link, "flow_diagram": lambda flow: flow_diagram(flow, label), "limits": LIMITS}


def flow_diagram(flow: Flow, label: str) -> str:
    """A flow's steps as boxes left to right, one a step; `label` names the drawing for a
    screen reader (the steps themselves follow as a list)."""
    return chain_svg([step.definition.shown or step.definition.symbol for step in flow.steps], label)


def linked_code(code: str, address: str) -> str:
    """A code span linked to a definition's section, or unlinked where it has none in this site."""
    return f"[{code}]({address})" if address else code
