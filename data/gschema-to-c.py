#!/usr/bin/env python3
"""The GSettings schema is the one place the policy's keys, types, defaults
and ranges are written: this turns it into the C table vsm-policy.c reads
(used when the schema is not installed, and to check values from elsewhere).

usage: gschema-to-c.py SCHEMA.xml OUTPUT.h"""
import sys
import xml.etree.ElementTree as ET


def c_string(text):
    if text is None:
        return "NULL"
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    schema_file, out = sys.argv[1], sys.argv[2]
    root = ET.parse(schema_file).getroot()
    rows = []
    for schema in root.iter("schema"):
        for key in schema.iter("key"):
            vtype = "s" if key.get("enum") else key.get("type")
            default = key.find("default").text.strip()
            rng = key.find("range")
            lo = rng.get("min") if rng is not None else None
            hi = rng.get("max") if rng is not None else None
            rows.append((key.get("name"), vtype, default, lo, hi))
    with open(out, "w", encoding="utf-8") as f:
        f.write("/* generated from %s by gschema-to-c.py: do not edit */\n" %
                schema_file.rsplit("/", 1)[-1])
        f.write("#pragma once\n\n")
        f.write("typedef struct\n{\n  const char *name;\n  const char *type;\n"
                "  const char *default_value; /* GVariant text */\n"
                "  const char *min, *max;     /* GVariant text, NULL: no range */\n"
                "} VsmPolicyKey;\n\n")
        f.write("static const VsmPolicyKey vsm_policy_keys[] = {\n")
        for name, vtype, default, lo, hi in rows:
            f.write("  { %s, %s, %s, %s, %s },\n" % tuple(
                c_string(x) for x in (name, vtype, default, lo, hi)))
        f.write("};\n")


if __name__ == "__main__":
    main()
