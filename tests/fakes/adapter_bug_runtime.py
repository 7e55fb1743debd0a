"""The runtime ``tests.fakes.adapter_bug`` wraps: it refuses a developer message (a deviation of its own)."""


def build(messages):
    raise ValueError(f"this runtime has no developer role ({len(messages)} messages)")
