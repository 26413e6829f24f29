"""`isochron tune`'s writers and choice rules (issue 38): MPICH 4.0's JSON selection files built from
the library's own trees (their structure, the size boundaries, the guard of built-in-operator-only
algorithms), the mpirun words that force an algorithm or load a file, and the verification step's
ratios, intervals and verdicts on launch medians. That MPICH applies the files:
tests/tune/mpich_json_accept.sh; Open MPI's rules file: test_tune.py and tests/tune/rules_accept.sh."""
import json
import math

import pytest
from scipy.stats import t as student

from isochron import IsochronError
from isochron.tune import (
    Choice,
    best_singles,
    choose,
    detect_mpi,
    force_args,
    mpich_builtin_trees,
    mpich_ch4_path,
    mpich_rules,
    rules_args,
    size_rules,
    verify,
    verify_table,
)

#: a miniature of MPICH 4.0's built-in trees (the shape of maint/tuning/coll/*.json)
MPIR = {
    "collective=bcast": {"comm_type=intra": {"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}}},
    "collective=allreduce": {
        "comm_type=intra": {"avg_msg_size<=8": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
                            "avg_msg_size=any": {"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {}}},
        "comm_type=inter": {"algorithm=MPIR_Allreduce_inter_reduce_exchange_bcast": {}}},
    "collective=allgather": {"comm_type=intra": {"algorithm=MPIR_Allgather_intra_ring": {}}},
}
CH4 = {"collective=allreduce": {"comm_type=intra": {"comm_size=node_comm_size": {
    "composition=MPIDI_Allreduce_intra_composition_gamma": {}}, "comm_size=any": {
    "composition=MPIDI_Allreduce_intra_composition_beta": {}}}}}
POSIX = {"collective=allreduce": {"comm_type=intra": {"algorithm=MPIDI_POSIX_mpi_allreduce_release_gather": {}}}}


def _ch(size, np_, alg):
    return Choice(size, np_, alg, 1.0, alg, 1.0, 1.0, 1.0, None, None, 3)


def _fake_library(tmp_path):
    """A binary with the three trees as NUL-terminated strings among other bytes, as libmpich holds them."""
    blob = b"\x7fELF\0junk{not json}\0"
    for tree in (POSIX, CH4, MPIR):
        blob += json.dumps(tree, separators=(",", ":")).encode() + b"\0\x01\x02"
    p = tmp_path / "libmpich.so.12"
    p.write_bytes(blob)
    return str(p)


def test_builtin_trees_read_from_the_library_by_level(tmp_path):
    trees = mpich_builtin_trees(_fake_library(tmp_path))
    assert trees == {"posix": POSIX, "ch4": CH4, "mpir": MPIR}
    assert list(trees["mpir"]) == list(MPIR)          # MPICH tries siblings in the file's order


def test_builtin_trees_refuse_a_library_without_them(tmp_path):
    p = tmp_path / "libmpi.so.40"
    p.write_bytes(b"\x7fELF no trees here")
    with pytest.raises(IsochronError, match="no built-in MPIR collective selection tree"):
        mpich_builtin_trees(str(p))
    with pytest.raises(IsochronError, match="cannot read"):
        mpich_builtin_trees(str(tmp_path / "missing.so"))


def test_mpich_size_boundaries_are_geometric_means_of_the_totals():
    # MPICH's total_msg_size: the per-process bytes times the communicator size
    np_, rules = size_rules("allgather", [_ch(100, 4, 0), _ch(8000, 4, 3), _ch(1 << 20, 4, 3)], "mpich")
    assert np_ == 4
    assert rules == [(0, 0), (math.ceil(math.sqrt(400 * 32000)), 3)]      # 3578; 8000 and 1 MiB merged
    with pytest.raises(IsochronError, match="one process count"):
        size_rules("allgather", [_ch(100, 2, 0), _ch(100, 4, 0)], "mpich")


def test_mpich_file_replaces_only_the_tuned_branch_at_the_measured_size():
    trees = {"mpir": MPIR, "ch4": CH4}
    out = mpich_rules("allgather", [_ch(100, 4, 0), _ch(8000, 4, 3)], trees)
    assert set(out) == {"mpir"}                       # allgather has no shared-memory level: no ch4 file
    t = json.loads(out["mpir"])
    assert list(t) == list(MPIR)
    assert t["collective=bcast"] == MPIR["collective=bcast"] and t["collective=allreduce"] == MPIR["collective=allreduce"]
    lib = MPIR["collective=allgather"]["comm_type=intra"]
    intra = t["collective=allgather"]["comm_type=intra"]
    assert list(intra) == ["comm_size<4", "comm_size<=4", "comm_size=any"]
    assert intra["comm_size<4"] == lib and intra["comm_size=any"] == lib
    assert intra["comm_size<=4"] == {"total_msg_size<3578": lib,
                                     "total_msg_size=any": {"algorithm=MPIR_Allgather_intra_ring": {}}}


def test_mpich_ch4_file_routes_chosen_sizes_to_the_network_module_and_guards_builtin_only():
    trees = {"mpir": MPIR, "ch4": CH4}
    out = mpich_rules("allreduce", [_ch(8, 2, 0), _ch(1 << 20, 2, 2)], trees)
    assert set(out) == {"mpir", "ch4"}
    t = json.loads(out["mpir"])["collective=allreduce"]
    assert t["comm_type=inter"] == MPIR["collective=allreduce"]["comm_type=inter"]
    lib = MPIR["collective=allreduce"]["comm_type=intra"]
    by_size = t["comm_type=intra"]["comm_size<=2"]
    bound = math.ceil(math.sqrt(16 * (1 << 21)))
    assert list(by_size) == [f"total_msg_size<{bound}", "total_msg_size=any"]
    assert by_size[f"total_msg_size<{bound}"] == lib
    # reduce_scatter_allgather is for built-in operators and count >= pof2 only: other calls keep the library's
    assert by_size["total_msg_size=any"] == {
        "is_op_built_in=no": lib, "count<pow2": lib,
        "count=any": {"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {}}}
    c = json.loads(out["ch4"])["collective=allreduce"]["comm_type=intra"]["comm_size<=2"]["total_msg_size=any"]
    assert c["count=any"] == {"composition=MPIDI_Allreduce_intra_composition_beta": {}}


def test_mpich_unguarded_algorithm_is_a_plain_leaf():
    out = mpich_rules("allreduce", [_ch(8, 4, 1)], {"mpir": MPIR, "ch4": CH4})
    leaf = json.loads(out["mpir"])["collective=allreduce"]["comm_type=intra"]["comm_size<=4"]["total_msg_size=any"]
    assert leaf == {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}}


def test_force_and_rules_words():
    assert force_args("allreduce", 0) == ["--mca", "coll_tuned_use_dynamic_rules", "1"]
    assert force_args("allreduce", 4)[-2:] == ["coll_tuned_allreduce_algorithm", "4"]
    assert force_args("allgather", 0, "mpich") == []
    w = force_args("allgather", 3, "mpich")
    assert w == ["-genv", "MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM", "ring"]
    # a shared-memory level first on one node: the forced MPIR algorithm needs it set to mpir
    assert force_args("bcast", 1, "mpich")[-3:] == ["-genv", "MPIR_CVAR_BCAST_POSIX_INTRA_ALGORITHM", "mpir"]
    assert mpich_ch4_path("/x/rules.json") == "/x/rules.ch4.json"
    r = rules_args("/x/rules.json", "mpich", "reduce")
    assert r == ["-genv", "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", "/x/rules.json",
                 "-genv", "MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE", "/x/rules.ch4.json"]
    assert rules_args("/x/rules.json", "mpich", "alltoall") == r[:3]
    assert rules_args("/x/r.txt")[-2:] == ["coll_tuned_dynamic_rules_filename", "/x/r.txt"]


def test_detect_mpi_from_the_library_string():
    assert detect_mpi(mpi_library="MPICH Version: 4.0.2") == "mpich"
    assert detect_mpi(mpi_library="Open MPI v4.1.4") == "ompi"
    with pytest.raises(IsochronError, match="--mpi ompi or --mpi mpich"):
        detect_mpi()


def _points(medians):
    """Points of one size as a launch set writes them: config -> launch medians."""
    pts, launch = [], 0
    for cfg, meds in medians.items():
        for m in meds:
            launch += 1
            pts.append({"type": "point", "op": "allgather", "config": cfg, "nprocs": 2, "bytes": 1024,
                        "median_s": m, "launch": launch})
    return pts


def _interval(a, b, level=0.95):
    la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
    ma, mb = sum(la) / len(la), sum(lb) / len(lb)
    ss = sum((x - ma) ** 2 for x in la) + sum((x - mb) ** 2 for x in lb)
    dof = len(la) + len(lb) - 2
    half = student.ppf(0.5 + level / 2, dof) * math.sqrt(ss / dof) * math.sqrt(1 / len(la) + 1 / len(lb))
    return math.exp(mb - ma), math.exp(mb - ma - half), math.exp(mb - ma + half)


def test_verify_ratios_intervals_and_verdicts():
    meds = {"default": [10e-6, 11e-6, 10.5e-6], "rules": [5e-6, 5.2e-6, 5.1e-6],
            "alg1": [5.1e-6, 5e-6, 5.3e-6], "alg2": [20e-6, 21e-6, 19e-6]}
    (k,) = verify(_points(meds), "allgather")
    assert k.best == "alg1" and k.n == 3
    assert k.vs_default == pytest.approx(_interval(meds["default"], meds["rules"]))
    assert k.vs_best == pytest.approx(_interval(meds["alg1"], meds["rules"]))
    assert k.vs_default[2] < 1 and not k.slower_than_default and not k.slower_than_best
    assert k.verdict == "faster than default"
    text = verify_table(_points(meds), "allgather", mpi="mpich")
    assert "1:brucks" in text and "2:recursive_doubling" in text and "targets: rules never slower than default" in text
    assert "NOT met" not in text


def test_verify_flags_a_rules_file_slower_than_default_or_best():
    slow = {"default": [5e-6, 5.1e-6, 5.2e-6], "rules": [10e-6, 10.4e-6, 10.2e-6], "alg1": [5e-6, 5.2e-6, 5.1e-6]}
    (k,) = verify(_points(slow), "allgather")
    assert k.slower_than_default and k.verdict == "SLOWER than default"
    assert "NOT met at 1 size(s)" in verify_table(_points(slow), "allgather")
    behind = {"default": [10e-6, 10.2e-6, 10.1e-6], "rules": [10e-6, 10.3e-6, 10.1e-6], "alg1": [5e-6, 5.2e-6, 5.1e-6]}
    (k,) = verify(_points(behind), "allgather")
    assert not k.slower_than_default and k.slower_than_best and k.verdict == "slower than best single"
    noisy = {"default": [5e-6, 9e-6, 5.5e-6], "rules": [6e-6, 5e-6, 10e-6], "alg1": [5e-6, 8e-6, 6e-6]}
    (k,) = verify(_points(noisy), "allgather")
    assert k.vs_default[1] < 1 < k.vs_default[2] and k.verdict == "ok (within noise)"


def test_verify_needs_forced_algorithms_beside_the_rules():
    with pytest.raises(IsochronError, match="no forced algorithm"):
        verify(_points({"default": [1e-6, 1e-6, 1e-6], "rules": [1e-6, 1e-6, 1e-6]}), "allgather")
    with pytest.raises(IsochronError, match="'default' and 'rules'"):
        verify(_points({"alg1": [1e-6, 1e-6, 1e-6]}), "allgather")


def test_verify_best_single_comes_from_the_tuning_set():
    # tuning set: alg1 fastest (not significantly: the choice rule may keep the default)
    tuned = best_singles(choose(_points({"alg0": [10e-6, 10.5e-6, 10.2e-6], "alg1": [6e-6, 6.1e-6, 6.2e-6],
                                                "alg2": [7e-6, 7.2e-6, 7.1e-6]}), "allgather"))
    assert tuned == {(2, 1024): "alg1"}
    # verification: the rules file runs alg1; alg2 happens to be lowest here (a minimum of noisy medians)
    meds = {"default": [10e-6, 10.2e-6, 10.1e-6], "rules": [6e-6, 6.1e-6, 6.2e-6],
            "alg1": [6e-6, 6.2e-6, 6.1e-6], "alg2": [4.9e-6, 5e-6, 5.05e-6]}
    (k,) = verify(_points(meds), "allgather", tuned=tuned)
    assert k.best == "alg1" and k.best_from == "tuning set" and k.fastest_here == "alg2"
    assert k.vs_best == pytest.approx(_interval(meds["alg1"], meds["rules"]))
    assert k.vs_fastest_here == pytest.approx(_interval(meds["alg2"], meds["rules"]))
    assert not k.slower_than_best and k.verdict == "faster than default"
    text = verify_table(_points(meds), "allgather", tuned=tuned)
    assert "best single (tuning set)" in text and "fastest here" in text
    assert "NOT met" not in text and "informative: rules slower than the fastest here beyond noise at 1 of 1" in text
    # without the tuning set the biased minimum decides
    (k,) = verify(_points(meds), "allgather")
    assert k.best == "alg2" and k.best_from == "this set" and k.slower_than_best


def test_verify_best_single_may_be_the_default_and_must_be_measured():
    tuned = best_singles(choose(_points({"alg0": [5e-6, 5.1e-6, 5.2e-6], "alg1": [6e-6, 6.1e-6, 6.2e-6]}),
                                "allgather"))
    assert tuned == {(2, 1024): "default"}
    meds = {"default": [5e-6, 5.1e-6, 5.2e-6], "rules": [5e-6, 5.2e-6, 5.1e-6], "alg1": [6e-6, 6.1e-6, 6.2e-6]}
    (k,) = verify(_points(meds), "allgather", tuned=tuned)
    assert k.best == "default" and "0:default" in verify_table(_points(meds), "allgather", tuned=tuned)
    with pytest.raises(IsochronError, match="alg3.*not measured"):
        verify(_points(meds), "allgather", tuned={(2, 1024): "alg3"})
    with pytest.raises(IsochronError, match="not in the tuning set"):
        verify(_points(meds), "allgather", tuned={(2, 8): "alg1"})
