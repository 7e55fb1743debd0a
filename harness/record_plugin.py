"""Recording and replay guards (issue: record and replay): ``--record-mode``, the network guard,
secret scrubbing. Registered by ``harness.plugin`` through ``pytest_plugins``; empty for now."""
