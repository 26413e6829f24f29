"""Every command answers malformed input as ``show`` does (issue 30, item 5): one line
``isochron: error:`` naming the file, the record (line or event) and the field, exit status 2;
never an internal error (exit 3, "please report it") and never a traceback. And what cannot be a
measurement is refused, not drawn or fitted: negative round trips and self-pairs (models), NaN
times and calls that end before they start (gantt), a launch that wrote nothing (run).

Each class below failed on the package as it was at e1aa451 (exit 3, or exit 0 with a wrong
result); the seeded loops at the end mutate real inputs (a trace of libisochron-trace.so, an
allpairs run, a models JSON, a launch-set manifest, result files) and require exit 0 or 2 with
one error line, every time.
"""
import json
import os
import random
import shutil

import pytest
from conftest import fx

TRACE = fx("trace-skew-4ranks.json")
AP = fx("allpairs-4ranks.jsonl")
AA = os.path.join(os.path.dirname(__file__), "data", "aa-2ranks")


def _error(rc, err, *words):
    """Exit 2, one line 'isochron: error: ...' holding every word."""
    assert rc == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("isochron: error:"), err
    assert "Traceback" not in err and "internal error" not in err
    for w in words:
        assert w in err, (w, err)


def _trace():
    return json.load(open(TRACE))


def _write_trace(tmp_path, data, name="t.json"):
    """As libisochron-trace.so writes it: one event per line (so errors can name the line)."""
    p = tmp_path / name
    head = {k: v for k, v in data.items() if k != "traceEvents"}
    body = ",\n".join(json.dumps(e) for e in data["traceEvents"]) if isinstance(data["traceEvents"], list) \
        else None
    text = json.dumps(head)[:-1] + ',\n"traceEvents": ' + (f"[\n{body}\n]" if body is not None
                                                           else json.dumps(data["traceEvents"])) + "}\n"
    p.write_text(text)
    return p


def _first_x(data):
    return next(k for k, e in enumerate(data["traceEvents"]) if e.get("ph") == "X")


# ---- gantt and report --trace -----------------------------------------------------------------

def _bad_traces(tmp_path):
    """(name, path, words the error must hold) for each class of malformed trace."""
    out = []
    p = tmp_path / "binary.json"
    p.write_bytes(b"\xff\xfe\x00garbage\x80")
    out.append(("not utf-8", p, ["binary.json", "not a text file"]))
    d = _trace()
    d["traceEvents"] = {"0": d["traceEvents"][0]}
    out.append(("events not a list", _write_trace(tmp_path, d, "notlist.json"), ["'traceEvents'", "not a list"]))
    for field, words in (("tid", ["'tid'", "missing"]), ("args", ["'args'", "missing"])):
        d = _trace()
        k = _first_x(d)
        del d["traceEvents"][k][field]
        out.append((f"no {field}", _write_trace(tmp_path, d, f"no-{field}.json"),
                    [f"event {k}", f":{k + 3}:", *words]))
    d = _trace()
    k = _first_x(d)
    d["traceEvents"][k]["args"]["global_start_s"] = "27072.9"
    out.append(("string time", _write_trace(tmp_path, d, "str.json"), [f"event {k}", "'args.global_start_s'"]))
    d = _trace()
    k = _first_x(d)
    d["traceEvents"][k]["args"]["local_end_s"] = float("nan")
    out.append(("nan time", _write_trace(tmp_path, d, "nan.json"), [f"event {k}", "'args.local_end_s'", "finite"]))
    d = _trace()
    k = _first_x(d)
    a = d["traceEvents"][k]["args"]
    a["global_end_s"] = a["global_start_s"] - 1e-3
    out.append(("ends before it starts", _write_trace(tmp_path, d, "back.json"), [f"event {k}", "before"]))
    d = _trace()
    d["traceEvents"][_first_x(d)]["tid"] = "one"
    out.append(("tid a string", _write_trace(tmp_path, d, "tid.json"), ["'tid'", "'one'"]))
    d = _trace()
    d["traceEvents"][3] = [1, 2]
    out.append(("event a list", _write_trace(tmp_path, d, "evlist.json"), ["event 3", "not an event"]))
    d = _trace()
    d["isochron"] = "meta"
    out.append(("metadata a string", _write_trace(tmp_path, d, "meta.json"), ["'isochron'"]))
    return out


def test_gantt_malformed_traces(cli, tmp_path):
    for name, path, words in _bad_traces(tmp_path):
        rc, _, err = cli("gantt", path, "-o", tmp_path / "g.png")
        _error(rc, err, str(path), *words)
        assert not (tmp_path / "g.png").exists(), name


def test_report_trace_malformed_traces(cli, tmp_path):
    for name, path, words in _bad_traces(tmp_path):
        rc, _, err = cli("report", fx("clock-hca3.jsonl"), "-o", tmp_path / "r", "--trace", path)
        _error(rc, err, str(path), *words)


def test_gantt_into_a_missing_directory(cli, tmp_path):
    out = tmp_path / "no" / "such" / "g.png"
    rc, so, err = cli("gantt", TRACE, "-o", out)
    _error(rc, err, str(out), "does not exist")
    assert so == ""                                   # refused before any work
    rc, _, err = cli("gantt", TRACE, "-o", tmp_path / "g.txt")
    _error(rc, err, "g.txt", "unknown image format")
    rc, _, err = cli("gantt", TRACE, "-o", tmp_path)
    _error(rc, err, "is a directory")


def test_gantt_keeps_every_rank(cli, tmp_path):
    """Ranks are the trace's thread ids, whatever they are: rank 3 renamed 7 is still drawn
    (it was dropped silently), and a rank without the instance is named."""
    d = _trace()
    for e in d["traceEvents"]:
        if e.get("tid") == 3:
            e["tid"] = 7
    p = _write_trace(tmp_path, d, "r7.json")
    rc, so, err = cli("gantt", p, "--instance", "2", "-o", tmp_path / "g.png")
    assert rc == 0, err
    assert "across 4 ranks" in so
    assert any(line.split()[:1] == ["7"] for line in so.splitlines())
    d["traceEvents"] = [e for e in d["traceEvents"] if not (e.get("ph") == "X" and e.get("tid") == 7)]
    p = _write_trace(tmp_path, d, "r7gone.json")
    rc, so, err = cli("gantt", p, "--instance", "2", "-o", tmp_path / "g.png")
    assert rc == 0, err
    assert "across 3 ranks" in so and "ranks without MPI_Allreduce #2 (not drawn): 7" in so


# ---- models -------------------------------------------------------------------------------------

def _models_json(tmp_path, cli):
    p = tmp_path / "m.json"
    rc, _, err = cli("models", AP, "--json", p)
    assert rc == 0, err
    return json.load(open(p))


def test_models_malformed_models_json(cli, tmp_path):
    good = _models_json(tmp_path, cli)
    cases = [
        (lambda m: m.__setitem__("pairs", {"0": 1}), ["no pairs"]),
        (lambda m: m["pairs"].__setitem__(0, [1]), ["'pairs[0]'"]),
        (lambda m: m["pairs"][0].pop("hockney"), ["'pairs[0].hockney'"]),
        (lambda m: m["pairs"][0]["hockney"].__setitem__("beta", None), ["'pairs[0].hockney.beta'"]),
        (lambda m: m["pairs"][1]["loggp"].__setitem__("G", "x"), ["'pairs[1].loggp.G'"]),
        (lambda m: m["pairs"][0].__setitem__("j", m["pairs"][0]["i"]), ["'pairs[0].j'", "itself"]),
        (lambda m: m["pairs"][0].__setitem__("i", "0"), ["'pairs[0].i'"]),
        (lambda m: m.pop("nprocs"), ["'nprocs'"]),
        (lambda m: m.__setitem__("average", []), ["'average'"]),
        (lambda m: m["pairs"][0]["hockney_two_series"].__setitem__("alpha", None), ["hockney_two_series.alpha"]),
    ]
    for k, (mutate, words) in enumerate(cases):
        m = json.loads(json.dumps(good))
        mutate(m)
        p = tmp_path / f"bad{k}.json"
        p.write_text(json.dumps(m))
        rc, _, err = cli("models", p)
        _error(rc, err, str(p), *words)
    p = tmp_path / "bin.json"
    p.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    rc, _, err = cli("models", p)
    _error(rc, err, "bin.json", "not a text file")


def _allpairs(tmp_path, edit, name="ap.jsonl"):
    recs = [json.loads(line) for line in open(AP)]
    edit(recs)
    p = tmp_path / name
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return p


def _nth(recs, rtype, n=0):
    return [i for i, r in enumerate(recs) if r["type"] == rtype][n]


@pytest.mark.parametrize("edit, words", [
    (lambda rs: rs[_nth(rs, "pair")].__setitem__("median_s", -1.0), ["'median_s'", "positive"]),
    (lambda rs: rs[_nth(rs, "pair", 2)].__setitem__("median_s", -0.5), ["'median_s'"]),
    (lambda rs: rs[_nth(rs, "pair")].__setitem__("j", rs[_nth(rs, "pair")]["i"]), ["'j'", "itself"]),
    (lambda rs: rs[_nth(rs, "pair")].__setitem__("j", 9), ["'j'", "rank 9 of 4"]),
    (lambda rs: rs[_nth(rs, "pair")].__setitem__("i", "0"), ["'i'"]),
    (lambda rs: rs[_nth(rs, "pair")].__setitem__("send_s", -2e-6), ["'send_s'"]),
    (lambda rs: rs[_nth(rs, "pair")].__setitem__("mode", 3), ["'mode'"]),
    (lambda rs: rs[_nth(rs, "matrix")].__setitem__("median_s", "x"), ["'median_s'"]),
])
def test_models_malformed_allpairs_records(cli, tmp_path, edit, words):
    recs = [json.loads(line) for line in open(AP)]
    edit(recs)
    bad = next(i for i, (a, b) in enumerate(zip(recs, (json.loads(l) for l in open(AP)))) if a != b)
    p = _allpairs(tmp_path, edit)
    rc, _, err = cli("models", p)
    _error(rc, err, f"{p}:{bad + 1}:", *words)


def test_models_ragged_matrix(cli, tmp_path):
    def edit(rs):
        rs[_nth(rs, "matrix", 3)]["median_s"][1] = [1e-6]
    p = _allpairs(tmp_path, edit)
    rc, _, err = cli("models", p, "--heatmap", tmp_path / "h.png")
    _error(rc, err, "'median_s'", "square")


@pytest.mark.parametrize("opt", ["--json", "--plot", "--heatmap"])
def test_models_unwritable_outputs(cli, tmp_path, opt):
    out = tmp_path / "missing" / ("m.json" if opt == "--json" else "m.png")
    extra = ["--predict", fx("p2pcoll-4ranks.jsonl")] if opt == "--plot" else []
    rc, so, err = cli("models", AP, opt, out, *extra)
    _error(rc, err, opt, str(out), "does not exist")
    assert so == ""                                   # refused before fitting and printing
    blocker = tmp_path / "file"
    blocker.write_text("x")
    rc, _, err = cli("models", AP, opt, blocker / "m.png", *extra)
    _error(rc, err, opt, "not a directory")


# ---- run ----------------------------------------------------------------------------------------

def test_run_config_with_unbalanced_quote(cli, tmp_path):
    cfg = tmp_path / "q.args"
    cfg.write_text("# ok\n--ops allreduce\n--sizes '8\n")
    rc, _, err = cli("run", "--launches", "1", "--configs", cfg, "-o", tmp_path / "set", "--", "true")
    _error(rc, err, f"{cfg}:3:", "quotation")
    assert not (tmp_path / "set").exists()
    cfg.write_bytes(b"--ops \xff\xfe\n")
    rc, _, err = cli("run", "--launches", "1", "--configs", cfg, "-o", tmp_path / "set", "--", "true")
    _error(rc, err, str(cfg), "not a text file")


def test_run_launcher_not_executable(cli, tmp_path):
    exe = tmp_path / "launch.sh"
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o644)
    rc, _, err = cli("run", "--launches", "1", "-o", tmp_path / "set", "--", exe)
    _error(rc, err, str(exe), "not an executable")
    assert not (tmp_path / "set").exists()
    rc, _, err = cli("run", "--launches", "1", "-o", tmp_path / "set", "--", tmp_path / "nosuch")
    _error(rc, err, "nosuch", "no such file")
    rc, _, err = cli("run", "--launches", "1", "-o", tmp_path / "set", "--", "isochron-no-such-cmd")
    _error(rc, err, "isochron-no-such-cmd", "command not found")


@pytest.mark.parametrize("value", ["nan", "-1", "0", "inf", "-inf"])
def test_run_bad_timeout(cli, tmp_path, value):
    rc, _, err = cli("run", "--launches", "1", f"--timeout={value}", "-o", tmp_path / "set", "--", "true")
    _error(rc, err, "--timeout", "positive number of seconds")
    assert not (tmp_path / "set").exists()


@pytest.mark.parametrize("value", ["0", "-3", "1000000000"])
def test_run_bad_launch_count(cli, tmp_path, value):
    rc, _, err = cli("run", f"--launches={value}", "-o", tmp_path / "set", "--", "true")
    _error(rc, err, f"--launches {value}")


def test_run_fails_when_a_launch_wrote_nothing(cli, tmp_path):
    """`true` exits 0 and writes no --jsonl file; a launcher that writes a file with no result
    record, or garbage, measured nothing either: all are failed launches (exit 1), not ok."""
    garbage = tmp_path / "garbage.sh"
    garbage.write_text('#!/bin/sh\nfor a; do last=$a; done\nprintf "\\377\\376 not json" > "$last"\n')
    garbage.chmod(0o755)
    empty = tmp_path / "empty.sh"
    empty.write_text('#!/bin/sh\nfor a; do last=$a; done\n'
                     'echo \'{"schema":1,"type":"context","tool":"isochron-bench"}\' > "$last"\n')
    empty.chmod(0o755)
    for launcher, words in ((["true"], "was not created"), ([garbage], "not text"),
                            ([empty], "no 'point' results")):
        out = tmp_path / f"set-{os.path.basename(str(launcher[0]))}"
        rc, so, err = cli("run", "--launches", "2", "-o", out, "--", *launcher)
        assert rc == 1, err
        assert "0 of 2 launches ok" in so and "2 launch(es) failed" in err and words in err, err
        man = json.load(open(out / "manifest.json"))
        assert [e["ok"] for e in man["launches"]] == [False, False]
        assert all(e["results"] == 0 and words in e["error"][0] for e in man["launches"])


# ---- show / plot on launch sets, plot options ---------------------------------------------------

@pytest.mark.parametrize("edit, words", [
    (lambda m: m.__setitem__("launches", [1, 2]), ["launches[0]", "not a launch object"]),
    (lambda m: m.__setitem__("launches", "all"), ["'launches'", "not a list"]),
    (lambda m: m["launches"][1].pop("file"), ["launches[1]", "'file'"]),
    (lambda m: m["launches"][0].__setitem__("file", "../../../etc/passwd"), ["launches[0]", "'file'"]),
    (lambda m: m["launches"][2].__setitem__("config", None), ["launches[2]", "'config'"]),
    (lambda m: m.__setitem__("configs", ["a1"]), ["'configs'"]),
])
def test_show_and_plot_on_a_malformed_manifest(cli, tmp_path, edit, words):
    d = tmp_path / "set"
    shutil.copytree(AA, d)
    man = json.load(open(d / "manifest.json"))
    edit(man)
    (d / "manifest.json").write_text(json.dumps(man))
    rc, _, err = cli("show", d)
    _error(rc, err, "manifest.json", *words)
    rc, _, err = cli("plot", d, "-o", tmp_path / "p.png")
    _error(rc, err, "manifest.json", *words)
    (d / "manifest.json").write_bytes(b"\xff\xfe{")
    rc, _, err = cli("show", d)
    _error(rc, err, "manifest.json")


def test_plot_bad_size_and_output(cli, tmp_path):
    raw = fx("bench-roundtime.jsonl")
    rc, _, err = cli("plot", raw, "--kind", "gantt", "--size", "abc", "-o", tmp_path / "g.png")
    _error(rc, err, "--size abc", "not a message size")
    out = tmp_path / "none" / "p.png"
    rc, _, err = cli("plot", raw, "-o", out)
    _error(rc, err, str(out), "does not exist")
    rc, _, err = cli("plot", raw, "--kind", "gantt", "--reps", "x:y", "-o", tmp_path / "g.png")
    _error(rc, err, "--reps x:y")


# ---- seeded mutations: never an internal error -------------------------------------------------

VALUES = [None, True, -1, 0, 2.5, -1e300, float("nan"), "", "x", [], [1, "a"], {}, {"a": None}]


def _mutate(rng, obj, depth=0):
    """A copy of a JSON value with one random change somewhere inside."""
    if isinstance(obj, dict) and obj and depth < 4 and rng.random() < 0.75:
        out = dict(obj)
        k = rng.choice(sorted(out))
        r = rng.random()
        if r < 0.15:
            del out[k]
        elif r < 0.55:
            out[k] = rng.choice(VALUES)
        else:
            out[k] = _mutate(rng, out[k], depth + 1)
        return out
    if isinstance(obj, list) and obj and depth < 4 and rng.random() < 0.75:
        out = list(obj)
        i = rng.randrange(len(out))
        out[i] = _mutate(rng, out[i], depth + 1) if rng.random() < 0.6 else rng.choice(VALUES)
        return out
    return rng.choice(VALUES)


def _never_internal(rc, err, what):
    assert rc in (0, 1, 2), f"{what}: exit {rc}: {err}"
    assert "Traceback" not in err and "internal error" not in err, f"{what}: {err}"
    if rc == 2:
        assert err.strip().splitlines()[-1].startswith("isochron: error:"), f"{what}: {err}"


def test_mutated_traces_never_escape(tmp_path):
    """120 mutated traces through gantt's table and figure (the CLI's path, without writing
    images): each loads and draws, or raises IsochronError."""
    from isochron.load import IsochronError
    from isochron.trace import gantt_figure, instance_table, load_trace
    rng = random.Random(5)
    base = _trace()
    base["traceEvents"] = base["traceEvents"][:60]
    escaped = []
    for k in range(120):
        d = json.loads(json.dumps(base))
        if rng.random() < 0.8:
            i = rng.randrange(len(d["traceEvents"]))
            d["traceEvents"][i] = _mutate(rng, d["traceEvents"][i])
        else:
            d = _mutate(rng, d)
        p = tmp_path / f"m{k}.json"
        p.write_text(json.dumps(d))
        try:
            tr = load_trace(str(p))
            instance_table(tr, "MPI_Allreduce", 0)
            gantt_figure(tr, "MPI_Allreduce", 0)
        except IsochronError:
            pass
        except Exception as exc:  # noqa: BLE001 - what the test hunts
            escaped.append(f"mutation {k}: {type(exc).__name__}: {exc}")
    assert not escaped, "\n".join(escaped[:8])


def test_mutated_models_inputs_never_escape(cli, tmp_path):
    """Mutated allpairs records and models JSON through `isochron models` (table, --json,
    --predict): exit 0 or 2, one error line."""
    rng = random.Random(9)
    recs = [json.loads(line) for line in open(AP)]
    good = _models_json(tmp_path, cli)
    for k in range(60):
        rs = list(recs)
        i = rng.randrange(len(rs))
        rs[i] = _mutate(rng, rs[i])
        p = tmp_path / f"ap{k}.jsonl"
        p.write_text("".join(json.dumps(r) + "\n" for r in rs))
        rc, _, err = cli("models", p, "--json", tmp_path / "o.json")
        _never_internal(rc, err, f"allpairs mutation {k}")
    for k in range(60):
        p = tmp_path / f"m{k}.json"
        p.write_text(json.dumps(_mutate(rng, good)))
        rc, _, err = cli("models", p, "--predict", fx("p2pcoll-4ranks.jsonl"))
        _never_internal(rc, err, f"models mutation {k}")


def test_mutated_manifests_never_escape(cli, tmp_path):
    rng = random.Random(3)
    man = json.load(open(os.path.join(AA, "manifest.json")))
    d = tmp_path / "set"
    shutil.copytree(AA, d)
    for k in range(40):
        (d / "manifest.json").write_text(json.dumps(_mutate(rng, man)))
        rc, _, err = cli("show", d)
        _never_internal(rc, err, f"manifest mutation {k}")


def test_mutated_results_never_escape_show_compare(cli, tmp_path):
    """Mutations of fields the schema does not constrain (raw repetitions, quantiles, rates,
    threads, skew samples ...) as well as of those it does, through show and compare."""
    rng = random.Random(11)
    sources = ["bench-roundtime.jsonl", "bench-bw.jsonl", "bench-mt.jsonl", "barrier-4ranks.jsonl",
               "clock-track.jsonl", "shmem-2pes.jsonl"]
    for k in range(80):
        name = rng.choice(sources)
        rs = [json.loads(line) for line in open(fx(name))]
        i = rng.randrange(len(rs))
        rs[i] = _mutate(rng, rs[i]) if isinstance(rs[i], dict) else rs[i]
        p = tmp_path / f"r{k}.jsonl"
        p.write_text("".join(json.dumps(r) + "\n" for r in rs))
        rc, _, err = cli("show", p)
        _never_internal(rc, err, f"show {name} mutation {k}")
        if name.startswith("bench"):
            rc, _, err = cli("compare", fx(name), p)
            _never_internal(rc, err, f"compare {name} mutation {k}")


def test_unreadable_inputs(cli, tmp_path):
    """A directory, a missing file and a binary file, for every command that reads one."""
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(bytes(range(256)))
    for bad in (tmp_path, tmp_path / "missing.jsonl", binary):
        for args in (["show", bad], ["compare", bad, fx("bench-max.jsonl")],
                     ["plot", bad, "-o", tmp_path / "p.png"], ["models", bad],
                     ["report", bad, "-o", tmp_path / "r"], ["gantt", bad, "-o", tmp_path / "g.png"],
                     ["report", fx("clock-hca3.jsonl"), "-o", tmp_path / "r", "--trace", bad]):
            rc, _, err = cli(*args)
            if args[0] == "gantt" and bad == tmp_path:
                _error(rc, err, "expected one trace .json")   # a directory of traces
                continue
            _error(rc, err)
