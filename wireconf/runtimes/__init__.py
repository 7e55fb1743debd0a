"""A Python runtime driven in-process: the wrapper that calls an adapter (the contract it
implements is `wireconf.adapter_contract`, the public module)."""
