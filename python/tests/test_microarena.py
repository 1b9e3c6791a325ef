"""microarena's Python module against the CLI: the same figures, key by key."""

import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import microarena

MODELS = ["kws_ref_model", "vww_96_int8", "demo"]
# Wall-clock times differ from run to run; everything else must match.
TIMING_KEYS = {"plan_seconds", "invoke_seconds", "invoke_seconds_min", "seconds", "elapsed_seconds"}


def assert_same(ours, theirs, where="$"):
    """Compares two JSON documents key by key (timings aside), naming the first difference."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict), where
        assert sorted(ours) == sorted(theirs), f"{where}: keys differ"
        for key in theirs:
            if key in TIMING_KEYS:
                continue
            assert_same(ours[key], theirs[key], f"{where}.{key}")
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), f"{where}: lengths differ"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, f"{where}[{i}]")
    else:
        assert ours == theirs, f"{where}: {ours!r} != {theirs!r}"


@pytest.mark.parametrize("name", MODELS)
def test_inspect_matches_cli(name, model_path, run_cli):
    path = model_path(name)
    report = microarena.Model.load(path).inspect()
    assert_same(report.to_dict(), run_cli.json("inspect", path))


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("options,flags", [
    ({"planner": "greedy"}, ["--planner", "greedy"]),
    ({"planner": "greedy-tflm", "align": 4}, ["--planner", "greedy-tflm", "--align", "4"]),
    ({"planner": "greedy", "overlap": True, "target": "cortex-m"},
     ["--planner", "greedy", "--overlap", "--target", "cortex-m"]),
])
def test_plan_matches_cli(name, options, flags, model_path, run_cli):
    path = model_path(name)
    plan = microarena.Model.load(path).plan(**options)
    expected = run_cli.json("plan", path, *flags)
    assert_same(plan.to_dict(), expected)
    assert plan.arena_bytes == expected["arena_bytes"]
    assert plan.head_bytes == expected["head_bytes"]


def test_plan_optimal_without_time_limit_matches_cli(model_path, run_cli):
    path = model_path("kws_ref_model")
    plan = microarena.Model.load(path).plan(time_limit=0)
    expected = run_cli.json("plan", path, "--time-limit", "0")
    assert_same(plan.to_dict(), expected)
    assert plan.proven_optimal == expected["proven_optimal"]


def test_plan_best_order_matches_cli(model_path, run_cli):
    path = model_path("demo")
    plan = microarena.Model.load(path).plan(planner="greedy", order="best", time_limit=0)
    expected = run_cli.json("plan", path, "--planner", "greedy", "--order", "best", "--time-limit", "0")
    assert "order" in expected
    assert_same(plan.to_dict(), expected)


@pytest.mark.parametrize("name", ["kws_ref_model", "demo"])
def test_plan_tflm_runtime_matches_cli(name, model_path, run_cli):
    path = model_path(name)
    report = microarena.Model.load(path).plan(runtime="tflm")
    assert_same(report.to_dict(), run_cli.json("plan", path, "--runtime", "tflm"))


@pytest.mark.parametrize("name", MODELS)
def test_budget_matches_cli(name, model_path, run_cli):
    path = model_path(name)
    report = microarena.Model.load(path).budget(ram="16K", planner="greedy", time_limit=0)
    # 16 KiB is too small for these models: the CLI says so with exit code 3.
    expected = run_cli.json("budget", path, "--ram", "16K", "--planner", "greedy", "--time-limit", "0",
                            expect=3)
    assert_same(report.to_dict(), expected)
    assert report.ram_bytes == 16 * 1024


def test_budget_options_match_cli(model_path, run_cli):
    path = model_path("demo")
    report = microarena.Model.load(path).budget(ram="1K", copy_weights=True, align=64, target="cortex-m",
                                                order="best", overlap=True, time_limit=0)
    expected = run_cli.json("budget", path, "--ram", "1K", "--copy-weights", "--align", "64", "--target",
                            "cortex-m", "--order", "best", "--overlap", "--time-limit", "0", expect=3)
    assert_same(report.to_dict(), expected)


def test_budget_takes_ram_in_bytes(model_path, run_cli):
    path = model_path("demo")
    report = microarena.Model.load(path).budget(ram=1 << 20, time_limit=0)
    expected = run_cli.json("budget", path, "--ram", "1M", "--time-limit", "0")
    assert_same(report.to_dict(), expected)


@pytest.mark.parametrize("name", MODELS)
def test_run_matches_cli(name, model_path, run_cli, tmp_path):
    path = model_path(name)
    model = microarena.Model.load(path)
    result = model.run(seed=3)
    expected = run_cli.json("run", path, "--seed", "3", "--output-dir", tmp_path)
    # The CLI names the files it wrote; the module returns arrays instead.
    assert len(expected["outputs"]) == len(result.outputs)
    ours = result.to_dict()
    ours["outputs"] = expected["outputs"]
    assert_same(ours, expected)
    assert result.to_dict()["outputs"] == []
    for file, array, (_, type_name, shape) in zip(expected["outputs"], result.outputs, model.outputs()):
        with open(file, "rb") as f:
            assert array.tobytes() == f.read()
        assert array.shape == shape
        assert array.dtype == np.dtype(type_name.lower())


def test_run_with_output_dir_writes_what_the_cli_writes(model_path, run_cli, tmp_path):
    path = model_path("kws_ref_model")
    result = microarena.Model.load(path).run(output_dir=tmp_path / "ours")
    expected = run_cli.json("run", path, "--output-dir", tmp_path / "cli")
    assert len(result.to_dict()["outputs"]) == len(expected["outputs"])
    for ours, theirs in zip(result.to_dict()["outputs"], expected["outputs"]):
        with open(ours, "rb") as a, open(theirs, "rb") as b:
            assert a.read() == b.read()


def test_run_inputs_as_numpy_arrays(model_path, run_cli, tmp_path):
    path = model_path("vww_96_int8")
    model = microarena.Model.load(path)
    ((_, type_name, shape),) = model.inputs()
    rng = np.random.default_rng(7)
    given = rng.integers(-128, 128, size=shape, dtype=np.int8)
    assert type_name == "INT8"
    input_file = tmp_path / "input.bin"
    input_file.write_bytes(given.tobytes())
    result = model.run(inputs=[given])
    expected = run_cli.json("run", path, "--input", input_file, "--output-dir", tmp_path)
    with open(expected["outputs"][0], "rb") as f:
        assert result.outputs[0].tobytes() == f.read()
    assert_same(result.top5, expected["top5"])
    with pytest.raises(microarena.InvalidArgumentError):
        model.run(inputs=[given.astype(np.float32)])


def test_run_planner_and_arena_options_match_cli(model_path, run_cli, tmp_path):
    path = model_path("kws_ref_model")
    expected = run_cli.json("run", path, "--planner", "linear", "--align", "64", "--copy-weights",
                            "--output-dir", tmp_path)
    result = microarena.Model.load(path).run(planner="linear", align=64, copy_weights=True)
    assert result.arena_bytes == expected["arena_bytes"]
    assert result.persistent_bytes == expected["persistent_bytes"]
    bigger = microarena.Model.load(path).run(arena=expected["arena_bytes"] + 1000, planner="linear")
    assert bigger.arena_bytes == expected["arena_bytes"] + 1000


def test_run_dump_tensors_matches_cli(model_path, run_cli, tmp_path):
    path = model_path("demo")
    ours, theirs = tmp_path / "ours", tmp_path / "cli"
    result = microarena.Model.load(path).run(dump_tensors=ours)
    expected = run_cli.json("run", path, "--dump-tensors", theirs, "--output-dir", tmp_path)
    assert result.tensors_written == expected["tensors_written"] > 0
    assert sorted(os.listdir(ours)) == sorted(os.listdir(theirs))
    for name in os.listdir(theirs):
        with open(ours / name, "rb") as a, open(theirs / name, "rb") as b:
            assert a.read() == b.read(), name


@pytest.mark.parametrize("name", ["kws_ref_model", "demo"])
def test_optimize_matches_cli(name, model_path, run_cli, tmp_path):
    path = model_path(name)
    ours, theirs = tmp_path / "ours.tflite", tmp_path / "cli.tflite"
    report = microarena.Model.load(path).optimize(ours, planner="greedy")
    expected = run_cli.json("optimize", path, "-o", theirs, "--planner", "greedy")
    document = report.to_dict()
    for key, value in expected.items():
        if isinstance(value, str) and value == str(theirs):
            assert document[key] == str(ours)
            document[key] = value
    assert_same(document, expected)
    assert ours.read_bytes() == theirs.read_bytes()
    # The optimized model carries its plan: planned offline by default.
    assert microarena.Model.load(ours).plan().planner == run_cli.json("plan", theirs)["planner"]


def test_optimize_best_order_with_overlap_matches_cli(model_path, run_cli, tmp_path):
    path = model_path("kws_ref_model")
    ours, theirs = tmp_path / "ours.tflite", tmp_path / "cli.tflite"
    report = microarena.Model.load(path).optimize(ours, order="best", overlap=True, time_limit=0)
    expected = run_cli.json("optimize", path, "-o", theirs, "--order", "best", "--overlap", "--time-limit", "0")
    document = report.to_dict()
    for key, value in expected.items():
        if value == str(theirs):
            document[key] = value
    assert_same(document, expected)
    assert ours.read_bytes() == theirs.read_bytes()


def test_plan_trusting_the_offline_plan_matches_cli(model_path, run_cli, tmp_path):
    # A model carrying an offline plan (written by optimize), planned as the CLI does.
    path = model_path("kws_ref_model")
    optimized = tmp_path / "optimized.tflite"
    run_cli.run("optimize", path, "-o", optimized, "--planner", "greedy")
    plan = microarena.Model.load(optimized).plan(trust_offline_plan=True)
    expected = run_cli.json("plan", optimized, "--trust-offline-plan")
    assert expected["planner"] == "offline"
    assert_same(plan.to_dict(), expected)


def test_load_bytes_plans_as_the_file(model_path, run_cli):
    path = model_path("kws_ref_model")
    with open(path, "rb") as f:
        data = f.read()
    model = microarena.Model.load(data)
    assert model.size_bytes == len(data)
    assert model.to_bytes() == data
    assert model.plan(planner="greedy").arena_bytes == run_cli.json("plan", path, "--planner", "greedy")[
        "arena_bytes"]


@pytest.mark.parametrize("name", MODELS)
def test_inputs_and_outputs_as_cli_inspect_says(name, model_path, run_cli):
    path = model_path(name)
    model = microarena.Model.load(path)
    subgraph = run_cli.json("inspect", path)["subgraphs"][0]
    tensors = {t["index"]: t for t in subgraph["tensors"]}
    for ours, indices in ((model.inputs(), subgraph["inputs"]), (model.outputs(), subgraph["outputs"])):
        assert len(ours) == len(indices)
        for (name_, type_name, shape), index in zip(ours, indices):
            assert name_ == tensors[index]["name"]
            assert type_name == tensors[index]["type"]
            assert list(shape) == tensors[index]["shape"]


def test_report_attributes_are_the_json_keys(model_path):
    plan = microarena.Model.load(model_path("demo")).plan(planner="greedy")
    document = plan.to_dict()
    for key, value in document.items():
        assert getattr(plan, key) == value
        assert plan[key] == value
    with pytest.raises(AttributeError):
        plan.no_such_key
    document["head_bytes"] = -1
    assert plan.head_bytes != -1  # to_dict() is a copy


# Bad input: the right exception class, never a crash.

def test_malformed_bytes_raise_malformed_model(run_cli, tmp_path):
    data = b"TFL3" + bytes(range(200))
    with pytest.raises(microarena.MalformedModelError) as raised:
        microarena.Model.load(data)
    assert isinstance(raised.value, microarena.Error)
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(data)
    cli_error = run_cli.run("inspect", bad, expect=None)
    assert cli_error.returncode != 0
    with pytest.raises(microarena.MalformedModelError) as from_file:
        microarena.Model.load(bad)
    assert str(from_file.value) in cli_error.stderr


def test_empty_and_truncated_bytes_raise(model_path):
    with pytest.raises(microarena.Error):
        microarena.Model.load(b"")
    with open(model_path("kws_ref_model"), "rb") as f:
        data = f.read()
    for cut in (8, 100, len(data) // 2, len(data) - 1):
        with pytest.raises(microarena.MalformedModelError):
            microarena.Model.load(data[:cut])


def test_missing_file_raises_not_found(run_cli, tmp_path):
    missing = tmp_path / "missing.tflite"
    with pytest.raises(microarena.NotFoundError) as raised:
        microarena.Model.load(missing)
    assert str(missing) in str(raised.value)
    assert str(raised.value) in run_cli.run("inspect", missing, expect=None).stderr


def test_too_small_arena_raises_out_of_memory_with_the_exact_minimum(model_path, run_cli, tmp_path):
    path = model_path("kws_ref_model")
    minimum = run_cli.json("run", path, "--output-dir", tmp_path)["arena_bytes"]
    with pytest.raises(microarena.OutOfMemoryError) as raised:
        microarena.Model.load(path).run(arena=minimum - 16)
    cli_error = run_cli.run("run", path, "--arena", minimum - 16, "--output-dir", tmp_path, expect=None)
    assert cli_error.returncode != 0
    assert raised.value.exact_minimum_bytes == minimum
    assert f"the exact minimum arena for this model is {minimum} B" in cli_error.stderr
    assert str(raised.value) in cli_error.stderr


def test_unsupported_op_raises_unsupported(unsupported_model, run_cli):
    path, command = unsupported_model
    cli_error = run_cli.run(*command, expect=None)
    assert cli_error.returncode != 0
    model = microarena.Model.load(path)
    with pytest.raises(microarena.UnsupportedError) as raised:
        if command[0] == "run":
            model.run()
        else:
            model.plan(runtime="tflm")
    assert str(raised.value) in cli_error.stderr


@pytest.mark.parametrize("call", [
    lambda m: m.plan(planner="nope"),
    lambda m: m.plan(align=3),
    lambda m: m.plan(order="random"),
    lambda m: m.plan(target="z80"),
    lambda m: m.plan(runtime="stock"),
    lambda m: m.budget(ram="lots"),
    lambda m: m.run(planner="optimal"),
    lambda m: m.run(repeat=0),
    lambda m: m.run(overlap=True, dump_tensors="x"),
    lambda m: m.run(inputs=[np.zeros(4, np.int8)] * 9),
    lambda m: m.optimize("x.tflite", planner="offline"),
])
def test_bad_options_raise_invalid_argument(call, model_path):
    with pytest.raises(microarena.InvalidArgumentError):
        call(microarena.Model.load(model_path("demo")))


def test_every_error_code_has_its_class():
    # The library's own list (ErrorCodeName over every code): a new ErrorCode
    # without its class here fails.
    from microarena import _microarena
    library = dict(_microarena.error_codes())
    assert library, "the extension names no error code"
    assert {code: cls.code_name for code, cls in microarena.ERROR_CLASSES.items()} == library
    for cls in microarena.ERROR_CLASSES.values():
        assert issubclass(cls, microarena.Error)
        assert cls.__name__ in microarena.__all__
    assert len(set(microarena.ERROR_CLASSES.values())) == len(library)


# In a notebook.

def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return name
    return None


@pytest.mark.parametrize("name", ["kws_ref_model", "demo"])
def test_repr_html_draws_one_rectangle_per_buffer(name, model_path, run_cli, tmp_path):
    # As tests/html_report_test.cc: the page counts the rectangles it drew into
    # <body data-buffer-rects> once a browser has run its scripts.
    browser = os.environ.get("MICROARENA_CHROMIUM") or _chromium()
    if browser is None:
        if os.environ.get("MICROARENA_STRICT") == "1":
            pytest.fail("MICROARENA_STRICT=1 and no headless browser (chromium)")
        pytest.skip("no headless browser (chromium)")
    path = model_path(name)
    plan = microarena.Model.load(path).plan(planner="greedy")
    buffers = len(run_cli.json("plan", path, "--planner", "greedy")["buffers"])
    assert buffers > 0
    page = tmp_path / "plan.html"
    page.write_text(plan._repr_html_())
    cli_page = tmp_path / "cli.html"
    run_cli.run("plan", path, "--planner", "greedy", "--html", cli_page)
    assert page.read_text() == cli_page.read_text()
    done = subprocess.run(
        ["timeout", "120", browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         f"--user-data-dir={tmp_path}/profile", "--virtual-time-budget=3000", "--dump-dom",
         f"file://{page}"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    body = re.search(r"<body[^>]*>", done.stdout).group(0)
    assert f'data-buffer-rects="{buffers}"' in body, body
    assert "data-script-errors" not in body


def test_plot_writes_a_png(model_path, tmp_path):
    plan = microarena.Model.load(model_path("vww_96_int8")).plan(planner="greedy")
    png = tmp_path / "plan.png"
    figure = plan.plot(png)
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 10000
    # One rectangle per buffer, spanning its lifetime and its bytes.
    rectangles = figure.axes[0].patches
    assert len(rectangles) == len(plan.buffers)
    for rectangle, buffer in zip(rectangles, plan.buffers):
        assert rectangle.get_x() == buffer["first_op"]
        assert rectangle.get_width() == buffer["end_op"] - buffer["first_op"]
        assert rectangle.get_y() == buffer["offset_bytes"]
        assert rectangle.get_height() == buffer["size_bytes"]
