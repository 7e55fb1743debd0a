"""Environments of their own for the runtimes wireconf judges (``conformance/runtimes.yaml``'s
``packages``): one per runtime and release, made by the ecosystem's tools (uv, else venv and pip, for
Python; npm for JavaScript), kept in the cache folder under a key of what went into it, and reused. A
runtime's pins then never change the SDKs another runtime, or wireconf itself, is judged with, and older
releases can be judged beside the pinned one (``wireconf findings --releases N``)."""
