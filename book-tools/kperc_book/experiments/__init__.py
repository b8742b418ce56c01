"""Experiments behind the book chapters: one module per chapter, called by its notebook."""
