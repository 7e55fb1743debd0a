"""The CI side of the plugin (issue: third-party runtimes): ``--baseline``, ``--report``, ``--shard``.
Registered by ``harness.plugin`` through ``pytest_plugins``; empty for now."""
