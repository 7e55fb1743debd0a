"""The corpus as data: the case model, the loader (problems kept with file:line), the rule catalogue,
YAML with line numbers, lint and the rendering of the catalogue for people."""
