"""How a verdict is reached: canonical data, exact comparison with a readable diff, declared matchers,
values taken from the recorded response, and the verdict on one case."""
