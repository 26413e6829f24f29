#!/usr/bin/env python3
"""Generate PMPI wrappers for one isochron layer from src/pmpi/mpi.tbl.

Interface (also in src/pmpi/pmpi.h):

  gen-pmpi.py --table src/pmpi/mpi.tbl --prefix P --out P_wrappers.c
              [--ids isochron_pmpi_ids.h] [--skip MPI_A,MPI_B ...]

For every table line not skipped, emits

  RET MPI_f(PARAMS) {
      if (P_bypass) return PMPI_f(ARGS);
      isochron_pmpi_call_t c = { id, "MPI_f", category, comm, root, peer, ... };
      P_enter(&c);
      int rc = PMPI_f(ARGS);
      return P_leave(&c, rc);
  }

The layer defines:   volatile int P_bypass;
                     void P_enter(isochron_pmpi_call_t *c);
                     int  P_leave(isochron_pmpi_call_t *c, int rc);
  With --hooks HEADER the generated file includes "HEADER" instead of declaring
  these three itself: the layer may then define P_enter/P_leave there as static
  inline functions, so each wrapper inlines them and the compiler drops the
  record fields the hooks never read (libisochron-trace.so does, for speed).
The generated file defines: const isochron_pmpi_entry_t P_wrapped[];
                            const int P_nwrapped;   (names emitted)
                            const int P_ntable;     (lines in the table)
--only F,G,...     emit wrappers for these functions only (a layer that acts on a few calls,
                   libisochron-tune.so); every other MPI call goes straight to the library.
--redirect F,G,... (tune entries) for these functions the call in the middle becomes
                     int rc = c.layer ? P_redirect_MPI_f(ARGS) : PMPI_f(ARGS);
                   P_enter sets c->layer to redirect the call; the layer defines
                   int P_redirect_MPI_f(PARAMS) for each.
--ids writes isochron_pmpi_ids.h: ISOCHRON_PMPI_ID_<MPI_f> for every table
line (the same numbers for every layer), ISOCHRON_PMPI_NIDS, and the lists
ISOCHRON_PMPI_NAMES (function names, in id order) and
ISOCHRON_PMPI_CATEGORY_NAMES (in the order of enum isochron_pmpi_category).

Parameter names fill the call record (first match wins):
  comm   <- comm, comm_old, local_comm, intercomm   (MPI_Comm; for MPI_Comm *comm: *comm)
  root   <- root, local_leader        peer  <- dest, else source, target_rank, rank (RMA)
  peer2  <- source when dest is also present        tag <- tag, sendtag
  count  <- count, sendcount, recvcount, origin_count (a scalar int)
  datatype <- the type paired with that count (count: datatype, sendcount: sendtype,
              recvcount: recvtype if present else datatype, origin_count: origin_datatype);
              without a count: datatype, sendtype
  recvcount/recvtype <- recvcount (scalar int) / recvtype  (-1 / MPI_DATATYPE_NULL if none)
  win    <- win (MPI_Win, not MPI_Win *)
  request <- request (MPI_Request *)                requests/nrequests <- array_of_requests + count/incount
  newcomm <- newcomm, newintercomm, newintracomm, comm_cart, comm_graph, comm_dist_graph
  status <- status
Python 3 standard library only (CMake runs it with add_custom_command).
"""
import argparse
import re
import sys

CATEGORIES = ["coll", "icoll", "persist", "commcreate", "group", "commfree",
              "wait", "p2p", "ip2p", "probe", "init", "rma"]


def fail(msg):
    sys.exit("gen-pmpi: " + msg)


def parse_table(path):
    entries = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = [x.strip() for x in line.split("|")]
            if len(fields) != 4:
                fail(f"{path}:{lineno}: expected 'category | return type | name | parameters', got {line!r}")
            cat, ret, name, params = fields
            if cat not in CATEGORIES:
                fail(f"{path}:{lineno}: unknown category {cat!r}; valid: {', '.join(CATEGORIES)}")
            if not re.fullmatch(r"MPI_[A-Za-z0-9_]+", name):
                fail(f"{path}:{lineno}: bad function name {name!r}")
            if any(e["name"] == name for e in entries):
                fail(f"{path}:{lineno}: {name} listed twice")
            plist = [] if params == "void" else [p.strip() for p in params.split(",")]
            parsed = []
            for p in plist:
                m = re.fullmatch(r"(.*?)([A-Za-z_][A-Za-z0-9_]*)\s*((?:\[[^\]]*\])*)", p)
                if not m or not m.group(1).strip():
                    fail(f"{path}:{lineno}: cannot read parameter {p!r}")
                parsed.append({"decl": p, "type": m.group(1).strip(), "name": m.group(2),
                               "array": bool(m.group(3))})
            entries.append({"cat": cat, "ret": ret, "name": name, "params": parsed})
    return entries


def record(e, idx):
    ps = {p["name"]: p for p in e["params"]}

    def first(names):
        for n in names:
            if n in ps:
                return ps[n]
        return None
    f = {}
    c = first(["comm", "comm_old", "local_comm", "intercomm"])
    if c is None:
        f["comm"] = "MPI_COMM_NULL"
    elif c["type"].endswith("*"):
        f["comm"] = f"({c['name']} ? *{c['name']} : MPI_COMM_NULL)"
    else:
        f["comm"] = c["name"]
    r = first(["root", "local_leader"])
    f["root"] = r["name"] if r else "-1"
    if "dest" in ps:
        f["peer"] = "dest"
        f["peer2"] = "source" if "source" in ps else "-1"
    else:
        p = first(["source", "target_rank"] + (["rank"] if e["cat"] == "rma" else []))
        f["peer"] = p["name"] if p else "-1"
        f["peer2"] = "-1"
    t = first(["tag", "sendtag"])
    f["tag"] = t["name"] if t else "-1"
    def scalar(p):
        return p is not None and not p["array"] and p["type"] == "int"
    n = first(["count", "sendcount", "recvcount", "origin_count"])
    if not scalar(n) or e["name"] in ("MPI_Startall", "MPI_Waitall", "MPI_Testall"):
        n = None
    f["count"] = n["name"] if n else "-1"
    pair = {"count": ["datatype"], "sendcount": ["sendtype"], "recvcount": ["recvtype", "datatype"],
            "origin_count": ["origin_datatype"]}
    d = first(pair[n["name"]] if n else ["datatype", "sendtype"])
    f["datatype"] = d["name"] if d else "MPI_DATATYPE_NULL"
    rc = ps.get("recvcount")
    f["recvcount"] = rc["name"] if scalar(rc) else "-1"
    f["recvtype"] = "recvtype" if "recvtype" in ps else "MPI_DATATYPE_NULL"
    w = ps.get("win")
    f["win"] = "win" if w and w["type"] == "MPI_Win" else "MPI_WIN_NULL"
    rq = ps.get("request")
    f["request"] = "request" if rq else "NULL"
    if "array_of_requests" in ps:
        cnt = first(["count", "incount"])
        f["nrequests"], f["requests"] = cnt["name"], "array_of_requests"
    elif rq:
        f["nrequests"], f["requests"] = "1", "request"
    else:
        f["nrequests"], f["requests"] = "0", "NULL"
    nc = first(["newcomm", "newintercomm", "newintracomm", "comm_cart", "comm_graph", "comm_dist_graph"])
    f["newcomm"] = nc["name"] if nc and nc["type"].startswith("MPI_Comm") else "NULL"
    f["status"] = "status" if "status" in ps else "NULL"
    cat = "ISOCHRON_PMPI_" + e["cat"].upper()
    body = ", ".join(f".{k} = {v}" for k, v in f.items())
    return f"{{ .id = {idx}, .name = \"{e['name']}\", .category = {cat}, {body}, .layer = NULL }}"


def main():
    ap = argparse.ArgumentParser(description="generate isochron PMPI wrappers from mpi.tbl")
    ap.add_argument("--table", required=True)
    ap.add_argument("--prefix", required=True, help="layer prefix P (hooks P_enter, P_leave, flag P_bypass)")
    ap.add_argument("--out", help="generated C file")
    ap.add_argument("--ids", help="write the id header here")
    ap.add_argument("--hooks", help="header (as #include'd) that declares or defines the layer's hooks and flag")
    ap.add_argument("--skip", action="append", default=[],
                    help="comma-separated MPI functions the layer writes by hand")
    ap.add_argument("--only", action="append", default=[],
                    help="comma-separated MPI functions: wrap only these")
    ap.add_argument("--redirect", action="append", default=[],
                    help="comma-separated MPI functions whose call P_enter may redirect (c.layer set)"
                    " to P_redirect_<name>")
    a = ap.parse_args()
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", a.prefix):
        fail(f"bad prefix {a.prefix!r} (a C identifier)")
    entries = parse_table(a.table)
    names = {e["name"] for e in entries}
    skip = set()
    for s in a.skip:
        for n in filter(None, (x.strip() for x in s.split(","))):
            if n not in names:
                fail(f"--skip {n}: not in {a.table}")
            skip.add(n)

    def names_of(opt, values):
        out = set()
        for s in values:
            for n in filter(None, (x.strip() for x in s.split(","))):
                if n not in names:
                    fail(f"--{opt} {n}: not in {a.table}")
                out.add(n)
        return out
    only = names_of("only", a.only)
    redirect = names_of("redirect", a.redirect)
    if a.ids:
        with open(a.ids, "w", encoding="utf-8") as o:
            o.write("/* generated by tools/gen-pmpi.py from mpi.tbl: do not edit */\n")
            o.write("#ifndef ISOCHRON_PMPI_IDS_H\n#define ISOCHRON_PMPI_IDS_H\n")
            for i, e in enumerate(entries):
                o.write(f"#define ISOCHRON_PMPI_ID_{e['name']} {i}\n")
            o.write(f"#define ISOCHRON_PMPI_NIDS {len(entries)}\n")
            o.write("/* the function names of mpi.tbl, in id order */\n#define ISOCHRON_PMPI_NAMES")
            o.write("".join(f" \\\n    \"{e['name']}\"," for e in entries) + "\n")
            o.write("/* the category names of mpi.tbl, in the order of enum isochron_pmpi_category */\n")
            o.write("#define ISOCHRON_PMPI_CATEGORY_NAMES " + ", ".join(f'"{c}"' for c in CATEGORIES) + "\n#endif\n")
    if not a.out:
        return
    P = a.prefix
    out = ["/* generated by tools/gen-pmpi.py from mpi.tbl for layer '%s': do not edit */" % P,
           "#include <stddef.h>", "#include \"pmpi.h\"", ""]
    if a.hooks:
        out += [f"#include \"{a.hooks}\"", ""]
    else:
        out += [f"extern volatile int {P}_bypass;",
                f"void {P}_enter(isochron_pmpi_call_t *c);",
                f"int {P}_leave(isochron_pmpi_call_t *c, int rc);", ""]
    for e in entries:
        if e["name"] in redirect and not a.hooks:
            decl = ", ".join(p["decl"] for p in e["params"]) or "void"
            out.append(f"{e['ret']} {P}_redirect_{e['name']}({decl});")
    wrapped = []
    for i, e in enumerate(entries):
        if e["name"] in skip or (only and e["name"] not in only):
            continue
        wrapped.append((i, e))
        decl = ", ".join(p["decl"] for p in e["params"]) or "void"
        args = ", ".join(p["name"] for p in e["params"])
        pm = "P" + e["name"]
        out.append(f"{e['ret']} {e['name']}({decl})\n{{")
        out.append(f"    if ({P}_bypass) return {pm}({args});")
        out.append(f"    isochron_pmpi_call_t c = {record(e, i)};")
        out.append(f"    {P}_enter(&c);")
        if e["name"] in redirect:
            out.append(f"    {e['ret']} rc = c.layer ? {P}_redirect_{e['name']}({args}) : {pm}({args});")
        else:
            out.append(f"    {e['ret']} rc = {pm}({args});")
        out.append(f"    return {P}_leave(&c, rc);\n}}\n")
    out.append(f"const isochron_pmpi_entry_t {P}_wrapped[] = {{")
    for i, e in wrapped:
        out.append(f"    {{ {i}, \"{e['name']}\", ISOCHRON_PMPI_{e['cat'].upper()} }},")
    out.append("    { -1, NULL, -1 }\n};")
    out.append(f"const int {P}_nwrapped = {len(wrapped)};")
    out.append(f"const int {P}_ntable = {len(entries)};")
    with open(a.out, "w", encoding="utf-8") as o:
        o.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
