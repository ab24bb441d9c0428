"""The theorem registry: one fragment per ID, every declared result well formed, every ID the code and the
notebooks cite registered, every named function, chapter and section real, and docs/theorems.md up to date."""
import importlib
import json
import pathlib
import re

import pytest

from dpbook.theory.reference import notebook_headings, render_theorems
from dpbook.theory.registry import Result, all_results, anchor, cited_ids, find_result


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


# --- the registry against the code, the notebooks and docs/theorems.md ----------------------------------------

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
#: Files that quote IDs as examples of the citation syntax rather than citing results.
SYNTAX_EXAMPLES = {"dpbook/theory/registry.py", "tests/test_registry.py"}
#: IDs cited (in chapter 00's map) for chapters that are not written yet: allowed only while no notebook of
#: that number exists.  When the chapter arrives, its theory module must register them.
PENDING = {
    "PROJ-Alg1": "09", "PROJ-Thm3": "09", "PROJ-Thm5": "09", "PROJ-Thm9": "09", "PROJ-Def6": "09",
    "IDC-Lem6.2": "10",
    "S1-Def1": "11", "S1-Thm1": "11", "S1-Thm2": "11",
    "SMOOTH-Alg1": "12", "SMOOTH-Alg2": "12", "SMOOTH-Thm3.1": "12", "SMOOTH-Thm3.2": "12",
}
RESULTS = all_results()
REGISTERED = {i for r in RESULTS for i in r.ids}


def _sources():
    """(path relative to the repository, text) of every file that may cite an ID: the code and tests, and the
    Markdown and code cells of every notebook (not their outputs)."""
    for folder in ("dpbook", "tests", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel not in SYNTAX_EXAMPLES:
                yield rel, path.read_text(encoding="utf-8")
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        yield path.relative_to(ROOT).as_posix(), "\n".join("".join(c["source"]) for c in cells)


def _chapter_exists(number: str) -> bool:
    return any(NOTEBOOKS.glob(f"{number}_*.ipynb"))


def test_cited_ids_expands_compound_citations():
    assert cited_ids("(DR-Thm3.24/3.26/3.28).") == ["DR-Thm3.24", "DR-Thm3.26", "DR-Thm3.28"]
    assert cited_ids("IDC-Thm2.3/DR-Thm3.6 and DR-Def5.2/Prop5.2") == ["IDC-Thm2.3", "DR-Thm3.6", "DR-Def5.2",
                                                                       "DR-Prop5.2"]
    assert cited_ids("errata LEC3-E4..E8)") == [f"LEC3-E{i}" for i in range(4, 9)]
    assert cited_ids("IDC-Alg1(-SV), IDC-Eq(3)/Cor4.10") == ["IDC-Alg1", "IDC-Alg1-SV", "IDC-Eq(3)", "IDC-Cor4.10"]
    assert cited_ids("IDC-Claims 4.2–4.4 [RECON]") == ["IDC-Claim4.2", "IDC-Claim4.3", "IDC-Claim4.4"]
    assert cited_ids("PROJ-R1/R2, LEC3-3.3.2. PA(i) and PA(ii)") == ["PROJ-R1", "PROJ-R2", "LEC3-3.3.2", "PA(i)",
                                                                     "PA(ii)"]
    assert cited_ids("[DR-Thm3.8](../docs/theorems.md#dr-thm3-8), DR-verified, no IDs") == ["DR-Thm3.8"]
    assert cited_ids("DR-Thm4.2–4.5") == ["DR-Thm4.2"]


@pytest.mark.parametrize("bad", [None, 3, b"DR-DP"])
def test_cited_ids_rejects_non_text(bad):
    with pytest.raises(TypeError, match="text"):
        cited_ids(bad)


def test_every_cited_id_is_registered():
    """Code, tests and notebooks cite only IDs the registry has (one spelling: the spec's)."""
    missing = {}
    for rel, text in _sources():
        for rid in cited_ids(text):
            if rid in REGISTERED or (rid in PENDING and not _chapter_exists(PENDING[rid])):
                continue
            missing.setdefault(rid, []).append(rel)
    assert not missing, f"IDs cited but not registered (add a Result, or fix the spelling): {missing}"


def test_a_misspelt_citation_would_be_caught():
    """The scanner sees what the check above relies on: an unknown ID in a docstring is reported."""
    assert [i for i in cited_ids('"""Bound of DR-Thm3.99 (erratum LEC3-E42)."""') if i not in REGISTERED] == \
        ["DR-Thm3.99", "LEC3-E42"]


def test_pending_ids_belong_to_unwritten_chapters():
    stale = {rid: ch for rid, ch in PENDING.items() if _chapter_exists(ch) and rid not in REGISTERED}
    assert not stale, f"chapters {sorted(set(stale.values()))} exist but do not register {sorted(stale)}"


def test_ids_are_unique():
    seen = {}
    for r in RESULTS:
        for i in r.ids:
            assert i not in seen, f"{i} is declared twice: {seen[i]!r} and {r.title!r}"
            seen[i] = r.title
    assert len({anchor(i) for i in seen}) == len(seen), "two IDs share an anchor"


def _resolve(dotted: str):
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        for attr in parts[k:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


@pytest.mark.parametrize("result", RESULTS, ids=lambda r: r.id)
def test_entry_names_real_functions_chapter_and_section(result):
    assert result.title and result.statement and result.source, "title, statement and source are required"
    for name in result.implemented_by + result.bounds:
        assert name.startswith("dpbook."), name
        assert callable(_resolve(name)), f"{result.id}: {name} is not callable"
    assert all(name.startswith("dpbook.theory.") or name.startswith("dpbook.stats.") for name in result.bounds), \
        f"{result.id}: bound functions live in dpbook.theory (or dpbook.stats): {result.bounds}"
    assert (NOTEBOOKS / f"{result.chapter}.ipynb").is_file(), f"{result.id}: no notebook {result.chapter}.ipynb"
    headings = notebook_headings(result.chapter)
    assert result.section and any(result.section in h for h in headings), \
        f"{result.id}: section {result.section!r} is not a heading of {result.chapter}"


def test_find_result_and_aliases():
    assert find_result("LEC3-3.3").id == "DR-Thm3.8"
    with pytest.raises(KeyError, match="DR-Thm9.99"):
        find_result("DR-Thm9.99")
    with pytest.raises(TypeError, match="result_id"):
        find_result(3)


def test_theorem_reference_is_up_to_date():
    """docs/theorems.md is what ``python -m dpbook.theory.reference`` generates now."""
    committed = (ROOT / "docs" / "theorems.md").read_text(encoding="utf-8")
    assert committed == render_theorems(), "docs/theorems.md is stale: run python -m dpbook.theory.reference"
    for r in RESULTS:
        for i in r.ids:
            assert f'<a id="{anchor(i)}"></a>' in committed


def test_render_theorems_rejects_bad_input():
    with pytest.raises(TypeError, match="results"):
        render_theorems([3])
    with pytest.raises(TypeError, match="chapter"):
        notebook_headings(1)
    with pytest.raises(FileNotFoundError, match="chapter"):
        notebook_headings("99_nothing")
    assert render_theorems([]).startswith("# Theorem reference")


def test_links_into_the_reference_and_bibliography_resolve():
    """Every ``theorems.md#fragment`` / ``bibliography.md#fragment`` link in a notebook or doc points at an anchor."""
    pages = {name: (ROOT / "docs" / name).read_text(encoding="utf-8") for name in ("theorems.md", "bibliography.md")}
    anchors = {name: set(re.findall(r'<a id="([^"]+)"></a>', text)) for name, text in pages.items()}
    files = list(NOTEBOOKS.glob("*.ipynb")) + list((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
    broken = []
    for path in files:
        for page, fragment in re.findall(r"(theorems\.md|bibliography\.md)#([A-Za-z0-9_-]+)", path.read_text("utf-8")):
            if fragment not in anchors[page]:
                broken.append(f"{path.name}: {page}#{fragment}")
    assert not broken, broken


def test_linked_ids_match_their_anchor():
    """A link ``[ID](../docs/theorems.md#frag)`` uses the ID's own fragment (for ``[IDC-Claims 4.2–4.8](...)``
    the first ID's; a bare continuation such as ``/[3.26](...#dr-thm3-26)`` is only checked to resolve).  An ID the
    spec spells with a space (``SMOOTH-Def C^K_B``) is matched as a whole when the link text is exactly that ID."""
    wrong = []
    registered = {rid for r in all_results() for rid in r.ids}
    for path in NOTEBOOKS.glob("*.ipynb"):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            for text, fragment in re.findall(r"\[([^\]]+)\]\(\.\./docs/theorems\.md#([^)]+)\)", "".join(cell["source"])):
                ids = [text] if text in registered else cited_ids(text)
                if ids and anchor(ids[0]) != fragment:
                    wrong.append(f"{path.name}: [{text}](#{fragment})")
    assert not wrong, wrong


def test_first_mentions_are_linked():
    """In each chapter's Markdown the first mention of a registered ID is a link into docs/theorems.md."""
    unlinked = []
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        linked, seen = set(), set()
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            text = "".join(cell["source"])
            for link_text, fragment in re.findall(r"\[([^\]]+)\]\(\.\./docs/theorems\.md#([^)]+)\)", text):
                linked.update(i for r in RESULTS for i in r.ids if anchor(i) == fragment)
            bare = re.sub(r"\[[^\]]*\]\([^)]*\)|`[^`\n]*`", " ", text)
            for rid in cited_ids(bare):
                if rid in REGISTERED and rid not in linked and rid not in seen:
                    unlinked.append(f"{path.name}: {rid}")
                seen.add(rid)
    assert not unlinked, f"first mentions without a link: {unlinked}"
