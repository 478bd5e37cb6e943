#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gcev stats --format csv --table T, every table of each trace given, against the JSON:
- each table loads with the csv module, one header, every row as wide as it;
- every column is of one type: integers, numbers, true/false or text (empty = absent);
- every cell equals the JSON's value of the same record (pandas, when installed, reads
  each table with numeric columns as numbers too).
usage: csv_tables_check.py GCEV [--compat] TRACE...
"""
import csv
import io
import json
import math
import subprocess
import sys

TABLES = ["gcs", "generations", "heaps", "processes", "gcstats", "gen_summaries", "summary"]
# values of the table that stats JSON does not have (GCEV_STATS_M_NOT_JSON)
# lists of records whose count is a column
RECORD_LISTS = {"longest_pauses", "loh_waits", "fit_buckets", "heaps"}
OTHER_TABLES = {"appdomains_survived", "heap", "gens", "gcstats", "generations", "gen", "generation"}
NOT_JSON = {"heap_histories", "pause_count", "promoted_count", "duration_count", "limit_hit", "trace_complete"}


def run(gcev, args):
    p = subprocess.run([gcev, "stats"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if p.returncode not in (0, 4):  # 4: the trace reports lost events / an error after the analysis
        sys.exit("gcev stats %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.decode()))
    return p.stdout.decode()


def flatten(obj, prefix="", out=None):
    """JSON object -> {column: value}: nested objects joined by '_', lists by their length
    (lists of names joined by '|')."""
    if out is None:
        out = {}
    for k, v in obj.items():
        name = prefix + k
        if isinstance(v, dict):
            flatten(v, name + "_", out)
        elif isinstance(v, list):
            if k not in RECORD_LISTS and all(isinstance(x, str) for x in v):
                out[name] = "|".join(v)
            else:
                out[name] = len(v)
        else:
            out[name] = v
    return out


def kind_of(cell):
    if cell in ("true", "false"):
        return "bool"
    try:
        int(cell)
        return "number"
    except ValueError:
        pass
    try:
        float(cell)
        return "number"
    except ValueError:
        return "text"


def same(cell, want):
    if isinstance(want, bool):
        return cell == ("true" if want else "false")
    if isinstance(want, int):
        return cell == str(want)
    if isinstance(want, float) or want in ("Infinity", "-Infinity"):
        try:
            return float(cell) == float(want) or (math.isinf(float(cell)) and math.isinf(float(want)))
        except ValueError:
            return False
    return cell == str(want)


def check_rows(table, header, rows, records, lead):
    """records: [(leading cells, flattened JSON)] in row order."""
    errors = 0
    if len(rows) != len(records):
        print("%s: %d rows, JSON has %d records" % (table, len(rows), len(records)))
        return 1
    for row, (leading, rec) in zip(rows, records):
        cells = dict(zip(header, row))
        for i, value in enumerate(leading):
            if cells[header[i]] != str(value):
                print("%s: leading column %s = %r, JSON %r" % (table, header[i], cells[header[i]], value))
                errors += 1
        for col in header[lead:]:
            cell = cells[col]
            if col in rec:
                if not same(cell, rec[col]):
                    print("%s %s: column %s = %r, JSON %r" % (table, leading, col, cell, rec[col]))
                    errors += 1
            elif cell not in ("", "0") and col not in NOT_JSON:
                # absent from the JSON: empty, or a condemned-group count of 0 (JSON lists the non-zero)
                print("%s %s: column %s = %r, not in the JSON" % (table, leading, col, cell))
                errors += 1
        for key in rec:
            # lists of records and embedded records are rows of another table
            if key not in cells and key not in OTHER_TABLES and not key.startswith("gcstats_"):
                print("%s %s: JSON key %s has no column" % (table, leading, key))
                errors += 1
    return errors


def main():
    gcev = sys.argv[1]
    args = sys.argv[2:]
    compat = ["--compat", "traceevent"] if args and args[0] == "--compat" else []
    traces = args[1:] if compat else args
    try:
        import pandas  # noqa: F401
    except ImportError:
        pandas = None
    errors = 0
    for trace in traces:
        doc = json.loads(run(gcev, ["--format", "json"] + compat + [trace]))
        gcs = doc["gcs"]
        expect = {
            "gcs": (1, [((g["process_id"],), flatten(g)) for g in gcs]),
            "generations": (3, [((g["process_id"], g["number"], h["gen"]), flatten(h))
                                for g in gcs for h in g["heap"]]),
            "heaps": (2, [((g["process_id"], g["number"]), flatten(h)) for g in gcs for h in g["heaps"]]),
            "processes": (1, [((p["process_id"],), flatten(p)) for p in doc["processes"]]),
            "gcstats": (2, [((p["process_id"], s), flatten(st)) for p in doc["processes"]
                            for s, st in [("all", p["gcstats"])] +
                            [("gen%d" % st["generation"], st) for st in p["generations"]]]),
            "gen_summaries": (0, [((), flatten(g)) for g in doc["generations"]]),
            "summary": (0, [((), flatten(doc["summary"]))]),
        }
        for table in TABLES:
            text = run(gcev, ["--format", "csv", "--table", table] + compat + [trace])
            rows = list(csv.reader(io.StringIO(text)))
            header, body = rows[0], rows[1:]
            if len(set(header)) != len(header):
                print("%s %s: duplicate columns" % (trace, table))
                errors += 1
            for r in body:
                if len(r) != len(header):
                    print("%s %s: a row of %d cells, header %d" % (trace, table, len(r), len(header)))
                    errors += 1
            for c, col in enumerate(header):
                kinds = {kind_of(r[c]) for r in body if r[c] != ""}
                if len(kinds) > 1:
                    print("%s %s: column %s mixes %s" % (trace, table, col, sorted(kinds)))
                    errors += 1
            lead, records = expect[table]
            errors += check_rows("%s %s" % (trace, table), header, body, records, lead)
            if pandas is not None:
                df = pandas.read_csv(io.StringIO(text))
                for c, col in enumerate(header):
                    kinds = {kind_of(r[c]) for r in body if r[c] != ""}
                    if kinds == {"number"} and df[col].dtype.kind not in "iuf":
                        print("%s %s: pandas reads %s as %s" % (trace, table, col, df[col].dtype))
                        errors += 1
        print("%s%s: %d tables, %d GCs" % (trace, " (compat)" if compat else "", len(TABLES), len(gcs)))
    if pandas is None:
        print("pandas not installed: csv module checks only")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
