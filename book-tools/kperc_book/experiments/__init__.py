"""Experiments behind the book chapters: one module per chapter, called by its notebook.

A chapter written as a lecture (Chapter 3) runs its experiment in the notebook itself and
has no module here; it imports only what several chapters share (``_problems.py``).
"""
