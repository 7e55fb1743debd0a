"""The leaves every layer of the harness stands on: its errors, the untyped aliases, differences
and conditions, the YAML source reader, capped report text, safe unpickling, the cache folder,
error categories, the import graph. They import nothing of the harness but each other."""
