"""The providers: one module per provider holding the records of its APIs (``provider.py`` says what a
record holds, ``registry.py`` derives every table from them)."""
