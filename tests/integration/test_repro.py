"""``wireconf repro`` (issue 36, item 1): the scripts it writes run without wireconf, fail as the finding
says, and pass against a copy of the runtime patched where the fix is one line.

"Without wireconf": each script runs with ``python -I`` in a fresh virtual environment (``python -m venv
--without-pip``, a second) whose only path entry is the project's site-packages folder, added by a
``.pth`` line: its own ``.pth`` files, among them wireconf's editable finder, are not processed, so
``import wireconf`` fails there (asserted), while the runtime and its SDKs import as installed. A venv
with each runtime pip-installed from the cache costs 40 s to a few minutes per runtime (measured: 43 s for
langchain-google-genai alone), too much for CI; the scripts' requirements line says what it would
install."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.runtime_envs import moved_out, runtime_env, site_packages

CASES = (
    # runtime, case, the rule and the place the finding names
    (
        "langchain",
        "wire.gemini.generate_content.tool-call-fields-and-nested-args",
        "7.9.1/tool-call-ids-sent",
    ),
    ("litellm", "wire.anthropic.messages.recorded-tool-round-trip", "7.5/tool-result-message"),
    ("prompty", "wire.anthropic.messages.recorded-tool-round-trip", "7.5/tool-result-message"),
    # a developer message is a ChatMessage, which load's allowed_objects='messages' refuses
    ("langchain", "wire.openai.responses.developer-stays-in-input", "7.4/system-as-instructions"),
    # prompty passes top_k to the SDK, whose create() refuses it: nothing is sent, the call raises
    ("prompty", "wire.openai.chat.top-k-not-sent", "7.1.5/unmapped-ignored"),
    # a request sent for an input the case expects refused (an error, before sending)
    ("prompty", "wire.anthropic.messages.tool-call-arguments-not-json-raises", "7.5/tool-calls-as-tool-use"),
    # an e2e case's request: stream() read to its end, stream_usage as at OpenAI's own base URL
    ("langchain", "e2e.openai.chat.stream-parallel-tool-calls", "7.1.7/no-other-keys"),
)

FIX = (
    "langchain_google_genai/chat_models.py",
    '                    function_call = FunctionCall(\n                        name=tool_call["name"],\n',
    '                    function_call = FunctionCall(\n                        id=tool_call["id"],\n'
    '                        name=tool_call["name"],\n',
)
"""The one-line fix of LangChain's finding (``_parse_chat_history`` writes each tool call without its id):
the id passed to ``FunctionCall``, in a copy of langchain-google-genai."""


def _bare_environment(root: Path, *first: Path) -> Path:
    """A venv without pip whose path is the project's site-packages (after the folders ``first``, when
    given): its Python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    inner = subprocess.run(
        [str(python), "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    entries = [str(folder) for folder in first]
    Path(inner, "runtime.pth").write_text("\n".join([*entries, sysconfig.get_paths()["purelib"]]) + "\n")
    return python


def _script(
    tmp: Path, runtime: str, case: str, rule: str, path: str | None = None, python: Path | None = None
) -> Path:
    """The script ``wireconf repro`` writes; from the Python ``python`` (the runtime's environment) when
    given, else from the runtime's environment when it has moved out, else in this process."""
    from wireconf.cli import main

    out = tmp / f"{runtime}-{case}.py"
    args = [
        "repro",
        "--runtime",
        runtime,
        case,
        "--rule",
        rule,
        "-o",
        str(out),
        "--cases",
        str(REPO / "cases"),
    ]
    args += ["--path", path] if path else []
    args += ["--baselines", str(REPO / "conformance")]
    if python is None and moved_out(runtime):
        python = runtime_env(runtime).python
    if python is not None:  # its template reads the runtime (LangChain's dumpd): written in its environment
        command = [str(python.parent / "wireconf"), *args]
        done = subprocess.run(command, capture_output=True, text=True, cwd=REPO, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
    else:
        assert main(args) == 0
    return out


def _run(python: Path, script: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-I", str(script)], capture_output=True, text=True, cwd=script.parent, timeout=120
    )


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> Path:
    python = _bare_environment(tmp_path_factory.mktemp("bare") / "venv")
    probe = subprocess.run([str(python), "-I", "-c", "import wireconf"], capture_output=True, text=True)
    assert probe.returncode == 1 and "No module named 'wireconf'" in probe.stderr, probe
    return python


@pytest.mark.parametrize(
    ("runtime", "case", "rule"), CASES, ids=[f"{c[0]}-{c[1].split('.')[-1]}" for c in CASES]
)
def test_a_reproduction_fails_as_its_finding_says_without_wireconf(tmp_path, bare, runtime, case, rule):
    script = _script(tmp_path, runtime, case, rule)
    text = script.read_text(encoding="utf-8")
    assert not re.search(r"^\s*(import|from) wireconf", text, re.MULTILINE), "the script imports wireconf"
    if moved_out(runtime):  # installed in its own environment only: its site-packages first
        bare = _bare_environment(tmp_path / "venv", site_packages(runtime_env(runtime)))
    done = _run(bare, script)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{rule}: " in done.stdout and "expected: " in done.stdout and "actual:   " in done.stdout, (
        done.stdout
    )


def test_a_reproduction_passes_against_the_runtime_patched_where_the_fix_is_one_line(tmp_path, bare):
    runtime, case, rule = CASES[0]
    installed = site_packages(runtime_env(runtime))  # langchain-google-genai, as its environment has it
    bare = _bare_environment(tmp_path / "unpatched", installed)
    script = _script(tmp_path, runtime, case, rule, "$.contents[*].parts[*].functionCall.id")
    assert _run(bare, script).returncode == 1  # the finding, unpatched
    patched = tmp_path / "patched"
    shutil.copytree(installed / "langchain_google_genai", patched / "langchain_google_genai")
    source = patched / FIX[0]
    text = source.read_text(encoding="utf-8")
    assert text.count(FIX[1]) == 1, "the line to fix moved: update FIX for this release"
    source.write_text(text.replace(FIX[1], FIX[2]), encoding="utf-8")
    python = _bare_environment(tmp_path / "venv", patched, installed)
    done = _run(python, script)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all 1 difference(s) fixed" in done.stdout, done.stdout


PROMPTY_FIX = (
    "prompty/providers/openai/executor.py",
    '    opts = mo.to_wire("openai")\n',
    '    opts = {k: v for k, v in mo.to_wire("openai").items() if k != "top_k"}\n',
)
"""The one-line fix of prompty's ``7.1.5/unmapped-ignored`` finding: ``_build_options`` leaves out the
``top_k`` that ``ModelOptions.to_wire("openai")`` writes (Chat Completions has no such parameter)."""


def test_a_keyword_the_sdk_refuses_shows_until_the_runtime_leaves_the_key_out(tmp_path, bare):
    runtime, case, rule = next(c for c in CASES if c[1] == "wire.openai.chat.top-k-not-sent")
    installed = site_packages(runtime_env(runtime))
    script = _script(tmp_path, runtime, case, rule, "$.top_k")
    done = _run(_bare_environment(tmp_path / "unpatched", installed), script)
    assert done.returncode == 1, done.stdout + done.stderr  # the SDK refuses the keyword: nothing is sent
    assert "unexpected keyword argument 'top_k'" in done.stdout and f"{rule}: " in done.stdout
    patched = tmp_path / "patched"
    shutil.copytree(installed / "prompty", patched / "prompty")
    source = patched / PROMPTY_FIX[0]
    text = source.read_text(encoding="utf-8")
    assert text.count(PROMPTY_FIX[1]) == 1, "the line to fix moved: update PROMPTY_FIX for this release"
    source.write_text(text.replace(PROMPTY_FIX[1], PROMPTY_FIX[2]), encoding="utf-8")
    done = _run(_bare_environment(tmp_path / "venv", patched, installed), script)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all 1 difference(s) fixed" in done.stdout, done.stdout


# -- LlamaIndex: its own environment (wireconf.envs), its objects written as constructor calls -------

LLAMAINDEX_CASES = (
    ("wire.openai.chat.single-text-part-is-string", "7.1.7/no-other-keys", "$.stream"),
    ("wire.anthropic.messages.recorded-tool-round-trip", "7.5/no-other-keys", "$.tool_choice"),
)

LLAMAINDEX_FIX = (
    "llama_index/llms/openai/base.py",
    "                stream=False,\n                **self._get_model_kwargs(**kwargs),\n",
    "                **self._get_model_kwargs(**kwargs),\n",
)
"""The one-line fix of LlamaIndex's ``7.1.7/no-other-keys`` finding at ``$.stream``: ``OpenAI._chat``
passes ``stream=False`` to ``chat.completions.create``, which sends it; without the line the SDK sends
no ``stream`` key (its first copy, the client it reuses, is the one the script runs)."""


def _site_packages_of(python: Path) -> Path:
    done = subprocess.run(
        [str(python), "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(done.stdout.strip())


@pytest.mark.parametrize(
    ("case", "rule", "path"), LLAMAINDEX_CASES, ids=[c[0].split(".")[1] for c in LLAMAINDEX_CASES]
)
def test_a_llamaindex_reproduction_fails_as_its_finding_says_without_wireconf(
    tmp_path, llamaindex_python, case, rule, path
):
    python = Path(llamaindex_python)
    script = _script(tmp_path, "llamaindex", case, rule, path, python=python)
    text = script.read_text(encoding="utf-8")
    assert not re.search(r"^\s*(import|from) wireconf", text, re.MULTILINE), "the script imports wireconf"
    bare = _bare_environment(tmp_path / "venv", _site_packages_of(python))
    probe = subprocess.run([str(bare), "-I", "-c", "import wireconf"], capture_output=True, text=True)
    assert probe.returncode == 1 and "No module named 'wireconf'" in probe.stderr, probe
    done = _run(bare, script)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{rule}: " in done.stdout and f"at {path} of the request" in done.stdout, done.stdout


def test_a_llamaindex_reproduction_passes_against_llamaindex_patched_where_the_fix_is_one_line(
    tmp_path, llamaindex_python
):
    case, rule, path = LLAMAINDEX_CASES[0]
    python = Path(llamaindex_python)
    installed = _site_packages_of(python)
    script = _script(tmp_path, "llamaindex", case, rule, path, python=python)
    assert _run(_bare_environment(tmp_path / "unpatched", installed), script).returncode == 1
    patched = tmp_path / "patched"
    package = patched / "llama_index" / "llms" / "openai"
    shutil.copytree(installed / "llama_index" / "llms" / "openai", package)
    # llama_index is a namespace package: the patched llms.openai first, the rest as installed
    source = patched / LLAMAINDEX_FIX[0]
    text = source.read_text(encoding="utf-8")
    assert text.count(LLAMAINDEX_FIX[1]) >= 1, "the line to fix moved: update LLAMAINDEX_FIX for this release"
    source.write_text(text.replace(LLAMAINDEX_FIX[1], LLAMAINDEX_FIX[2], 1), encoding="utf-8")
    done = _run(_bare_environment(tmp_path / "venv", patched, installed), script)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all 1 difference(s) fixed" in done.stdout, done.stdout


LLAMAINDEX_RESULT = ("process.gemini.generate_content.thoughts-between-text-parts", "8.8/text-parts-joined")

LLAMAINDEX_RESULT_FIX = (
    "llama_index/core/base/llms/types.py",
    '        ct = "\\n".join(content_strs) or None\n',
    '        ct = "".join(content_strs) or None\n',
)
"""The one-line fix of LlamaIndex's ``8.8/text-parts-joined`` finding: ``ChatMessage.content`` joins its
text blocks with a newline, where the rule concatenates them with no separator."""


def test_a_llamaindex_response_reproduction_fails_as_said_and_passes_once_fixed(tmp_path, llamaindex_python):
    case, rule = LLAMAINDEX_RESULT
    python = Path(llamaindex_python)
    installed = _site_packages_of(python)
    script = _script(tmp_path, "llamaindex", case, rule, python=python)
    assert "ANSWER = {'status': 200" in script.read_text(encoding="utf-8")  # the recorded response, inlined
    done = _run(_bare_environment(tmp_path / "unpatched", installed), script)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{rule}: " in done.stdout and 'expected: "42"' in done.stdout, done.stdout
    patched = tmp_path / "patched"
    shutil.copytree(installed / "llama_index" / "core", patched / "llama_index" / "core")
    source = patched / LLAMAINDEX_RESULT_FIX[0]
    text = source.read_text(encoding="utf-8")
    assert text.count(LLAMAINDEX_RESULT_FIX[1]) == 1, "the line to fix moved: update LLAMAINDEX_RESULT_FIX"
    source.write_text(text.replace(LLAMAINDEX_RESULT_FIX[1], LLAMAINDEX_RESULT_FIX[2]), encoding="utf-8")
    done = _run(_bare_environment(tmp_path / "venv", patched, installed), script)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all 1 difference(s) fixed" in done.stdout, done.stdout


# -- an e2e case's request: the runtime called as its adapter's execute calls it -------------------------

E2E_CASE = ("litellm", "e2e.openai.chat.stream-parallel-tool-calls", "7.1.7/no-other-keys")

E2E_FIX = (
    "litellm/llms/openai/openai.py",
    '                return {"stream_options": {"include_usage": True}}\n',
    "                return {}\n",
)
"""The one-line fix of LiteLLM's ``$.stream_options`` finding: ``OpenAIChatCompletion.get_stream_options``
asks OpenAI for a stream's usage when the caller gave no ``stream_options``."""


def test_an_e2e_reproduction_shows_the_request_sent_to_the_provider_until_fixed(tmp_path):
    runtime, case, rule = E2E_CASE
    installed = site_packages(runtime_env(runtime))
    script = _script(tmp_path, runtime, case, rule, "$.stream_options")
    assert "client=openai.OpenAI(" in script.read_text(encoding="utf-8")  # as the adapter points it
    done = _run(_bare_environment(tmp_path / "unpatched", installed), script)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{rule}: " in done.stdout and "at $.stream_options of the request" in done.stdout, done.stdout
    patched = tmp_path / "patched"
    shutil.copytree(installed / "litellm", patched / "litellm")
    source = patched / E2E_FIX[0]
    text = source.read_text(encoding="utf-8")
    assert text.count(E2E_FIX[1]) == 1, "the line to fix moved: update E2E_FIX for this release"
    source.write_text(text.replace(E2E_FIX[1], E2E_FIX[2]), encoding="utf-8")
    done = _run(_bare_environment(tmp_path / "venv", patched, installed), script)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all 1 difference(s) fixed" in done.stdout, done.stdout


# -- payload extractors (extract): the recorded payloads handed to NeMo Agent Toolkit's extractors -------

NAT_CASE = ("nat", "extract.openai.chat.tool-result-bare-boolean", "extract/tool-result-primitives-as-json")

NAT_FIX = (
    "nat/atof/extractors.py",
    "        return str(data)\n",
    '        return json.dumps(data, separators=(",", ":"))\n',
)
"""The one-line fix of nat's ``extract/tool-result-primitives-as-json`` finding: the last line of
``GenericToolResultExtractor.extract_tool_result`` writes a bare payload with ``str()`` (``False``); as
JSON it is ``false``."""


def test_an_extract_reproduction_fails_as_its_finding_says_and_passes_once_fixed(tmp_path):
    runtime, case, rule = NAT_CASE
    installed = site_packages(runtime_env(runtime))
    script = _script(tmp_path, runtime, case, rule)
    text = script.read_text(encoding="utf-8")
    assert not re.search(r"^\s*(import|from) wireconf", text, re.MULTILINE), "the script imports wireconf"
    assert "RESPONSE = {'kind': 'scope'" in text  # the tool event the harness hands the adapter, inlined
    done = _run(_bare_environment(tmp_path / "unpatched", installed), script)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{rule}: " in done.stdout and 'expected: "false"' in done.stdout, done.stdout
    patched = tmp_path / "patched"
    shutil.copytree(installed / "nat", patched / "nat")
    source = patched / NAT_FIX[0]
    text = source.read_text(encoding="utf-8")
    assert text.count(NAT_FIX[1]) == 1, "the line to fix moved: update NAT_FIX for this release"
    source.write_text(text.replace(NAT_FIX[1], NAT_FIX[2]), encoding="utf-8")
    done = _run(_bare_environment(tmp_path / "venv", patched, installed), script)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all 1 difference(s) fixed" in done.stdout, done.stdout


# -- what a runtime makes of a response (process, stream): the recorded bytes served to its HTTP path ----

RESULT_CASES = (
    ("litellm", "process.anthropic.messages.vector.anthropic_tool_use", "8.5/arguments-compact-json"),
    ("langchain", "stream.gemini.generate_content.several-text-parts-in-one-chunk", "8.9/text-deltas"),
    (
        "prompty",
        "stream.anthropic.messages.empty-and-whitespace-text-deltas",
        "8.5/stream-empty-text-not-yielded",
    ),
)

RESULT_FIXES = {
    "litellm": (
        "litellm",
        "litellm/llms/anthropic/chat/transformation.py",
        '                            arguments=json.dumps(content["input"]),\n',
        '                            arguments=json.dumps(content["input"], separators=(",", ":")),\n',
    ),
    "prompty": (
        "prompty",
        "prompty/providers/anthropic/processor.py",
        'getattr(delta, "text", "")\n                yield text\n',
        'getattr(delta, "text", "")\n                yield from [text] if text else []\n',
    ),
}
"""The one-line fixes of two response findings, each in a copy of the runtime's package: LiteLLM's
``AnthropicConfig.transform_response`` writes a tool_use ``input`` with ``json.dumps``' spaces (compact:
``separators``); prompty's Anthropic ``_stream_generator`` yields every ``text_delta``, the empty ones too
(its first, synchronous copy: the one the script runs)."""


@pytest.mark.parametrize(("runtime", "case", "rule"), RESULT_CASES, ids=[c[0] for c in RESULT_CASES])
def test_a_response_reproduction_serves_the_recording_and_fails_as_its_finding_says(
    tmp_path, runtime, case, rule
):
    script = _script(tmp_path, runtime, case, rule)
    text = script.read_text(encoding="utf-8")
    assert not re.search(r"^\s*(import|from) wireconf", text, re.MULTILINE), "the script imports wireconf"
    assert "ANSWER = {'status': 200" in text  # the recorded response, inlined
    python = _bare_environment(tmp_path / "venv", site_packages(runtime_env(runtime)))
    probe = subprocess.run([str(python), "-I", "-c", "import wireconf"], capture_output=True, text=True)
    assert probe.returncode == 1 and "No module named 'wireconf'" in probe.stderr, probe
    done = _run(python, script)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{rule}: " in done.stdout and "expected: " in done.stdout and "actual:   " in done.stdout, (
        done.stdout
    )


@pytest.mark.parametrize("runtime", sorted(RESULT_FIXES))
def test_a_response_reproduction_passes_against_the_runtime_patched_where_the_fix_is_one_line(
    tmp_path, runtime
):
    _, case, rule = next(c for c in RESULT_CASES if c[0] == runtime)
    package, file, line, fixed = RESULT_FIXES[runtime]
    installed = site_packages(runtime_env(runtime))
    script = _script(tmp_path, runtime, case, rule)
    assert _run(_bare_environment(tmp_path / "unpatched", installed), script).returncode == 1  # the finding
    patched = tmp_path / "patched"
    shutil.copytree(installed / package, patched / package)
    source = patched / file
    text = source.read_text(encoding="utf-8")
    assert text.count(line) >= 1, "the line to fix moved: update RESULT_FIXES for this release"
    source.write_text(text.replace(line, fixed, 1), encoding="utf-8")  # the first: the synchronous path
    done = _run(_bare_environment(tmp_path / "venv", patched, installed), script)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "difference(s) fixed" in done.stdout, done.stdout


# -- a JavaScript runtime (the AI SDK): an ES module run by node with the runtime's npm packages only ---

JS_CASES = (
    ("wire.anthropic.messages.option-temperature", "7.5/max-tokens-default"),
    ("process.anthropic.messages.text-blocks-around-citations-joined", "8.5/only-tool-use-blocks"),
    ("stream.anthropic.messages.tool-calls-sorted-by-block-index", "8.5/stream-tool-calls-in-block-order"),
    # an e2e case's request: streamText, as the adapter's execute calls it for an agent that streams
    ("e2e.openai.chat.stream-parallel-tool-calls", "7.1.7/no-other-keys"),
    # a PDF URL the AI SDK downloads to inline it: answered from the script (experimental_download)
    ("wire.openai.chat.file-part", "7.1.2/file-part"),
)

JS_FIX = (
    "@ai-sdk/anthropic/dist/index.mjs",
    "const maxTokens = maxOutputTokens != null ? maxOutputTokens : maxOutputTokensForModel;",
    "const maxTokens = maxOutputTokens != null ? maxOutputTokens : 4096;",
)
"""The one-line fix of the AI SDK's ``7.5/max-tokens-default`` finding: ``getArgs`` defaults
``max_tokens`` to the model's own limit, where the rule sends 4096."""


@pytest.fixture(scope="module")
def ai_sdk_modules() -> Path:
    from wireconf.adapters.ai_sdk.build import installed

    root, why = installed()
    if root is None or shutil.which("node") is None:
        pytest.skip(why or "node (Node.js) is not on PATH")
    return root / "node_modules"


def _node_folder(folder: Path, modules: Path) -> Path:
    """``folder`` with a ``node_modules`` of the install's packages but wireconf's (``@wireconf``), each
    linked."""
    own = folder / "node_modules"
    own.mkdir(parents=True)
    for entry in modules.iterdir():
        if entry.name == "@wireconf" or entry.name.startswith("."):
            continue
        if entry.name.startswith("@"):
            (own / entry.name).mkdir()
            for inner in entry.iterdir():
                (own / entry.name / inner.name).symlink_to(inner)
        else:
            (own / entry.name).symlink_to(entry)
    return folder


def _js_script(tmp: Path, case: str, rule: str, folder: Path) -> Path:
    from wireconf.cli import main

    out = folder / f"{case}.mjs"
    args = [
        "repro",
        "--runtime",
        "ai-sdk",
        case,
        "--rule",
        rule,
        "-o",
        str(out),
        "--cases",
        str(REPO / "cases"),
    ]
    assert main([*args, "--baselines", str(REPO / "conformance")]) == 0
    return out


def _node(script: Path) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    assert node is not None
    return subprocess.run(
        [node, script.name], capture_output=True, text=True, cwd=script.parent, timeout=120, check=False
    )


@pytest.mark.parametrize(("case", "rule"), JS_CASES, ids=[c[0].split(".")[0] for c in JS_CASES])
def test_an_ai_sdk_reproduction_fails_as_its_finding_says_with_only_the_runtimes_packages(
    tmp_path, ai_sdk_modules, case, rule
):
    folder = _node_folder(tmp_path / "bare", ai_sdk_modules)
    script = _js_script(tmp_path, case, rule, folder)
    text = script.read_text(encoding="utf-8")
    assert "@wireconf" not in text and re.search(r'^import .* from "ai";$', text, re.MULTILINE), text[:600]
    probe = subprocess.run(
        [shutil.which("node") or "node", "--input-type=module", "-e", 'await import("@wireconf/exec")'],
        capture_output=True,
        text=True,
        cwd=folder,
        check=False,
    )
    assert probe.returncode != 0 and "ERR_MODULE_NOT_FOUND" in probe.stderr  # no wireconf here
    done = _node(script)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{rule}: " in done.stdout and "expected: " in done.stdout and "actual:   " in done.stdout, (
        done.stdout
    )


def test_an_ai_sdk_reproduction_passes_against_the_runtime_patched_where_the_fix_is_one_line(
    tmp_path, ai_sdk_modules
):
    case, rule = JS_CASES[0]
    assert (
        _node(_js_script(tmp_path, case, rule, _node_folder(tmp_path / "bare", ai_sdk_modules))).returncode
        == 1
    )
    folder = _node_folder(tmp_path / "patched", ai_sdk_modules)
    package = folder / "node_modules" / "@ai-sdk" / "anthropic"
    package.unlink()  # a copy in its place (its own dependencies still resolve beside it)
    shutil.copytree(ai_sdk_modules / "@ai-sdk" / "anthropic", package, symlinks=True)
    source = package / JS_FIX[0].split("/", 2)[2]
    text = source.read_text(encoding="utf-8")
    assert text.count(JS_FIX[1]) == 1, "the line to fix moved: update JS_FIX for this release"
    source.write_text(text.replace(JS_FIX[1], JS_FIX[2]), encoding="utf-8")
    done = _node(_js_script(tmp_path, case, rule, folder))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all 1 difference(s) fixed" in done.stdout, done.stdout


# -- Prompty's TypeScript runtime: node with the built runtime folder as the script's one argument -------

PROMPTY_TS_CASES = (
    ("wire.anthropic.messages.recorded-tool-round-trip", "7.5/tool-calls-as-tool-use"),
    ("process.anthropic.messages.no-content-is-empty-string", "8.5/no-text-empty-string"),
    ("stream.anthropic.messages.start-input-used-without-deltas", "8.5/stream-tool-without-input-deltas"),
)

PROMPTY_TS_FIX = (
    "packages/anthropic/dist/index.js",
    "  if (!content || content.length === 0) return null;\n",
    '  if (!content || content.length === 0) return "";\n',
)
"""The one-line fix of prompty-ts's ``8.5/no-text-empty-string`` finding, in its built Anthropic package:
``processMessages`` returns null for a response without content, where §8.5 returns ""."""


def _prompty_ts_script(tmp: Path, case: str, rule: str) -> Path:
    from wireconf.cli import main

    out = tmp / f"{case}.mjs"
    args = ["repro", "--runtime", "prompty-ts", case, "--rule", rule, "-o", str(out)]
    assert main([*args, "--cases", str(REPO / "cases"), "--baselines", str(REPO / "conformance")]) == 0
    return out


def _node_with(script: Path, runtime: Path) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    assert node is not None
    command = [node, "--experimental-import-meta-resolve", script.name, str(runtime)]
    return subprocess.run(
        command, capture_output=True, text=True, cwd=script.parent, timeout=120, check=False
    )


@pytest.fixture(scope="module")
def prompty_ts_runtime() -> Path:
    from tests.prompty_ts_build import built_runtime

    return built_runtime()


@pytest.mark.parametrize(
    ("case", "rule"), PROMPTY_TS_CASES, ids=[c[0].split(".")[0] for c in PROMPTY_TS_CASES]
)
def test_a_prompty_ts_reproduction_fails_as_its_finding_says_without_wireconf(
    tmp_path, prompty_ts_runtime, case, rule
):
    script = _prompty_ts_script(tmp_path, case, rule)
    text = script.read_text(encoding="utf-8")
    assert "@wireconf" not in text and "exec_protocol" not in text, text[:600]
    done = _node_with(script, prompty_ts_runtime)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{rule}: " in done.stdout and "expected: " in done.stdout and "actual:   " in done.stdout, (
        done.stdout
    )


def _patched_anthropic(tmp: Path, runtime: Path, fix: tuple[str, str, str]) -> Path:
    """The runtime's folder again, its Anthropic package a copy with the one line of ``fix`` changed
    (the file, the line, its replacement); the other packages and node_modules linked."""
    patched = tmp / "typescript"
    (patched / "packages").mkdir(parents=True)
    (patched / "node_modules").symlink_to(runtime / "node_modules")
    for package in (runtime / "packages").iterdir():
        if package.name != "anthropic":
            (patched / "packages" / package.name).symlink_to(package)
    shutil.copytree(runtime / "packages" / "anthropic", patched / "packages" / "anthropic", symlinks=True)
    source = patched / fix[0]
    text = source.read_text(encoding="utf-8")
    assert text.count(fix[1]) == 1, f"the line to fix moved in {fix[0]}: update the fix for this build"
    source.write_text(text.replace(fix[1], fix[2]), encoding="utf-8")
    return patched


def test_a_prompty_ts_reproduction_passes_against_the_runtime_patched_where_the_fix_is_one_line(
    tmp_path, prompty_ts_runtime
):
    case, rule = PROMPTY_TS_CASES[1]
    script = _prompty_ts_script(tmp_path, case, rule)
    assert _node_with(script, prompty_ts_runtime).returncode == 1  # the finding, unpatched
    done = _node_with(script, _patched_anthropic(tmp_path, prompty_ts_runtime, PROMPTY_TS_FIX))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all 1 difference(s) fixed" in done.stdout, done.stdout


# -- issue 36.1: the root causes that had no reproduction -------------------------------------------------


def _bare_of(base: Path, root: Path, *first: Path) -> Path:
    """A venv without pip of the interpreter ``base`` (a runtime's environment on another Python than
    this one) whose path is the folders ``first`` only: its Python."""
    subprocess.run([str(base), "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    Path(_site_packages_of(python), "runtime.pth").write_text("\n".join(map(str, first)) + "\n")
    return python


def _patched_copy(installed: Path, package: str, into: Path, fix: tuple[str, str, str]) -> Path:
    """``package`` of ``installed`` copied into ``into`` with ``fix`` (file, line, new line) applied once."""
    shutil.copytree(installed / package, into / package)
    source = into / fix[0]
    text = source.read_text(encoding="utf-8")
    assert text.count(fix[1]) == 1, f"the line to fix moved: update the fix of {fix[0]} for this release"
    source.write_text(text.replace(fix[1], fix[2]), encoding="utf-8")
    return into


LUTHIEN = (
    "luthien-97480124",
    "blocks.openai.chat.empty-content-in-tool-phase-stripped",
    "blocks/empty-content-stripped",
)

LUTHIEN_FIX = (
    "luthien_proxy/v2/streaming/stream_processor.py",
    "        delta = choice.delta if isinstance(choice.delta, dict) else {}\n",
    "        delta = choice.delta if isinstance(choice.delta, dict) else choice.delta.model_dump()\n",
)
"""The one-line fix of luthien-proxy's findings at 97480124: ``StreamProcessor._update_state`` reads a
delta only when it is a dict, and LiteLLM hands it a pydantic ``Delta``, so no block is ever made."""


def test_a_blocks_reproduction_runs_litellm_for_real_and_passes_once_luthien_is_fixed(tmp_path):
    """luthien-proxy's stream processor over a real ``litellm.acompletion`` against the script's server:
    the finding shows at the commit judged, and is gone with the one-line fix in a copy of the checkout."""
    from tests.integration.test_seed_runtimes import luthien_src

    name, case, rule = LUTHIEN
    src = luthien_src(name)
    env = runtime_env(name)
    script = _script(tmp_path, name, case, rule, python=env.python)
    text = script.read_text(encoding="utf-8")
    assert "litellm.acompletion(" in text and "from luthien_proxy" in text
    assert not re.search(r"^\s*(import|from) wireconf", text, re.MULTILINE), "the script imports wireconf"
    bare = _bare_environment(tmp_path / "venv", site_packages(env))

    def run(source: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(bare), "-I", str(script)],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=120,
            env={"LUTHIEN_SRC": str(source), "PATH": "/usr/bin:/bin"},
        )

    done = run(src)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{rule}: " in done.stdout and "expected: " in done.stdout, done.stdout
    patched = tmp_path / "patched"
    shutil.copytree(src, patched)
    source = patched / LUTHIEN_FIX[0]
    original = source.read_text(encoding="utf-8")
    assert original.count(LUTHIEN_FIX[1]) == 1, "the line to fix moved: update LUTHIEN_FIX"
    source.write_text(original.replace(LUTHIEN_FIX[1], LUTHIEN_FIX[2]), encoding="utf-8")
    done = run(patched)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "difference(s) fixed" in done.stdout, done.stdout


AGENTFLOW = (
    "convert.openai.chat.real-reasoning-tokens",
    "convert/usage-reasoning-tokens",
    "$[*].usage.reasoning_tokens",
)

AGENTFLOW_FIX = (
    "agentflow/adapters/llm/litellm_converter.py",
    '            reasoning_tokens=(usages_data.get("prompt_tokens_details") or {}).get(\n',
    '            reasoning_tokens=(usages_data.get("completion_tokens_details") or {}).get(\n',
)
"""The one-line fix of Agentflow's ``convert/usage-reasoning-tokens`` finding: ``convert_response`` reads
the reasoning tokens from ``prompt_tokens_details``, where no provider puts them."""


def test_a_convert_reproduction_fails_as_said_and_passes_once_agentflow_is_fixed(tmp_path, agentflow_python):
    case, rule, path = AGENTFLOW
    python = Path(agentflow_python)
    installed = _site_packages_of(python)
    script = _script(tmp_path, "agentflow", case, rule, path, python=python)
    text = script.read_text(encoding="utf-8")
    assert "LiteLLMConverter()" in text and "litellm.acompletion(" in text
    assert not re.search(r"^\s*(import|from) wireconf", text, re.MULTILINE), "the script imports wireconf"
    bare = _bare_of(python, tmp_path / "unpatched", installed)
    probe = subprocess.run([str(bare), "-I", "-c", "import wireconf"], capture_output=True, text=True)
    assert probe.returncode == 1 and "No module named 'wireconf'" in probe.stderr, probe
    done = _run(bare, script)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{rule}: " in done.stdout and "usage.reasoning_tokens" in done.stdout, done.stdout
    patched = _patched_copy(installed, "agentflow", tmp_path / "patched", AGENTFLOW_FIX)
    done = _run(_bare_of(python, tmp_path / "venv", patched, installed), script)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all 1 difference(s) fixed" in done.stdout, done.stdout


PROMPTY_TS_REFUSAL = ("wire.anthropic.messages.audio-part-raises", "7.5/unsupported-part-raises")

PROMPTY_TS_REFUSAL_FIX = (
    "packages/anthropic/dist/index.js",
    '      return { type: "text", text: `[audio: ${part.source}]` };\n',
    '      throw new Error("anthropic_message: an audio part cannot be sent to Anthropic");\n',
)
"""The one-line fix of prompty-ts's ``7.5/unsupported-part-raises`` finding: its Anthropic package writes
an audio part as a text ``[audio: ...]``, where the rule raises."""


def test_a_javascript_wire_reproduction_shows_a_request_sent_where_the_input_was_to_be_refused(
    tmp_path, prompty_ts_runtime
):
    case, rule = PROMPTY_TS_REFUSAL
    script = _prompty_ts_script(tmp_path, case, rule)
    done = _node_with(script, prompty_ts_runtime)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{rule}: " in done.stdout and "raised before any request" in done.stdout, done.stdout
    done = _node_with(script, _patched_anthropic(tmp_path, prompty_ts_runtime, PROMPTY_TS_REFUSAL_FIX))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "fixed: the runtime raised before sending" in done.stdout, done.stdout


PROMPTY_E2E = ("e2e.openai.embeddings.single-text", "7.2/api-type-embedding")

PROMPTY_E2E_FIX = (
    "prompty/providers/openai/executor.py",
    '            "input": data,\n'
    '            "model": model,\n        }\n        # Only pass through additional',
    '            "input": data[0].to_text_content() if len(data) == 1 else data,\n'
    '            "model": model,\n        }\n        # Only pass through additional',
)
"""The one-line fix of prompty's embeddings finding for one message: ``_build_embedding_args`` passes the
message list itself as ``input`` (Message objects no SDK can send: a TypeError before sending); the
fixed line sends the one message's text."""


def test_an_e2e_raise_before_sending_shows_until_the_runtime_sends(tmp_path, bare):
    case, rule = PROMPTY_E2E
    installed = site_packages(runtime_env("prompty"))
    script = _script(tmp_path, "prompty", case, rule, "$")
    done = _run(_bare_environment(tmp_path / "unpatched", installed), script)
    assert done.returncode == 1, done.stdout + done.stderr
    assert (
        "the runtime sent no request: it raised builtins.TypeError" in done.stdout
        and f"{rule}: " in done.stdout
    )
    patched = _patched_copy(installed, "prompty", tmp_path / "patched", PROMPTY_E2E_FIX)
    done = _run(_bare_environment(tmp_path / "venv", patched, installed), script)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all 1 difference(s) fixed" in done.stdout, done.stdout


def test_a_key_the_providers_contract_has_not_shows_until_the_runtime_leaves_it_out(tmp_path, bare):
    """``wire.openai.chat.every-option-set``: prompty sends ``top_k``, which Chat Completions' contract
    does not have (no rule of the catalogue: the provider's contract); the SDK refuses the keyword."""
    installed = site_packages(runtime_env("prompty"))
    script = _script(tmp_path, "prompty", "wire.openai.chat.every-option-set", "provider-contract", "$.top_k")
    done = _run(_bare_environment(tmp_path / "unpatched", installed), script)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "provider-contract: the provider's contract (CreateChatCompletionRequest)" in done.stdout
    patched = _patched_copy(installed, "prompty", tmp_path / "patched", PROMPTY_FIX)
    done = _run(_bare_environment(tmp_path / "venv", patched, installed), script)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all 1 difference(s) fixed" in done.stdout, done.stdout


def test_a_media_url_the_input_names_is_downloaded_from_the_script_offline(tmp_path, bare):
    """LiteLLM downloads an Anthropic image URL to inline its bytes: the script answers the download with
    the harness's fixture (no network), so the request LiteLLM builds in production shows the finding."""
    rule = "7.5/image-url-source"
    installed = site_packages(runtime_env("litellm"))
    case = "wire.anthropic.messages.image-url-is-a-url-source"
    script = _script(tmp_path, "litellm", case, rule, "$.messages[*].content[*].source.url")
    assert "answer_downloads()" in script.read_text(encoding="utf-8")
    done = _run(_bare_environment(tmp_path / "venv", installed), script)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{rule}: " in done.stdout and 'expected: "https://upload.wikimedia.org/' in done.stdout, (
        done.stdout
    )


PROMPTY_MAPPING = ("process.openai.chat.mapping-text", "8/plain-mapping-response")

PROMPTY_MAPPING_FIX = (
    "prompty/providers/openai/processor.py",
    "        return _process_response(response, agent)\n\n    @trace\n    async def process_async(",
    '        return _process_response(__import__("openai").types.chat.ChatCompletion.model_validate(response)'
    " if isinstance(response, dict) else response, agent)\n\n    @trace\n    async def process_async(",
)
"""The one-line fix of prompty's ``8/plain-mapping-response`` finding: ``OpenAIProcessor.process`` returns
a plain mapping as it is; the fixed line reads it as the SDK's ``ChatCompletion`` first."""


def test_a_plain_mapping_reproduction_hands_the_body_to_the_processor_until_fixed(tmp_path, bare):
    case, rule = PROMPTY_MAPPING
    installed = site_packages(runtime_env("prompty"))
    script = _script(tmp_path, "prompty", case, rule)
    text = script.read_text(encoding="utf-8")
    assert 'response = json.loads(ANSWER["body"])' in text and "get_executor(" not in text
    done = _run(_bare_environment(tmp_path / "unpatched", installed), script)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{rule}: " in done.stdout and 'expected: "This is a test."' in done.stdout, done.stdout
    patched = _patched_copy(installed, "prompty", tmp_path / "patched", PROMPTY_MAPPING_FIX)
    done = _run(_bare_environment(tmp_path / "venv", patched, installed), script)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all 1 difference(s) fixed" in done.stdout, done.stdout
