"""The `refdoc-site` command's entry: a heartbeat while the command line loads.

`cli.py` imports every phase (numpy, tree-sitter, the language tables, MkDocs' parts):
1.7 s of CPU, and on a loaded two-core runner 10-15 s of wall time in which a build said
nothing. A CI runner takes a silent job for a hung one (issue 21: a line at least every
10 s in every phase), so the import runs under the same heartbeat the phases run under
(core/progress.py, itself light to import). On an idle machine it stays quiet.
"""

from __future__ import annotations

from .core.progress import heartbeat


def main() -> int:
    with heartbeat("starting"):
        from . import cli  # lazy: the heartbeat must run before the phases' modules load
    return cli.main()
