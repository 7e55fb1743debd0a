"""Recorded bytes → the objects a runtime really receives from the official SDKs.

``replay.py`` hands recorded responses to real SDK clients (one per provider, from the provider
records in ``wireconf.providers``) and gives e2e cases their client; ``transport.py`` is the replay
transport under those clients; ``cassette_transport.py`` the transport of an e2e case's client;
``parsed.py`` keeps what an SDK parsed from given bytes, so that the same bytes are parsed once.
"""
