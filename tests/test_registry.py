"""The theorem registry: one fragment per ID, and every declared result is well formed."""
import pytest

from dpbook.theory.registry import Result, all_results, anchor


def test_anchor_is_a_stable_fragment():
    assert anchor("DR-Thm3.8") == "dr-thm3-8"
    assert anchor("SMOOTH-E1") == "smooth-e1"
    assert anchor("IDC-Alg1-SV") == "idc-alg1-sv"
    assert anchor("PA(i)") == "pa-i"


@pytest.mark.parametrize("bad, exc", [(3, TypeError), (None, TypeError), ("", ValueError), ("--", ValueError)])
def test_anchor_rejects_bad_input(bad, exc):
    with pytest.raises(exc, match="result_id"):
        anchor(bad)


def test_declared_results_are_well_formed():
    results = all_results()
    assert all(isinstance(r, Result) and r.id and r.chapter for r in results)
