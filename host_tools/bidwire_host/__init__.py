"""bidwire host tools: build, benchmark and deploy helpers that run on CPython, never on a unit."""
