"""What a runtime's text says of this machine's install locations reads the same on every machine."""

from wireconf.report_text import machine_free


def test_install_locations_are_written_from_the_package_folder_on():
    text = (
        'File "/home/ci/checkout/.venv/lib/python3.11/site-packages/litellm/main.py", line 2871\n'
        "at f (/srv/w/.cache/ai-sdk/781a/node_modules/@ai-sdk/google/dist/index.mjs:10:5)\n"
        'File "/usr/lib/python3/dist-packages/yaml/__init__.py"'
    )
    assert machine_free(text) == (
        'File "site-packages/litellm/main.py", line 2871\n'
        "at f (node_modules/@ai-sdk/google/dist/index.mjs:10:5)\n"
        'File "dist-packages/yaml/__init__.py"'
    )
    assert machine_free("a path of the runtime's own: /srv/app/main.py") == (
        "a path of the runtime's own: /srv/app/main.py"
    )
