"""microarena for Python: plan, budget, optimize, inspect and run TFLite Micro models.

The same library calls as the `microarena` CLI; every report is the document
the CLI prints with --json, its keys as attributes (and `to_dict()`).

    import microarena
    model = microarena.Model.load("model.tflite")
    print(model.plan().arena_bytes)
"""

import json
import os

import numpy as np

from . import _microarena
from .errors import (  # noqa: F401 - the package's exceptions
    ERROR_CLASSES, Error, InfeasibleError, InternalError, InvalidArgumentError, IoError,
    MalformedModelError, NotFoundError, OutOfMemoryError, StoppedEarlyError, TimeoutError,
    UnsupportedError)

__all__ = ["Model", "Report", "Plan", "RunResult", "Error"] + [
    cls.__name__ for cls in ERROR_CLASSES.values()]

# TFLite tensor types as numpy dtypes (those numpy has).
_DTYPES = {
    "FLOAT32": np.float32, "FLOAT16": np.float16, "FLOAT64": np.float64, "INT8": np.int8,
    "UINT8": np.uint8, "INT16": np.int16, "UINT16": np.uint16, "INT32": np.int32,
    "UINT32": np.uint32, "INT64": np.int64, "UINT64": np.uint64, "BOOL": np.bool_,
    "COMPLEX64": np.complex64, "COMPLEX128": np.complex128,
}


class Report:
    """A JSON report of the CLI: its keys are attributes; `to_dict()` gives the document."""

    def __init__(self, document):
        self._document = document

    def to_dict(self):
        """The document, as the CLI's --json prints it (a copy)."""
        return json.loads(json.dumps(self._document))

    def __getattr__(self, name):
        document = self.__dict__.get("_document", {})
        if name in document:
            return document[name]
        raise AttributeError(f"{type(self).__name__} has no key '{name}'")

    def __getitem__(self, key):
        return self._document[key]

    def __contains__(self, key):
        return key in self._document

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._document))

    def __repr__(self):
        keys = ", ".join(list(self._document)[:6])
        return f"<microarena.{type(self).__name__} {keys}, ...>"


class Plan(Report):
    """`plan --json`; in a notebook it shows the HTML report (`plan --html`)."""

    def __init__(self, document, html):
        super().__init__(document)
        self._html = html

    def _repr_html_(self):
        return self._html

    def html(self):
        """The self-contained HTML page of the plan."""
        return self._html

    def plot(self, path=None, ax=None):
        """Draws the head over op steps: one rectangle per buffer (x: its lifetime
        [first_op, end_op) in op steps, y: offset_bytes .. + size_bytes). Writes a PNG to
        `path` when given; returns the matplotlib figure."""
        # A Figure of its own (no pyplot state): saved through Agg, and shown
        # by a notebook when returned.
        from matplotlib.figure import Figure
        from matplotlib.patches import Rectangle

        if ax is None:
            figure = Figure(figsize=(10, 5))
            ax = figure.add_subplot()
        else:
            figure = ax.figure
        buffers = self._document.get("buffers", [])
        colors = {"tensor": "tab:blue", "scratch": "tab:orange"}
        end_step = 1
        for buffer in buffers:
            first, end = buffer["first_op"], buffer["end_op"]
            end_step = max(end_step, end)
            ax.add_patch(Rectangle((first, buffer["offset_bytes"]), end - first, buffer["size_bytes"],
                                   facecolor=colors.get(buffer.get("kind"), "tab:gray"),
                                   edgecolor="black", linewidth=0.5, alpha=0.8))
        head = self._document.get("head_bytes", 0)
        ax.axhline(head, color="tab:red", linewidth=1, label=f"head {head} B")
        ax.set_xlim(0, end_step)
        ax.set_ylim(0, max(head, 1) * 1.05)
        ax.set_xlabel("op step")
        ax.set_ylabel("offset in the head (bytes)")
        ax.set_title(f"{os.path.basename(str(self._document.get('model', '')))}: "
                     f"{len(buffers)} buffers, planner {self._document.get('planner', '')}")
        ax.legend(loc="upper right")
        if path is not None:
            figure.savefig(path, format="png", dpi=100)
        return figure


class RunResult(Report):
    """`run --json`, plus `outputs`: the output tensors as numpy arrays."""

    def __init__(self, document, outputs):
        super().__init__(document)
        self.outputs = outputs


class Model:
    """A .tflite model, loaded and verified."""

    def __init__(self, handle):
        self._handle = handle

    @classmethod
    def load(cls, path_or_bytes, label="<bytes>"):
        """Loads a model from a path or from its bytes (bytes, bytearray, memoryview)."""
        if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
            return cls(_microarena.load_bytes(bytes(path_or_bytes), label))
        return cls(_microarena.load_path(os.fspath(path_or_bytes)))

    @property
    def path(self):
        """The path the model was loaded from (or the label of its bytes)."""
        return self._handle.path

    @property
    def size_bytes(self):
        return self._handle.size_bytes

    def to_bytes(self):
        """The model file's bytes."""
        return self._handle.bytes

    def inputs(self):
        """Subgraph 0's inputs: (name, type, shape) each."""
        return [(name, type_name, tuple(shape))
                for name, type_name, shape in _microarena.signature(self._handle, False)]

    def outputs(self):
        """Subgraph 0's outputs: (name, type, shape) each."""
        return [(name, type_name, tuple(shape))
                for name, type_name, shape in _microarena.signature(self._handle, True)]

    def inspect(self):
        """`inspect MODEL --json`."""
        return Report(json.loads(_microarena.inspect_json(self._handle)))

    def plan(self, planner="", order="stored", align=16, time_limit=10.0, overlap=False,
             trust_offline_plan=False, target="host", runtime=None):
        """`plan MODEL --json` with the CLI's options; planner "" is the CLI's default
        (offline when the model has a plan, else optimal). runtime="tflm": stock TFLM's
        arena, predicted (`plan --runtime tflm --json`; takes target only)."""
        if runtime is not None:
            if runtime != "tflm":
                raise InvalidArgumentError(f"runtime '{runtime}' is not tflm")
            return Report(json.loads(_microarena.tflm_arena_json(self._handle, target)))
        document, html = _microarena.plan(self._handle, planner, order, int(align), float(time_limit),
                                          bool(overlap), bool(trust_offline_plan), target)
        return Plan(json.loads(document), html)

    def budget(self, ram, planner="auto", align=16, order="stored", overlap=False,
               copy_weights=False, time_limit=5.0, target="host"):
        """`budget MODEL --ram RAM --json`; ram in bytes (int) or as the CLI takes it ("64K")."""
        return Report(json.loads(_microarena.budget_json(
            self._handle, str(ram), planner, int(align), order, bool(overlap), bool(copy_weights),
            float(time_limit), target)))

    def optimize(self, output, planner="optimal", order="stored", align=16, time_limit=10.0,
                 overlap=False, target="host"):
        """`optimize MODEL -o OUTPUT --json`: writes the optimized model to `output`."""
        return Report(json.loads(_microarena.optimize_json(
            self._handle, os.fspath(output), planner, order, int(align), float(time_limit),
            bool(overlap), target)))

    def run(self, inputs=None, seed=1, arena=0, repeat=1, planner="auto", align=16,
            copy_weights=False, overlap=False, trust_offline_plan=False, dump_tensors=None,
            output_dir=None):
        """`run MODEL --json`: runs the model in its exact minimum arena (or `arena` bytes).
        `inputs`: one numpy array (or bytes) per model input, in order; missing ones come
        from the input generator with `seed`. Returns a RunResult whose `outputs` are
        numpy arrays of the outputs' types and shapes."""
        if inputs is None:
            inputs = []
        elif isinstance(inputs, np.ndarray):
            inputs = [inputs]
        if len(inputs) > len(self.inputs()):
            raise InvalidArgumentError(
                f"{len(inputs)} inputs given; the model has {len(self.inputs())}")
        raw = []
        for given, (name, type_name, _) in zip(inputs, self.inputs()):
            if isinstance(given, (bytes, bytearray, memoryview)):
                raw.append(bytes(given))
                continue
            dtype = _DTYPES.get(type_name)
            array = np.asarray(given)
            if dtype is not None and array.dtype != dtype:
                raise InvalidArgumentError(
                    f"input '{name}' is {type_name}; the array given is {array.dtype}")
            raw.append(np.ascontiguousarray(array).tobytes())
        document, outputs = _microarena.run(
            self._handle, raw, int(arena), int(seed), int(repeat), planner, int(align),
            bool(copy_weights), bool(overlap), bool(trust_offline_plan),
            os.fspath(dump_tensors) if dump_tensors is not None else "",
            os.fspath(output_dir) if output_dir is not None else "")
        arrays = []
        for data, (_, type_name, shape) in zip(outputs, self.outputs()):
            dtype = _DTYPES.get(type_name)
            if dtype is None:
                arrays.append(data)
            else:
                arrays.append(np.frombuffer(data, dtype=dtype).reshape(shape).copy())
        return RunResult(json.loads(document), arrays)

    def __repr__(self):
        return f"<microarena.Model {self.path} ({self.size_bytes} B)>"
