"""Fake implementations for the harness's own tests: each breaks one rule the way a real runtime might
(or misbehaves as an adapter: raises, hangs, returns junk). ``BROKEN_RULE`` names the rule a fake
breaks, so the tests can compute the cases that must fail from the corpus instead of listing them."""
