"""Phase 2, understand the indexed code as a whole: the call and module graphs, the file →
module → system hierarchy, the evidence of decisions, the refactoring milestones."""
