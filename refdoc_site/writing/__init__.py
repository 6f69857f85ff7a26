"""The pages the doc model writes (decisions, milestones, plans, query expansion): what it
is shown, as numbered sources within a token budget, and the grounding of every name and
citation it writes against the index."""
