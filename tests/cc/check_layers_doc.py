#!/usr/bin/env python3
"""docs/layers.md lists every variable of both PMPI layers: the names each layer accepts (the tables
icc_known in src/cc/cc_ckpt_settings.c and itr_known in src/trace/trace_settings.c, which refuse any other ISOCHRON_CC_* /
ISOCHRON_TRACE_*) must each have a row of the page's tables, with a range and a default, and the page
must name no variable the layers do not accept. Usage: check_layers_doc.py SOURCE_DIR"""
import re
import sys

src = sys.argv[1]


def known(path, table):
    text = open(f"{src}/{path}").read()
    m = re.search(r"static const char \*const " + table + r"\[\] = \{(.*?)\};", text, re.S)
    if not m:
        sys.exit(f"check_layers_doc: FAIL: no table {table} in {path}")
    return set(re.findall(r'"(ISOCHRON_[A-Z_]+)"', m.group(1)))


names = known("src/cc/cc_ckpt_settings.c", "icc_known") | known("src/trace/trace_settings.c", "itr_known")
doc = open(f"{src}/docs/layers.md").read()
rows = {}
for line in doc.splitlines():
    m = re.match(r"\| `(ISOCHRON_(?:CC|TRACE)_[A-Z_]+)` \|(.*)\|(.*)\|(.*)\|\s*$", line)
    if m:
        rows[m.group(1)] = [c.strip() for c in m.groups()[1:]]
bad = []
for n in sorted(names):
    if n not in rows:
        bad.append(f"{n} has no row in docs/layers.md")
    elif not all(rows[n]):
        bad.append(f"{n}: its row lacks a range, a default or a meaning")
for n in sorted(set(rows) - names):
    bad.append(f"{n} is documented but not accepted by the layers")
mentioned = set(re.findall(r"ISOCHRON_(?:CC|TRACE)_[A-Z_]+", doc)) - {"ISOCHRON_CC_", "ISOCHRON_TRACE_"}
for n in sorted(mentioned - names):
    bad.append(f"{n} is mentioned in docs/layers.md but not accepted by the layers")
for b in bad:
    print("check_layers_doc: FAIL:", b)
print(f"check_layers_doc: {len(names)} variables, {len(bad)} problems: {'FAIL' if bad else 'PASS'}")
sys.exit(1 if bad else 0)
