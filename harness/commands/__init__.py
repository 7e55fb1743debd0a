"""The ``wireconf`` subcommands: one module each, found by ``harness.cli``.

A command module has ``register(subparsers)``, which adds its parser and sets ``run`` (a function of
the parsed arguments returning the exit status).
"""
