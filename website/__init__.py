"""The book as a static website (``make book``): staging of the notebooks, precomputed slider frames, Sphinx."""
