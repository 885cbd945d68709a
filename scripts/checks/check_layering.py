#!/usr/bin/env python3
"""Fails when a rule of fusec's architecture breaks.

Two views of the same rules (docs/developing.md, "Dependency rules"):
  * includes: every `#include "..."` of every C/C++ file under the project's
    library folders is checked against what its folder may include;
  * links: with --build DIR, the CMake file API's code model of that build
    gives each library's and tool's dependency closure, which is checked
    against the targets (and LLVM/MLIR/ONNX libraries) it must never link.

Usage: check_layering.py [--root SRC] [--build BUILD]
Exit status 0 when every rule holds, 1 with one line per violation otherwise.
"""
import argparse
import json
import os
import re
import sys

# Folders whose first path component marks a project include.
PROJECT_DIRS = {"support", "ir", "config", "passes", "codegen", "compiler", "runtime", "tools", "test", "bench", "examples", "python"}
# External libraries the runtime must never see.
COMPILER_ONLY_PREFIXES = ("mlir/", "llvm/", "llvm-c/", "onnx/", "google/protobuf/")

# Include rules, most specific folder first: (folder, allowed project prefixes, external compiler headers allowed).
INCLUDE_RULES = [
    ("support/", ["support/", "runtime/Error.h"], False),
    ("runtime/", ["runtime/", "support/"], False),
    ("ir/", ["ir/", "support/"], True),
    # Kernel-config policy stands on the dialect; passes and codegen use it.
    ("config/", ["config/", "ir/", "support/"], True),
    ("passes/", ["passes/", "config/", "ir/", "support/"], True),
    ("codegen/", ["codegen/", "config/", "ir/", "support/"], True),
    ("compiler/", ["compiler/", "ir/", "config/", "passes/", "codegen/", "runtime/", "support/"], True),
    # Tools are thin: argument parsing and a call into a library's entry point.
    ("tools/", ["tools/", "support/", "runtime/", "compiler/", "ir/FuseDialect.h", "passes/Passes.h",
                "codegen/KernelCompiler.h"], True),
    # The Python extension sees the compiler only through its MLIR-free entry
    # point (compiler/ModelCompiler.h): no MLIR API in the bindings.
    ("python/", ["python/", "support/", "runtime/", "compiler/ModelCompiler.h"], False),
]
# Within tools, only these external headers: option parsing and the opt-tool driver.
TOOL_EXTERNAL_ALLOWED = ("llvm/Support/", "llvm/ADT/", "mlir/Tools/", "mlir/IR/DialectRegistry.h")
MAX_TOOL_FILE_LINES = 300

# Link rules: target -> project targets and library name patterns its closure must not contain.
LIBRARY_TARGETS = [
    "fusec_support", "fusec_runtime", "fusec_ir", "fusec_config", "fusec_passes", "fusec_codegen", "fusec_compiler"
]
LINK_RULES = {
    "fusec_support": ({"fusec_runtime", "fusec_ir", "fusec_config", "fusec_passes", "fusec_codegen", "fusec_compiler"},
                      True),
    "fusec_runtime": ({"fusec_ir", "fusec_config", "fusec_passes", "fusec_codegen", "fusec_compiler"}, True),
    "fuserun": ({"fusec_ir", "fusec_config", "fusec_passes", "fusec_codegen", "fusec_compiler"}, True),
    "fusec_ir": ({"fusec_runtime", "fusec_config", "fusec_passes", "fusec_codegen", "fusec_compiler"}, False),
    "fusec_config": ({"fusec_runtime", "fusec_passes", "fusec_codegen", "fusec_compiler"}, False),
    "fusec_passes": ({"fusec_runtime", "fusec_codegen", "fusec_compiler"}, False),
    "fusec_codegen": ({"fusec_runtime", "fusec_passes", "fusec_compiler"}, False),
}
COMPILER_LIBRARY = re.compile(r"(^|[/\s])(lib)?(MLIR|LLVM|onnx|protobuf)[^/\s]*($|\s)")

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCE_SUFFIXES = (".cpp", ".h", ".c", ".cuh", ".inc")


def rule_for(path):
    for folder, allowed, external in INCLUDE_RULES:
        if path.startswith(folder):
            return folder, allowed, external
    return None


def check_includes(root):
    problems = []
    for top in ("support", "ir", "config", "passes", "codegen", "compiler", "runtime", "tools", "python"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, root).replace(os.sep, "/")
                # The emulation header and the CUDA prelude are compiled for the device, not linked.
                if "/emulation/" in rel or rel.startswith("codegen/include/"):
                    continue
                folder, allowed, external = rule_for(rel)
                with open(full, encoding="utf-8", errors="replace") as f:
                    lines = f.readlines()
                if folder == "tools/" and len(lines) > MAX_TOOL_FILE_LINES:
                    problems.append(f"{rel}: {len(lines)} lines; a tool file stays under {MAX_TOOL_FILE_LINES} "
                                    "(move the logic into a library)")
                for number, line in enumerate(lines, 1):
                    match = INCLUDE.match(line)
                    if not match:
                        continue
                    header = match.group(2)
                    where = f"{rel}:{number}"
                    if header.startswith(COMPILER_ONLY_PREFIXES):
                        if not external:
                            problems.append(f"{where}: {folder} includes '{header}' (it must not use LLVM/MLIR/ONNX)")
                        elif folder == "tools/" and not header.startswith(TOOL_EXTERNAL_ALLOWED):
                            problems.append(f"{where}: tools are thin, but this one includes '{header}'")
                        continue
                    first = header.split("/", 1)[0]
                    if "/" not in header or first not in PROJECT_DIRS:
                        continue
                    if not any(header.startswith(p) if p.endswith("/") else header == p for p in allowed):
                        problems.append(f"{where}: {folder} includes '{header}', "
                                        f"but may include only {', '.join(allowed)}")
    return problems


def load_codemodel(build):
    reply = os.path.join(build, ".cmake", "api", "v1", "reply")
    if not os.path.isdir(reply):
        raise SystemExit(f"check_layering: no CMake file API reply in {reply}: run `cmake {build}` once more "
                         "(CMake answers the codemodel-v2 query the top CMakeLists.txt writes from the next configure on; "
                         "scripts/build.sh writes it before the first)")
    index = sorted(f for f in os.listdir(reply) if f.startswith("index-"))[-1]
    with open(os.path.join(reply, index)) as f:
        index_data = json.load(f)
    codemodel_file = next(r["jsonFile"] for r in index_data["reply"].values()
                          if isinstance(r, dict) and r.get("kind") == "codemodel")
    with open(os.path.join(reply, codemodel_file)) as f:
        codemodel = json.load(f)
    targets = {}
    for entry in codemodel["configurations"][0]["targets"]:
        with open(os.path.join(reply, entry["jsonFile"])) as f:
            targets[entry["id"]] = json.load(f)
    return targets


def check_links(build):
    targets = load_codemodel(build)
    by_name = {t["name"]: t for t in targets.values()}
    problems = []
    for name, (forbidden, no_compiler_libraries) in LINK_RULES.items():
        if name not in by_name:
            continue
        # Dependency closure over the code model's target graph.
        seen, stack = set(), [by_name[name]]
        while stack:
            target = stack.pop()
            for dep in target.get("dependencies", []):
                if dep["id"] not in seen and dep["id"] in targets:
                    seen.add(dep["id"])
                    stack.append(targets[dep["id"]])
        names = sorted(targets[i]["name"] for i in seen)
        for bad in sorted(forbidden.intersection(names)):
            problems.append(f"link: {name} depends on {bad}")
        if no_compiler_libraries:
            for dep in names:
                if COMPILER_LIBRARY.search(dep):
                    problems.append(f"link: {name} depends on {dep} (LLVM/MLIR/ONNX)")
            for fragment in by_name[name].get("link", {}).get("commandFragments", []):
                text = fragment.get("fragment", "")
                if COMPILER_LIBRARY.search(text):
                    problems.append(f"link: {name} links '{text}' (LLVM/MLIR/ONNX)")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    parser.add_argument("--build", help="a configured build directory: also check its link graph")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    problems = check_includes(root)
    checked = "includes"
    if args.build:
        problems += check_links(args.build)
        checked += " and links"
    if problems:
        print("\n".join(problems))
        print(f"check_layering: {len(problems)} violation(s) of the dependency rules (docs/developing.md)")
        return 1
    print(f"check_layering: {checked} follow the dependency rules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
