#!/usr/bin/env python3
"""Prints the Swift Testing tests a log shows started but never ended.

Used by .ci/run when a test step runs out of time: the tests still running
are the ones that hung or ran long.
"""
import re
import sys

ANSI = re.compile(r"\x1b\[[0-9;]*m")
NAME = r'(".*?"|\S+\(\))'
STARTED = re.compile(r"Test " + NAME + r" started\.")
ENDED = re.compile(r"Test " + NAME + r" (?:with \d+ test cases? )?(?:passed|failed|skipped)")

running = {}
with open(sys.argv[1], errors="replace") as log:
    for number, line in enumerate(log, 1):
        line = ANSI.sub("", line)
        if "Test case passing" in line:
            continue
        if match := STARTED.search(line):
            running.setdefault(match.group(1), number)
        elif match := ENDED.search(line):
            running.pop(match.group(1), None)
for name, number in sorted(running.items(), key=lambda item: item[1]):
    print(f"  still running: {name} (started at line {number})")
