"""Adapters for runtimes that no one here wrote, each behind an entry point of ``wireconf.adapters``
(``prompty``, ``nat``, ``luthien``, ``agentflow``).

Each adapter imports its runtime only when it is created. When the runtime's package is missing the
adapter still loads, declares no capability and says why in ``unavailable``: every case is then skipped
as unsupported with that reason (and how to install it), never an import error for the harness.
"""
