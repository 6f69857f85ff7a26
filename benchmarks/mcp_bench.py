"""How fast `refdoc-site mcp` answers, and how big its answers are, over stdio.

    python benchmarks/mcp_bench.py REPO [--repeat N]

REPO must be built (`refdoc-site build REPO`). The MCP SDK's client spawns
`python -m refdoc_site mcp REPO` (offline: no LLM, `ask` answers extractively), times the
spawn until the tools are listed, then calls each tool `--repeat` times on names taken from
the store (the definition with the most callers) and prints a table: the first call's and
the median call's seconds and the result's characters.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

from refdoc_site.core.store import Store  # noqa: E402


def most_called(repo: Path) -> tuple[str, str]:
    """The id of the stored definition with the most callers, and its name."""
    documents = Store(repo / ".refdoc").load().documents
    best = max(documents, key=lambda d: (len(d.metadata.callers), d.chunk.id))
    return best.chunk.id, best.chunk.name or best.chunk.symbol


async def measure(repo: Path, repeat: int) -> list[tuple[str, float, float, int]]:
    target, name = most_called(repo)
    environment = {"PYTHONPATH": str(HERE.parent)}
    parameters = StdioServerParameters(command=sys.executable, args=["-m", "refdoc_site", "mcp", str(repo), "--no-llm"], env=environment)
    rows = []
    started = time.perf_counter()
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            rows.append(("spawn → tools listed", time.perf_counter() - started, 0.0, 0))
            modules = await session.call_tool("list_modules", {})
            module = modules.structured_content["modules"][0] if modules.structured_content else ""
            calls = [
                ("search", {"query": f"what does {name} do", "top": 10}),
                ("ask", {"question": f"what calls {name}?"}),
                ("definition", {"ref": target}),
                ("callers", {"ref": target}),
                ("callees", {"ref": target}),
                ("module_summary", {"name": module}),
                ("system_summary", {}),
            ]
            for tool, arguments in calls:
                seconds = []
                for _ in range(repeat):
                    begin = time.perf_counter()
                    result = await session.call_tool(tool, arguments)
                    seconds.append(time.perf_counter() - begin)
                if result.is_error:
                    raise SystemExit(f"{tool}: {result.content[0].text}")
                rows.append((tool, seconds[0], statistics.median(seconds), len(result.content[0].text)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rows = asyncio.run(measure(args.repo.resolve(), max(1, args.repeat)))
    print(f"{'call':<22} {'first s':>8} {'median s':>9} {'chars':>7}")
    for call, first, median, chars in rows:
        print(f"{call:<22} {first:>8.3f} {median:>9.3f} {chars:>7}")


if __name__ == "__main__":
    main()
