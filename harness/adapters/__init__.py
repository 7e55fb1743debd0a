"""Adapters for the third-party runtimes the design documents describe (entry points ``nat``,
``luthien``, ``agentflow``). Each imports its runtime lazily: when the package is missing the adapter
still loads, declares nothing and says why in ``unavailable``, so every case is skipped with that reason.
"""
