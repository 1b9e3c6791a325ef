"""Fixtures: the CLI (the reference), the shared models and the demo model.

MICROARENA_CLI: the CLI binary (default build/release/tools/microarena/microarena).
MICROARENA_SHARED_DIR: the shared data (default ../shared from the repository).
MICROARENA_STRICT=1: a missing CLI or shared data fails instead of skipping.
"""

import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def _missing(what):
    if os.environ.get("MICROARENA_STRICT") == "1":
        pytest.fail(f"MICROARENA_STRICT=1 and {what} is missing")
    pytest.skip(f"{what} is missing")


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("MICROARENA_CLI") or str(REPO / "build/release/tools/microarena/microarena")
    if not os.access(path, os.X_OK):
        _missing(f"the CLI ({path})")
    return path


@pytest.fixture(scope="session")
def shared_dir():
    path = pathlib.Path(os.environ.get("MICROARENA_SHARED_DIR") or REPO.parent / "shared")
    if not (path / "models").is_dir():
        _missing(f"the shared data ({path}; set MICROARENA_SHARED_DIR)")
    return path


@pytest.fixture(scope="session")
def demo_model(cli, tmp_path_factory):
    path = tmp_path_factory.mktemp("demo") / "demo.tflite"
    subprocess.run([cli, "demo-model", "-o", str(path)], check=True, capture_output=True)
    return str(path)


@pytest.fixture(scope="session")
def model_path(shared_dir, demo_model):
    """The path of a model by name: the demo model or one of ../shared/models."""
    def path_of(name):
        if name == "demo":
            return demo_model
        return str(shared_dir / "models" / f"{name}.tflite")
    return path_of


class Cli:
    def __init__(self, path):
        self.path = path

    def run(self, *args, expect=0):
        done = subprocess.run([self.path, *map(str, args)], capture_output=True, text=True, timeout=600)
        if expect is not None:
            assert done.returncode == expect, done.stderr
        return done

    def json(self, *args, expect=0):
        return json.loads(self.run(*args, "--json", expect=expect).stdout)


@pytest.fixture(scope="session")
def run_cli(cli):
    return Cli(cli)


def _table_field(data, table, field):
    """The position of a flatbuffer table's field, or None when absent."""
    vtable = table - int.from_bytes(data[table:table + 4], "little", signed=True)
    vtable_size = int.from_bytes(data[vtable:vtable + 2], "little")
    entry = 4 + 2 * field
    if entry + 2 > vtable_size:
        return None
    offset = int.from_bytes(data[vtable + entry:vtable + entry + 2], "little")
    return table + offset if offset else None


def _follow(data, position):
    return position + int.from_bytes(data[position:position + 4], "little")


def with_builtin_code(data, from_code, to_code):
    """A copy of a .tflite file whose operator code `from_code` says `to_code`
    (schema/tflite.fbs: Model.operator_codes is field 1; OperatorCode's
    deprecated_builtin_code field 0, builtin_code field 3)."""
    data = bytearray(data)
    model = _follow(data, 0)
    codes = _follow(data, _table_field(data, model, 1))
    patched = 0
    for i in range(int.from_bytes(data[codes:codes + 4], "little")):
        code = _follow(data, codes + 4 + 4 * i)
        deprecated = _table_field(data, code, 0)
        builtin = _table_field(data, code, 3)
        value = int.from_bytes(data[builtin:builtin + 4], "little") if builtin else data[deprecated]
        if value != from_code:
            continue
        if deprecated is not None:
            data[deprecated] = to_code
        if builtin is not None:
            data[builtin:builtin + 4] = to_code.to_bytes(4, "little")
        patched += 1
    assert patched == 1, f"operator code {from_code} not found once"
    return bytes(data)


@pytest.fixture(scope="session")
def unsupported_model(model_path, tmp_path_factory):
    """kws_ref_model with its SOFTMAX (25) turned into LSH_PROJECTION (15), an op
    without a kernel here: (path, the CLI command that refuses it)."""
    with open(model_path("kws_ref_model"), "rb") as f:
        data = with_builtin_code(f.read(), 25, 15)
    folder = tmp_path_factory.mktemp("unsupported")
    path = folder / "lsh.tflite"
    path.write_bytes(data)
    return str(path), ["run", str(path), "--output-dir", str(folder)]
