"""Cassettes and recording: reading (``store``), the vcrpy serializer (``format``), the one writer
(scrub, scan, atomic write), importing other tools' recordings, record mode's policy, an e2e case's HTTP
exchange and request matching, and the network guard that keeps replay offline."""
