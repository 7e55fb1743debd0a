"""Standalone reproductions of a runtime's failing case (``wireconf repro``).

A finding a maintainer can act on comes with a script that needs only the runtime and its provider SDK:
the case's input written as the runtime's users write it, the runtime pointed by base URL at a local
``http.server`` on 127.0.0.1 that keeps each request and answers it from the script, and the differences
of the current verdict checked at their paths. The script prints the rule, the expected and the actual
value and exits 1 while the deviation shows, 0 once the runtime is fixed (``script.py``). The per-runtime
part is how to call the runtime: a small template per adapter (``templates.py``), fed by the adapter's own
input conversion, so the script calls the runtime exactly as the harness did (``build.py``).
"""
