#!/usr/bin/env python3
"""Summarizes a ctest run from its JUnit file (ctest --output-junit).

Prints every skipped test with the reason it gave (the "SKIPPED: <reason>"
line of its output, see test/unit/TestSkip.h and test/gpu/GpuTestMain.cpp),
every failed test, the lines of passed tests' output that start with
"figure: " (measured figures a test prints, e.g. test_serve's throughput
and latency, which ctest shows only for failures), and one line of counts:
    tests: P passed, F failed, S skipped (N in all)
Each Catch2 TEST_CASE is its own ctest entry. The lit suite is one entry
("lit") that writes lit's own JUnit file; given with --lit, its tests are
counted one by one in place of the entry (unless the entry failed without
writing the file). So the counts are counts of test cases. Exits 1 when a
test failed or no test ran.
Usage: summarize-tests.py CTEST_RESULTS.xml [--lit LIT_RESULTS.xml]
"""
import argparse
import os
import re
import xml.etree.ElementTree as ElementTree


def ctest_figures(path):
    """The "figure: " lines of every passed entry's output, in order."""
    figures = []
    for testcase in ElementTree.parse(path).getroot().iter("testcase"):
        if testcase.find("failure") is None and testcase.find("skipped") is None:
            output = testcase.findtext("system-out") or ""
            figures += [line[len("figure: "):] for line in output.splitlines() if line.startswith("figure: ")]
    return figures


def ctest_results(path):
    """(name, status, reason) per ctest entry; status: passed/failed/skipped."""
    results = []
    for testcase in ElementTree.parse(path).getroot().iter("testcase"):
        name = testcase.get("name")
        status = testcase.get("status")
        if testcase.find("skipped") is not None or status in ("notrun", "disabled"):
            output = testcase.findtext("system-out") or ""
            match = re.search(r"SKIPPED: (.*)", output)
            skipped = testcase.find("skipped")
            reason = match.group(1).strip() if match else (skipped.get("message") if skipped is not None else "")
            results.append((name, "skipped", reason or "no reason given"))
        elif testcase.find("failure") is not None or status == "fail":
            results.append((name, "failed", ""))
        else:
            results.append((name, "passed", ""))
    return results


def lit_results(path):
    """(name, status, reason) per lit test, named "lit:<folder>/<file>"."""
    results = []
    for testcase in ElementTree.parse(path).getroot().iter("testcase"):
        folder = testcase.get("classname").split(".", 1)[1:]
        name = "lit:" + "/".join(folder + [testcase.get("name")])
        skipped = testcase.find("skipped")
        if skipped is not None:
            results.append((name, "skipped", skipped.get("message") or "unsupported"))
        elif testcase.find("failure") is not None or testcase.find("error") is not None:
            results.append((name, "failed", ""))
        else:
            results.append((name, "passed", ""))
    return results


def main():
    parser = argparse.ArgumentParser(description="Summarize a ctest run.")
    parser.add_argument("ctest_results")
    parser.add_argument("--lit", help="lit's --xunit-xml-output file of the 'lit' entry")
    args = parser.parse_args()

    results = []
    for name, status, reason in ctest_results(args.ctest_results):
        if name == "lit" and args.lit and os.path.exists(args.lit) and status != "skipped":
            expanded = lit_results(args.lit)
            results += expanded
            if status == "failed" and not any(s == "failed" for _, s, _ in expanded):
                results.append((name, "failed", ""))  # lit itself failed
            continue
        results.append((name, status, reason))

    skipped = [(n, r) for n, s, r in results if s == "skipped"]
    failed = [n for n, s, _ in results if s == "failed"]
    passed = [n for n, s, _ in results if s == "passed"]
    if skipped:
        print(f"skipped tests ({len(skipped)}):")
        for name, reason in skipped:
            print(f"  {name}: {reason}")
    figures = ctest_figures(args.ctest_results)
    if figures:
        print(f"figures ({len(figures)} lines):")
        for line in figures:
            print(f"  {line}")
    if failed:
        print(f"failed tests ({len(failed)}):")
        for name in failed:
            print(f"  {name}")
    print(f"tests: {len(passed)} passed, {len(failed)} failed, {len(skipped)} skipped ({len(results)} in all)")
    return 1 if failed or not results else 0


if __name__ == "__main__":
    raise SystemExit(main())
