#!/usr/bin/env python3
"""Keeps docs/tutorial.md in step with the snippets in docs/tutorial/.

In tutorial.md, a line `<!-- snippet: NAME -->` or `<!-- output: NAME -->` is followed by
a fenced code block whose text must be exactly the file docs/tutorial/NAME. With no
argument this rewrites those blocks from the files; with --check it only compares and
exits 1 naming the first block that differs (the tutorial test runs it so).
"""
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
md_path = os.path.join(here, "..", "tutorial.md")
marker = re.compile(r"^<!-- (snippet|output): (\S+) -->\n(```[a-z]*\n)(.*?)(```\n)", re.M | re.S)


def main():
    check = "--check" in sys.argv[1:]
    text = open(md_path).read()
    problems = []
    seen = set()

    def replace(m):
        name = m.group(2)
        seen.add(name)
        body = open(os.path.join(here, name)).read()
        if m.group(4) != body:
            problems.append(name)
        return m.group(0)[: m.start(3) - m.start(0)] + m.group(3) + body + m.group(5)

    new = marker.sub(replace, text)
    snippets = sorted(f for f in os.listdir(here) if f.endswith((".spmd", ".repl")))
    missing = [f for f in snippets if f not in seen]
    if check:
        if problems or missing:
            for p in problems:
                print(f"tutorial.md: the block for {p} differs from docs/tutorial/{p} (run docs/tutorial/sync.py)")
            for f in missing:
                print(f"tutorial.md: docs/tutorial/{f} is not shown in the tutorial")
            return 1
        return 0
    open(md_path, "w").write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
