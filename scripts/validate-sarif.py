#!/usr/bin/python3
"""Validates a SARIF log against the official SARIF 2.1.0 JSON schema (Debian's
python3-jsonschema) and checks what GitHub code scanning needs of each result: a ruleId
declared in tool.driver.rules, a message, and a physical location with a URI and a line.
Usage: validate-sarif.py SCHEMA SARIF; prints 'valid N results' or the problems, exit 1."""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
log = json.load(open(sys.argv[2]))
validator = jsonschema.Draft7Validator(schema) if "draft-07" in schema.get("$schema", "") else jsonschema.Draft4Validator(schema)
errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
for e in errors[:20]:
    print("schema:", "/".join(map(str, e.path)), e.message)
problems = []
for run in log["runs"]:
    ids = [r["id"] for r in run["tool"]["driver"].get("rules", [])]
    for i, res in enumerate(run.get("results", [])):
        if res.get("ruleId") not in ids:
            problems.append(f"result {i}: ruleId {res.get('ruleId')} not among the driver's rules")
        if "ruleIndex" in res and ids[res["ruleIndex"]] != res["ruleId"]:
            problems.append(f"result {i}: ruleIndex does not point at its rule")
        loc = (res.get("locations") or [{}])[0].get("physicalLocation", {})
        if not loc.get("artifactLocation", {}).get("uri") or not loc.get("region", {}).get("startLine"):
            problems.append(f"result {i}: no artifact URI and start line (GitHub code scanning needs both)")
for p in problems[:20]:
    print(p)
if errors or problems:
    sys.exit(1)
print("valid", sum(len(r.get("results", [])) for r in log["runs"]), "results")
