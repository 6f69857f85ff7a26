"""The repository watched (watchdog) and the incremental build rerun after a change.

Events inside the store, the site's folder and `.git` are not changes of the sources (a build
writes there itself). Changes are gathered until the repository has been quiet for
`QUIET_SECONDS`, then one rebuild runs in the watcher's thread; changes during a rebuild
start another after it. What discovery would skip (ignored files, binaries) costs one
incremental build that finds nothing changed, which reuses everything.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

log = logging.getLogger("refdoc_site")

QUIET_SECONDS = 0.3
EDITOR_LEFTOVERS = ("~", ".swp", ".swx", ".tmp")


class Watcher(FileSystemEventHandler):
    """Watch `repo`; after a change, `rebuild()` (in the watcher's thread)."""

    def __init__(self, repo: Path, ignored: Iterable[Path], rebuild: Callable[[], None], quiet_seconds: float = QUIET_SECONDS) -> None:
        self.repo = repo.resolve()
        self.ignored = [path.resolve() for path in ignored] + [self.repo / ".git"]
        self.rebuild = rebuild
        self.quiet_seconds = quiet_seconds
        self._changed = threading.Event()
        self._stopped = threading.Event()
        self._observer = Observer()
        self._thread = threading.Thread(target=self._run, name="refdoc-rebuild", daemon=True)

    def start(self) -> None:
        """Watch the repository's top folder alone and each of its folders but the ignored
        ones whole: the store, where a build writes thousands of files, is never watched."""
        self._observer.schedule(self, str(self.repo), recursive=False)
        for child in sorted(self.repo.iterdir()):
            if child.is_dir() and not child.is_symlink() and self._is_source(child):
                self._observer.schedule(self, str(child), recursive=True)
        self._observer.start()
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        self._changed.set()
        self._observer.stop()

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write") or (event.is_directory and event.event_type == "modified"):
            return
        if event.is_directory and event.event_type in ("created", "moved"):
            folder = Path(str(getattr(event, "dest_path", "") or event.src_path))
            if folder.parent == self.repo and self._is_source(folder):
                self._observer.schedule(self, str(folder), recursive=True)
        paths = [event.src_path, getattr(event, "dest_path", "")]
        if any(path and self._is_source(Path(str(path))) for path in paths):
            self._changed.set()

    def _is_source(self, path: Path) -> bool:
        if path.name.endswith(EDITOR_LEFTOVERS):
            return False
        return not any(path == folder or path.is_relative_to(folder) for folder in self.ignored)

    def _run(self) -> None:
        while True:
            self._changed.wait()
            if self._stopped.is_set():
                return
            self._changed.clear()
            while self._changed.wait(self.quiet_seconds) and not self._stopped.is_set():
                self._changed.clear()  # still changing: wait for quiet
            if self._stopped.is_set():
                return
            try:
                self.rebuild()
            except Exception:  # a failed rebuild keeps the site served; the next change tries again
                log.exception("serve: the rebuild failed")
