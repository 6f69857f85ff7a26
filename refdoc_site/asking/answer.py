"""Answering a question from the library: retrieval, then the model's cited answer or the
search results themselves.

1. The question is searched as `refdoc-site query` searches (with the LLM's expansion terms
   when a model is configured), and only relevant hits are kept (`retrieval.py`), one per
   definition; in a conversation, a follow-up ("and how do I hide it?": it opens like one,
   refers back or is short, `languages/followups.py`) is searched with the question it
   continues (alone again when that finds nothing), and a question with no hit of its own
   is searched again after the last one;
   none kept means the repository holds nothing about it: "not found in this repository".
2. With a model: the relevant chunks, widened through the call graph and the summaries
   within a token budget, are numbered and shown to it with the conversation so far; its
   answer is streamed (`on_text`), then grounded (`grounded.py`): every citation becomes a
   `[path:start-end](url)` link, and one of something not in the context is marked and
   listed in `flagged`. A failed call falls back to step 3, and says so.
3. Without one (`extractive.py`): a paragraph naming the best chunks, what they do and how
   they call one another, each cited, then the chunks with their summaries and links,
   labelled as search results.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..core.errors import RefdocError
from ..core.resources import page_labels
from ..languages import followups
from ..llm.session import LlmSession
from ..search.ranking import MAX_QUERY_CHARS, query_terms
from ..writing.writers import expand_query
from .extractive import EXTRACTIVE_RESULTS, extractive
from .grounded import model_answer
from .library import Library
from .records import Answer, Source, Turn
from .retrieval import Retrieved, context_sources, retrieve, retrieved_source

__all__ = ["MAX_QUESTION_CHARS", "Answer", "Source", "Turn", "ask", "check_question"]

MAX_QUESTION_CHARS = MAX_QUERY_CHARS
"""Longest question accepted (the search's own bound on a query)."""


def check_question(question: str) -> str:
    """The question, stripped; an empty or overlong one is a one-line error."""
    text = " ".join(question.split())
    if not text:
        raise RefdocError('ask: the question is empty; ask something, e.g. refdoc-site ask "how is the config loaded?"')
    if len(text) > MAX_QUESTION_CHARS:
        raise RefdocError(f"ask: the question has {len(text)} characters, more than {MAX_QUESTION_CHARS}; shorten it")
    return text


def ask(
    question: str,
    library: Library,
    llm: LlmSession | None,
    history: Sequence[Turn] = (),
    on_text: Callable[[str], None] | None = None,
) -> Answer:
    """The answer to `question` from `library`: the model's (with `llm`), else extractive."""
    question = check_question(question)
    emit = on_text or (lambda piece: None)
    terms = expand_query(llm, question) if llm is not None else []
    searched = searched_question(question, history)
    retrieved = retrieve(searched, library, " ".join([searched, *terms]))
    if not retrieved and history:
        # A follow-up with nothing about the whole conversation may have something of its
        # own; a question with no match of its own may be about what the last one was.
        searched = question if searched != question else f"{history[-1].question} {question}"
        retrieved = retrieve(searched, library, " ".join([searched, *terms]))
    labels = page_labels(library.workspace.config.language)
    if not retrieved:
        emit(labels["ask_not_found"])
        return Answer(question, labels["ask_not_found"], "not_found")
    listed = [retrieved_source(library, item) for item in retrieved[:EXTRACTIVE_RESULTS]]
    if llm is None:
        return extractive(question, library, listed, labels, emit)
    sources = context_sources(library, retrieved)
    streamed: list[str] = []

    def emit_model(piece: str) -> None:
        streamed.append(piece)
        emit(piece)

    result = model_answer(question, library, llm, sources, history, emit_model)
    if result is None:
        if streamed:  # the model's text broke off: the search results follow it, apart
            emit("\n\n")
        return extractive(question, library, listed, labels, emit, failed=True)
    return result


def searched_question(question: str, history: Sequence[Turn]) -> str:
    """What a question of a conversation is searched as: a follow-up (`is_follow_up`)
    together with the earlier questions it continues, back to the last one that stood on
    its own (at most `followups.EARLIER_QUESTIONS`); any other question as asked."""
    if not history or not is_follow_up(question):
        return question
    earlier: list[str] = []
    for turn in reversed(list(history)[-followups.EARLIER_QUESTIONS :]):
        earlier.insert(0, turn.question)
        if not is_follow_up(turn.question):
            break
    return " ".join([*earlier, question])


def is_follow_up(question: str) -> bool:
    """Whether a question continues the one before it (`languages/followups.py`): it
    opens like a continuation, refers back with a pronoun, or is short."""
    text = " ".join(question.lower().split())
    words = re.findall(r"[\w']+", text)
    for language, openers in followups.OPENERS.items():
        spaced = language in followups.SPACED_LANGUAGES
        if any(_starts(text, words, opener, spaced) for opener in openers):
            return True
        if any(_holds(text, words, word, spaced) for word in followups.REFERRING_WORDS.get(language, ())):
            return True
    return len(query_terms(question)) <= followups.SHORT_TERMS


def _starts(text: str, words: list[str], opener: str, spaced: bool) -> bool:
    return words[: len(opener.split())] == opener.split() if spaced else text.startswith(opener)


def _holds(text: str, words: list[str], word: str, spaced: bool) -> bool:
    if not spaced:
        return word in text
    parts = word.split()
    return any(words[i : i + len(parts)] == parts for i in range(len(words)))
