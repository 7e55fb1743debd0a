"""Adapters for runtimes that no one here wrote, each behind an entry point of ``wireconf.adapters``.

Each adapter imports its runtime only when it is created, so that a missing optional extra is one
clear error at start-up (``--impl``), never an import error for the rest of the harness.
"""
