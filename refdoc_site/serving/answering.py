"""The Ask endpoint's answers: `asking.answer.ask` over the `Library` of the store the last
build left, reopened after a rebuild changed the site."""

from __future__ import annotations

import threading
from collections.abc import Callable

from ..asking.answer import MAX_QUESTION_CHARS, Turn, ask
from ..asking.library import Library
from ..core.errors import RefdocError
from ..core.workspace import Workspace
from ..llm import LlmSession
from .limits import AskRequest, Refused


class LibraryAnswering:
    """`POST ask` answered from the store: by the model with a session, else extractively."""

    def __init__(self, workspace: Workspace, llm: LlmSession | None) -> None:
        self.workspace = workspace
        self.llm = llm
        self.mode = "extractive" if llm is None else "llm"
        self.max_question_chars = MAX_QUESTION_CHARS
        self._library: Library | None = None
        self._lock = threading.Lock()

    def reload(self) -> None:
        """The store changed: the next question opens it again."""
        with self._lock:
            self._library = None

    def library(self) -> Library:
        with self._lock:
            if self._library is None:
                try:
                    self._library = Library.open(self.workspace)
                except RefdocError:
                    raise Refused(503, "the store has no indexed chunks yet; the server answers once a build indexed some") from None
            return self._library

    def __call__(self, request: AskRequest, on_text: Callable[[str], None]) -> dict:
        turns = [Turn(question, answer) for question, answer in request.history]
        return ask(request.question, self.library(), self.llm, turns, on_text).to_dict()
