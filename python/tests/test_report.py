"""`isochron report`: one self-contained HTML page with the tables and every plot that fits."""
import base64
import io
import json
import re
from html.parser import HTMLParser

import matplotlib.image
from conftest import fx

from isochron.report import write_report


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.imgs, self.captions, self.links, self.tables = [], [], [], 0
        self._in = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.imgs.append(a)
        if tag in ("link", "script") or (tag == "a" and not a.get("href", "#").startswith("#")):
            self.links.append((tag, a))
        if tag == "table":
            self.tables += 1
        if tag in ("caption", "figcaption"):
            self._in = tag

    def handle_endtag(self, tag):
        self._in = None if tag == self._in else self._in

    def handle_data(self, data):
        if self._in:
            self.captions.append(data)


def _parse(path):
    page = _Page()
    page.feed(open(path, encoding="utf-8").read())
    return page


def test_report_of_clock_bench_and_barrier_runs(tmp_path, cli):
    files = [fx("clock-skew.jsonl"), fx("bench-roundtime.jsonl"), fx("barrier-4ranks.jsonl")]
    rc, out, err = cli("report", *files, "-o", tmp_path / "rep")
    assert rc == 0 and err == ""
    assert out.strip() == str(tmp_path / "rep" / "index.html")
    page = _parse(out.strip())
    kinds = [c.split(":")[0] for c in page.captions if ":" in c and "(" not in c.split(":")[0]]
    figs = [c for c in page.captions if c.startswith(("latency", "gantt", "offset", "sync",
                                                        "skew", "shift", "payoff"))]
    assert [f.split(":")[0] for f in figs] == [
        "latency", "gantt (allreduce)", "gantt (bcast)", "gantt (bcast_linear)", "offset",
        "sync", "skew", "shift", "payoff"]
    assert len(page.imgs) == len(figs) == 9
    for img in page.imgs:                               # every image embedded and a real PNG
        assert img["src"].startswith("data:image/png;base64,")
        png = base64.b64decode(img["src"].split(",", 1)[1])
        assert matplotlib.image.imread(io.BytesIO(png), format="png").shape[0] > 200
        assert img["alt"]
    assert page.links == []                             # nothing fetched from elsewhere
    assert any(c.startswith("operation allreduce") for c in page.captions)
    assert any(c.startswith("clock synchronization") for c in page.captions)
    assert any(c.startswith("barrier exit skew") for c in page.captions)
    assert kinds                                        # captions were parsed at all


def test_report_compares_benchmark_runs_and_shows_warnings(tmp_path, cli):
    rc, out, err = cli("report", fx("bench-roundtime.jsonl"), fx("bench-truncated.jsonl"),
                       fx("bench-barrier.jsonl"), "-o", tmp_path)
    assert rc == 0 and "cut mid-record" in err
    html = open(out.strip(), encoding="utf-8").read()
    assert 'class="warn"' in html and "cut mid-record" in html
    page = _parse(out.strip())
    cmp_titles = [c for c in page.captions if c.startswith("comparison:")]
    assert len(cmp_titles) == 2                         # runs 2 and 3 against run 1
    assert re.search(r"comparing scheme: roundtime \(A\) vs barrier \(B\)", html)


def test_report_api_returns_path_and_dataset(tmp_path):
    path, ds = write_report([fx("clock-algs.jsonl")], str(tmp_path / "r"))
    assert path.endswith("index.html") and len(ds.contexts) == 6
    assert len(_parse(path).imgs) == 2                  # offset and sync


def test_report_bad_input(tmp_path, cli):
    rc, _, err = cli("report", fx("bench-schema2.jsonl"), "-o", tmp_path)
    assert rc == 2 and "schema version 2" in err
    assert not (tmp_path / "index.html").exists()
    blocker = tmp_path / "file"
    blocker.write_text("x")
    rc, _, err = cli("report", fx("clock-hca3.jsonl"), "-o", blocker)
    assert rc == 2 and "cannot write the report" in err
    rc, _, err = cli("report", fx("clock-hca3.jsonl"))
    assert rc == 2 and "-o/--output" in err


def test_report_notes_a_plot_it_cannot_draw(tmp_path):
    """Skew records whose samples are all zero (a loaded 2-rank barrier run under PyPI's MPICH wrote
    them) have nothing to draw on a log axis: the report says so and keeps every other part."""
    lines = open(fx("barrier-4ranks.jsonl"), encoding="utf-8").read().splitlines()
    out = []
    for line in lines:
        if '"type":"skew"' in line.replace(" ", ""):
            r = json.loads(line)
            r["samples_s"] = [0.0 for _ in r.get("samples_s", [0.0])] or [0.0]
            line = json.dumps(r)
        out.append(line)
    src = tmp_path / "barrier-zero-skew.jsonl"
    src.write_text("\n".join(out) + "\n", encoding="utf-8")
    path, _ = write_report([str(src)], str(tmp_path / "r"))
    page = open(path, encoding="utf-8").read()
    assert "skew: not drawn: plot kind &#x27;skew&#x27;: the skew records carry no positive samples" in page
    assert len(_parse(path).imgs) >= 1                  # the barrier's other plots are still there
