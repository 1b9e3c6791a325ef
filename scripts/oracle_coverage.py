#!/usr/bin/env python3
"""Holds the op table to what the tests compared with TFLM.

  scripts/oracle_coverage.py OPS_JSON COVERAGE_FILE

OPS_JSON is `microarena ops --json`. COVERAGE_FILE is what a test run wrote
with MICROARENA_ORACLE_COVERAGE=FILE: one "<op> <type>" line per op of every
model TFLM ran (tests/tflm_oracle) in a test that compared it with microarena,
or whose TFLM goldens a test compared (../shared/golden).

Fails (exit 1) when
  - an op and type the table accepts never ran against TFLM (the table
    would promise what no test proved), or
  - an op ran against TFLM with a type the table does not list (the table
    would refuse, in `inspect`, models that run).
Types of ops whose table entry is "any" type are held to the common ones.
"""
import json
import sys

# What the oracle cannot run, with the test that proves it instead.
_RESOURCES = ("the oracle runs no resource variables; tests/control_flow_test.cc compares with TFLM on "
              "models computing the same without them")
NOT_IN_THE_ORACLE = {
    ("CIRCULAR_BUFFER (custom)", "INT8"):
        "the oracle build has no CIRCULAR_BUFFER; tests/circular_buffer_test.cc checks hand-worked bytes",
    ("CALL_ONCE", "-"): _RESOURCES,
    ("VAR_HANDLE", "INT32"): _RESOURCES,
    ("VAR_HANDLE", "RESOURCE"): _RESOURCES,
    ("READ_VARIABLE", "INT32"): _RESOURCES,
    ("READ_VARIABLE", "RESOURCE"): _RESOURCES,
    ("ASSIGN_VARIABLE", "INT32"): _RESOURCES,
    ("ASSIGN_VARIABLE", "RESOURCE"): _RESOURCES,
}
# For entries accepting (nearly) every type: the types that must have run.
COMMON_TYPES = ["FLOAT32", "INT8", "INT16", "INT32", "BOOL"]


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        table = json.load(f)
    try:
        with open(sys.argv[2]) as f:
            ran = {tuple(line.rsplit(" ", 1)) for line in f.read().splitlines() if line.strip()}
    except FileNotFoundError:
        print(f"oracle coverage: {sys.argv[2]} is missing: no test recorded a TFLM comparison "
              "(is ../shared/tools/tflm_oracle there?)", file=sys.stderr)
        return 1
    entries = table["ops"] + [dict(e, op=e["op"] + " (custom)") for e in table["custom_ops"]]
    accepted = {}
    unproven = []
    for entry in entries:
        op = entry["op"]
        if entry["operand"] == "-":  # control flow: operand types follow the subgraphs
            accepted[op] = None
            if not any(name == op for name, _ in ran) and (op, "-") not in NOT_IN_THE_ORACLE:
                unproven.append((op, "-"))
            continue
        types = entry["types"]
        accepted[op] = set(types)
        required = [t for t in types if t in COMMON_TYPES] if len(types) > 8 else types
        for t in required:
            if (op, t) not in ran and (op, t) not in NOT_IN_THE_ORACLE:
                unproven.append((op, t))
    untabled = sorted((op, t) for op, t in ran
                      if op in accepted and accepted[op] is not None and t not in accepted[op])
    pairs = sum(1 for e in entries for _ in (e["types"] or ["-"]))
    print(f"oracle coverage: {len(ran)} op/type pairs ran against TFLM; table: {len(entries)} ops, "
          f"{pairs} op/type pairs; {len(unproven)} never compared; {len(NOT_IN_THE_ORACLE)} proven otherwise")
    for (op, t), why in sorted(NOT_IN_THE_ORACLE.items()):
        print(f"  proven otherwise: {op} {t}: {why}")
    failed = False
    if unproven:
        failed = True
        print("The table accepts these, but no test compared them with TFLM:", file=sys.stderr)
        for op, t in sorted(unproven):
            print(f"  {op} {t}", file=sys.stderr)
    if untabled:
        failed = True
        print("These ran against TFLM with a type the table does not list (inspect would refuse them):",
              file=sys.stderr)
        for op, t in untabled:
            print(f"  {op} {t}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
