"""The words that make a question of a conversation a follow-up: one about what an earlier
question asked ("and how do I hide it when done?" after "how do I show a progress bar?").

`ask` (`asking/answer.py`) searches a follow-up together with the earlier question it
continues. A question is a follow-up when it opens with one of `OPENERS`, holds one of
`REFERRING_WORDS` (a pronoun standing for the earlier topic), or says little of its own: at
most `SHORT_TERMS` search terms once stop words are left out ("in color?"). When the
question and the ones it continues find nothing relevant together, it is searched alone. A new
language is a row in each table. Words are matched lower-cased, whole (English) or as
written (Japanese, which has no spaces: a substring).
"""

from __future__ import annotations

OPENERS: dict[str, tuple[str, ...]] = {
    "en": ("and", "also", "but", "so", "then", "or", "what about", "how about", "what if", "same for", "instead"),
    "ja": ("じゃあ", "では", "それで", "それなら", "あと", "ちなみに", "また"),
}
"""Words a question continuing the last one starts with."""

REFERRING_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("it", "its", "it's", "itself", "this", "these", "those", "they", "them", "their", "the same"),
    "ja": ("それ", "これ", "あれ", "その", "あの", "そこ", "同じ"),
}
"""Pronouns that stand for something an earlier question named. "that" and "there" are not
among them: "check that a file exists" and "is there a way to…" are questions of their own."""

SPACED_LANGUAGES = frozenset({"en"})
"""Languages whose words `OPENERS` and `REFERRING_WORDS` match whole; the others' as substrings."""

SHORT_TERMS = 1
"""A question with at most this many search terms (stop words left out) is a follow-up
("and in color?", "why?"). Two would take "how is completion implemented?" for one."""

EARLIER_QUESTIONS = 3
"""Earlier questions a follow-up may reach back to: a chain of follow-ups is searched with
each of them, up to and including the last question that stood on its own."""
