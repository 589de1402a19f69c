#!/usr/bin/python3
"""Reads a JUnit XML report with junitparser (Debian's python3-junitparser), as CI
test-report consumers do, and prints one line per suite and per failing or erroring case:
'suite NAME tests=N failures=F errors=E' / 'failure SUITE CASE TYPE' / 'error SUITE CASE'."""
import sys

from junitparser import Error, Failure, JUnitXml

xml = JUnitXml.fromfile(sys.argv[1])
for suite in xml:
    print(f"suite {suite.name} tests={suite.tests} failures={suite.failures} errors={suite.errors}")
    for case in suite:
        for r in case.result:
            if isinstance(r, Failure):
                print(f"failure {suite.name} {case.name} {r.type}")
            elif isinstance(r, Error):
                print(f"error {suite.name} {case.name}")
