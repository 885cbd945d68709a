#!/usr/bin/env python3
"""Summarizes a ctest run from its JUnit file (ctest --output-junit).

Prints every skipped test with the reason it gave (the "SKIPPED: <reason>"
line of its output, see test/unit/TestSkip.h and test/gpu/GpuTestMain.cpp),
every failed test, and one line of counts:
    tests: P passed, F failed, S skipped (N in all)
Each ctest entry is one test case (one Catch2 TEST_CASE, the lit suite or
the consumer build), so the counts are counts of test cases. Exits 1 when a
test failed or the file holds no tests.
Usage: summarize-tests.py RESULTS.xml
"""
import re
import sys
import xml.etree.ElementTree as ElementTree


def skip_reason(testcase):
    output = testcase.findtext("system-out") or ""
    match = re.search(r"SKIPPED: (.*)", output)
    if match:
        return match.group(1).strip()
    skipped = testcase.find("skipped")
    message = skipped.get("message") if skipped is not None else None
    return message or "no reason given"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = ElementTree.parse(sys.argv[1]).getroot()
    passed, failed, skipped = [], [], []
    for testcase in root.iter("testcase"):
        name = testcase.get("name")
        status = testcase.get("status")
        if testcase.find("skipped") is not None or status in ("notrun", "disabled"):
            skipped.append((name, skip_reason(testcase)))
        elif testcase.find("failure") is not None or status == "fail":
            failed.append(name)
        else:
            passed.append(name)

    if skipped:
        print(f"skipped tests ({len(skipped)}):")
        for name, reason in skipped:
            print(f"  {name}: {reason}")
    if failed:
        print(f"failed tests ({len(failed)}):")
        for name in failed:
            print(f"  {name}")
    total = len(passed) + len(failed) + len(skipped)
    print(f"tests: {len(passed)} passed, {len(failed)} failed, {len(skipped)} skipped ({total} in all)")
    sys.exit(1 if failed or total == 0 else 0)


if __name__ == "__main__":
    main()
