#!/usr/bin/env python3
"""Fails when a link in the project's Markdown does not resolve.

Checks every inline link and image (`[text](target)`, `![alt](target)`) in the
Markdown files given (default: README.md and every docs/**/*.md under --root):
a relative target must name an existing file or folder, and a `#fragment`
must name a heading of the target file (GitHub's anchor rules). Web links are
not fetched. Exit status 0 when all resolve, 1 with one line per broken link.
"""
import argparse
import os
import re
import sys

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")


def anchors(path):
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to '-', repeats numbered."""
    seen, result = {}, set()
    for line in strip_code(path, keep_inline_code=True):
        match = HEADING.match(line)
        if not match:
            continue
        text = re.sub(r"`|\*\*|__|\[([^\]]*)\]\([^)]*\)", r"\1", match.group(1))
        slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        result.add(slug if count == 0 else f"{slug}-{count}")
    return result


def strip_code(path, keep_inline_code=False):
    """The file's lines outside fenced code blocks, inline code removed unless kept."""
    lines, fenced = [], False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                lines.append(line if keep_inline_code else re.sub(r"`[^`]*`", "", line))
    return lines


def check(path):
    problems = []
    for number, line in enumerate(strip_code(path), 1):
        for match in LINK.finditer(line):
            target = match.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            file_part, _, fragment = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not os.path.exists(resolved):
                problems.append(f"{path}: link '{target}': {file_part} does not exist")
            elif fragment and resolved.endswith(".md") and fragment not in anchors(resolved):
                problems.append(f"{path}: link '{target}': no heading '#{fragment}' in {os.path.basename(resolved)}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    files = args.files
    if not files:
        root = os.path.abspath(args.root)
        files = [os.path.join(root, "README.md")]
        for dirpath, _, names in os.walk(os.path.join(root, "docs")):
            files += [os.path.join(dirpath, n) for n in sorted(names) if n.endswith(".md")]
    problems = []
    for path in files:
        problems += check(path)
    if problems:
        print("\n".join(problems))
        print(f"check_links: {len(problems)} broken link(s)")
        return 1
    print(f"check_links: every link in {len(files)} Markdown files resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
