#!/usr/bin/env python3
"""Flash and RAM of a firmware ELF, split into runtime, kernels, model, arena
and the rest (startup, semihosting, main, libc/libgcc/libstdc++).

Totals come from `arm-none-eabi-size -A` on the ELF; the split comes from the
linker map (what each object file contributed after --gc-sections), and the
two must agree. With a map from `ld --cref`, also names the runtime and
kernel objects that call a printf-family function. Flash = .text + .rodata + .ARM.exidx + the initial copy of
.data; RAM = .data + .bss (the stack is listed apart).

  size_report.py FIRMWARE.elf FIRMWARE.map [REPO_ROOT] [--markdown]
"""
import os
import re
import subprocess
import sys

FLASH_SECTIONS = {".text", ".rodata", ".ARM.exidx"}
RAM_SECTIONS = {".data", ".bss"}
PARTS = ["runtime", "kernels", "model", "tensor_arena", "startup+libc"]


# One archive per portable layer: libmicroarena_<layer>.a (src/microarena/CMakeLists.txt).
CORE_MEMBER = re.compile(r"libmicroarena_([a-z]+)\.a\((.+)\)$")


def classify(path, section):
    if "tensor_arena" in section:
        return "tensor_arena"
    member = CORE_MEMBER.search(path)
    if member:
        return "kernels" if member.group(1) == "kernels" else "runtime"
    if "model_data.cc.o" in path:
        return "model"
    return "startup+libc"


def parse_map(map_path):
    """{(output section, part): bytes} from the map's memory-map part."""
    sizes = {}
    output = None
    pending_name = None
    in_map = False
    with open(map_path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("Linker script and memory map"):
                in_map = True
                continue
            if not in_map:
                continue
            header = re.match(r"^(\.\S+)\s+0x[0-9a-f]+\s+0x[0-9a-f]+", line)
            if header or re.match(r"^\.\S+$", line):
                output = (header or re.match(r"^(\.\S+)", line)).group(1)
                pending_name = None
                continue
            entry = re.match(r"^ (\S+)?\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$", line)
            if entry and output:
                name = entry.group(1) or pending_name or ""
                pending_name = None
                size = int(entry.group(3), 16)
                path = entry.group(4).strip()
                part = "startup+libc" if name == "*fill*" else classify(path, name)
                sizes[(output, part)] = sizes.get((output, part), 0) + size
                continue
            lone = re.match(r"^ (\.\S+)$", line)
            if lone:
                pending_name = lone.group(1)
    return sizes


PRINTF_FAMILY = re.compile(r"^_*(v?[sf]?n?i?printf|v?as?i?printf|_?v?s?n?i?printf_r|svf?i?printf_r|vf?i?printf_r)$")


def printf_callers(map_path):
    """Objects of the portable layers' archives that reference a printf-family
    function, from the map's cross reference table (ld --cref); None when the
    map has no table."""
    callers = set()
    symbol = None
    in_table = False
    core_seen = False  # the table must name the core's objects at all
    with open(map_path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("Cross Reference Table"):
                in_table = True
                continue
            if not in_table or not line or line.startswith("Symbol"):
                continue
            cells = line.split()
            if not line.startswith(" "):
                symbol = cells[0]
                continue  # the first file defines the symbol
            member = CORE_MEMBER.search(cells[-1])
            core_seen = core_seen or member is not None
            if member and symbol and PRINTF_FAMILY.match(symbol):
                callers.add(member.group(2))
    return sorted(callers) if in_table and core_seen else None


def elf_sections(elf):
    out = subprocess.run(["arm-none-eabi-size", "-A", elf], check=True, capture_output=True, text=True).stdout
    sections = {}
    for line in out.splitlines():
        cells = line.split()
        if len(cells) == 3 and cells[0].startswith("."):
            sections[cells[0]] = int(cells[1])
    return sections


def main():
    elf, map_path = sys.argv[1:3]  # argv[3], the repository root, is not needed any more
    markdown = "--markdown" in sys.argv
    sizes = parse_map(map_path)
    sections = elf_sections(elf)

    flash = {p: sum(v for (s, q), v in sizes.items() if q == p and s in FLASH_SECTIONS | {".data"}) for p in PARTS}
    ram = {p: sum(v for (s, q), v in sizes.items() if q == p and s in RAM_SECTIONS) for p in PARTS}
    flash_total = sum(sections.get(s, 0) for s in FLASH_SECTIONS | {".data"})
    ram_total = sum(sections.get(s, 0) for s in RAM_SECTIONS)
    stack = sections.get(".stack", 0)
    # Alignment gaps between input sections belong to no object.
    flash["startup+libc"] += flash_total - sum(flash.values())
    ram["startup+libc"] += ram_total - sum(ram.values())
    name = os.path.basename(elf)
    if markdown:
        print(f"| {name} | " + " | ".join(f"{flash[p]} / {ram[p]}" for p in PARTS) +
              f" | {flash_total} / {ram_total} |")
        return
    print(f"{name}: flash (text+rodata+data init) {flash_total} B, RAM (data+bss) {ram_total} B, stack {stack} B")
    print(f"  {'part':<14}{'flash B':>10}{'RAM B':>10}")
    for p in PARTS:
        print(f"  {p:<14}{flash[p]:>10}{ram[p]:>10}")
    callers = printf_callers(map_path)
    if callers is not None:
        print(f"  printf family called by the runtime and kernels: {' '.join(callers) if callers else 'none'}")
    if min(flash.values()) < 0 or min(ram.values()) < 0:
        sys.exit("size_report: the map's sections add up to more than the ELF's")


if __name__ == "__main__":
    main()
