"""Tools that maintain the corpus through the harness: `bless` (fill expectations from the
reference) and `strength` (the corpus's mutation score)."""
