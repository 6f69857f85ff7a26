"""Asking: questions answered from a built store (`library.py` opens it, `answer.py` answers)."""
