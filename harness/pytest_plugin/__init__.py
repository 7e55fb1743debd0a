"""The pytest layer: options and hooks (``plugin``), case items, the per-run session, the CI gate and
reports (``ci``), record mode (``record_mode``), the terminal tally, sharding and the per-case timer."""
