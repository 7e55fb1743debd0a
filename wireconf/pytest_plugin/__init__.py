"""The pytest layer: the entry point (``plugin``, inert until a run uses wireconf) and its options
(``options``); the hooks of a wireconf run (``active``), case items, the per-run session, the CI gate
and reports (``ci``), record mode (``record_mode``), the terminal tally, sharding and the per-case timer."""
