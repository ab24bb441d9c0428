"""The package's structure, executable: README's layer diagram, no import circle, every piece at home, and every
mechanism family with the companions CONTRIBUTING's "Where things go" table asks for; and no module imports another
module's private name.

The import graph is read from the source (``ast``): every ``import`` statement of a module — at module level and
inside functions (a call-time import is a dependency too) — and every ``importlib.import_module("dpbook....")``
with a literal name.  A module's ``__getattr__`` (a lazy alias that keeps an old name importable) is not part of
its code's dependencies and is not read.
"""
from __future__ import annotations

import ast
import json
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "dpbook"


# --------------------------------------------------------------------------------------------- the graph

def _modules(package: pathlib.Path) -> dict[str, pathlib.Path]:
    out = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _owner(name: str, modules) -> str | None:
    """The module of ``modules`` that ``name`` (a module or a name inside one) refers to."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imported(module: str, path: pathlib.Path, modules) -> set[str]:
    """The modules of the package ``module`` imports anywhere in its code (not in a module-level ``__getattr__``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = {id(node) for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "__getattr__"}
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()

    def visit(node):
        if id(node) in skip:
            return
        targets = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            targets = [f"{origin}.{alias.name}" for alias in node.names]
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module" and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            targets = [node.args[0].value]
        for target in targets:
            owner = _owner(target, modules)
            if owner and owner != module and not module.startswith(owner + "."):    # a package's own parents
                found.add(owner)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def import_graph(package: pathlib.Path = PACKAGE) -> dict[str, set[str]]:
    modules = _modules(package)
    return {name: _imported(name, path, modules) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph`` (``[a, b, ..., a]``), or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


# --------------------------------------------------------------------------------------------- README's layers

def readme_layers(text: str) -> dict[str, int]:
    """README's layer diagram as ``{module name under dpbook: layer}``: a line ``<layer>  a · b · c  <what>`` starts
    a layer, a line ``    · d · e`` continues its list of names."""
    start = text.index("layer  modules of dpbook")
    block = text[start:text.index("```", start)]
    layers, current = {}, None
    for line in block.splitlines()[1:]:
        head = re.match(r"^\s*(\d+)\s{2,}(.+?)(?:\s{2,}|$)", line)
        more = re.match(r"^\s+·\s(.+?)(?:\s{2,}|$)", line)
        if head:
            current, names = int(head.group(1)), head.group(2)
        elif more and current is not None:
            names = more.group(1)
        else:
            continue
        for name in (n.strip() for n in names.split("·")):
            if name:
                assert re.fullmatch(r"[a-z_]+", name), f"README's layer diagram: {name!r} is not a module name"
                layers[name] = current
    return layers


def _layer_of(module: str, layers: dict[str, int]) -> int | None:
    parts = module.split(".")
    if len(parts) < 2:
        return None                                                   # the package itself
    return layers.get(parts[1])


def layering_violations(graph, layers) -> list[str]:
    out = []
    for module, targets in sorted(graph.items()):
        here = _layer_of(module, layers)
        for target in sorted(targets):
            there = _layer_of(target, layers)
            if here is not None and there is not None and there > here:
                out.append(f"{module} (layer {here}) imports {target} (layer {there})")
    return out


GRAPH = import_graph()
LAYERS = readme_layers((ROOT / "README.md").read_text(encoding="utf-8"))


def test_the_import_graph_has_no_circle():
    assert find_cycle(GRAPH) is None, " -> ".join(find_cycle(GRAPH))


def test_every_module_has_a_layer_in_readme():
    """A new module is placed in README's diagram (the one picture of the package) before it is imported."""
    missing = sorted({m.split(".")[1] for m in GRAPH if m.count(".") >= 1} - set(LAYERS))
    assert not missing, f"modules missing from README's layer diagram: {missing}"
    stale = sorted(set(LAYERS) - {m.split(".")[1] for m in GRAPH if m.count(".") >= 1})
    assert not stale, f"README's layer diagram names modules that do not exist: {stale}"


def test_each_layer_imports_only_from_its_own_and_those_below():
    assert not layering_violations(GRAPH, LAYERS), "\n".join(layering_violations(GRAPH, LAYERS))


def test_the_checks_can_fail(tmp_path):
    """A circle (also through a call-time import) and an upward import in a small package are found."""
    pkg = tmp_path / "dpbook"
    (pkg / "broken").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "broken" / "__init__.py").write_text("")
    (pkg / "validation.py").write_text("def f():\n    from .noise import g\n")
    (pkg / "noise.py").write_text("from .validation import f\n")
    (pkg / "broken" / "noise.py").write_text("import importlib\nX = importlib.import_module('dpbook.audit')\n")
    (pkg / "audit.py").write_text("from .broken import noise\n")
    (pkg / "laplace.py").write_text("def __getattr__(name):\n    from . import audit\n")  # an alias: not read
    graph = import_graph(pkg)
    assert graph["dpbook.laplace"] == set()
    cycle = find_cycle({k: v for k, v in graph.items() if k != "dpbook.audit"})
    assert cycle is not None and set(cycle) == {"dpbook.validation", "dpbook.noise"}
    layers = readme_layers("layer  modules of dpbook\n  2    audit\n  1    broken · noise\n  0    validation\n```")
    assert layering_violations(graph, layers) == [
        "dpbook.broken.noise (layer 1) imports dpbook.audit (layer 2)",
        "dpbook.validation (layer 0) imports dpbook.noise (layer 1)"]


# --------------------------------------------------------------------------------------------- pieces at home

def _loaded_after(statement: str, prefix: str = "dpbook") -> list[str]:
    code = f"import sys\n{statement}\nprint(' '.join(sorted(m for m in sys.modules if m.startswith({prefix!r}))))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_a_mechanism_that_only_answers_queries_loads_no_multiplicative_weights():
    """A workload exposes its supports, rows and slabs; the update lives in dpbook.multiplicative_weights."""
    loaded = _loaded_after("import dpbook.laplace")
    assert "dpbook.laplace" in loaded and "dpbook.queries" in loaded
    assert not {"dpbook.multiplicative_weights", "dpbook._mw_kernels", "dpbook.theory.mwem"} & set(loaded), loaded
    assert "dpbook.multiplicative_weights" in _loaded_after("import dpbook.mwem")           # the check can fail


#: modules that may import scipy.stats when imported (everything else imports it inside the function that uses it)
def test_importing_the_package_does_not_load_scipy_stats():
    """scipy.stats costs about a second to import, paid by every chapter's first cell if any module it imports
    loads it (and by a chapter's solutions if its answers module does); a width estimate's Student's t interval
    needs only scipy.special (the function scipy.stats.t.ppf evaluates), so running it does not load scipy.stats
    either."""
    modules = sorted(p.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
                     for p in PACKAGE.rglob("*.py") if p.stem != "__init__" or p.parent != PACKAGE)
    modules = [m.removesuffix(".__init__") for m in modules]
    loaded = _loaded_after("\n".join(f"import {m}" for m in modules), prefix="")
    assert "dpbook.data" in loaded and "dpbook.exercises.ch17" in loaded and "scipy.sparse" in loaded
    assert "scipy.stats" not in loaded
    width = ("from dpbook.geometry import gaussian_width\nfrom dpbook.queries import k_way_marginals\n"
             "gaussian_width(k_way_marginals(3, 1), samples=4, rng=0)")
    assert "scipy.stats" not in _loaded_after(width, "scipy")           # Student's t through scipy.special.stdtrit
    assert "scipy.stats" in _loaded_after(width + "\nimport scipy.stats", "scipy")                   # can fail


def test_a_broken_twin_does_not_load_the_audit():
    twins = sorted(p.stem for p in (PACKAGE / "broken").glob("*.py") if p.stem != "__init__")
    loaded = _loaded_after("\n".join(f"import dpbook.broken.{t}" for t in twins))
    assert not [m for m in loaded if m.startswith("dpbook.audit")], loaded
    assert "dpbook.audit" in _loaded_after("import dpbook.broken.sparse_vector as b\nb.CATCHING_PAIRS")


def test_the_audit_cases_are_found_without_a_list(tmp_path):
    """Every module of dpbook/audit/cases registers cases when the package is imported (none is listed by hand), and
    a new module is picked up: a copy of the package with one more module registers its case too."""
    from dpbook.audit import catalogue
    import dpbook.audit.cases  # noqa: F401
    registering = {f.__module__ for f in catalogue.FACTORIES.values()}
    modules = {f"dpbook.audit.cases.{p.stem}" for p in (PACKAGE / "audit" / "cases").glob("*.py")
               if p.stem != "__init__"}
    assert modules <= registering, sorted(modules - registering)
    code = ("import importlib.util, sys\n"
            "import dpbook.audit.catalogue as cat\n"
            f"spec = importlib.util.spec_from_file_location('extra_cases', {str(tmp_path / 'cases' / '__init__.py')!r},"
            f" submodule_search_locations=[{str(tmp_path / 'cases')!r}])\n"
            "m = importlib.util.module_from_spec(spec); sys.modules['extra_cases'] = m; spec.loader.exec_module(m)\n"
            "print('zz_new' in cat.FACTORIES, cat.FACTORIES['zz_new'].__module__ == 'extra_cases.zz_new')")
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "__init__.py").write_text((PACKAGE / "audit" / "cases" / "__init__.py").read_text())
    (tmp_path / "cases" / "zz_new.py").write_text(
        "from dpbook.audit.catalogue import register\n\n@register('zz_new')\ndef _case():\n    pass\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True True"



def test_the_audit_loads_a_case_module_when_one_of_its_cases_is_looked_up():
    """Importing dpbook.audit (a chapter's ``from dpbook.audit import audit``) imports no case module and no mechanism
    the catalogue covers; looking a case up imports its module only; listing the keys imports nothing."""
    loaded = _loaded_after("from dpbook.audit import audit, audit_case_names\nassert len(audit_case_names()) > 50")
    assert not [m for m in loaded if m.startswith("dpbook.audit.cases.")], loaded
    assert not {"dpbook.sparse_vector", "dpbook.broken.sparse_vector", "dpbook.audit.pairs"} & set(loaded), loaded
    one = _loaded_after("from dpbook.audit import audit_cases\naudit_cases(names=['laplace'])", "dpbook.audit.cases.")
    assert one == ["dpbook.audit.cases.laplace"], one
    every = _loaded_after("import dpbook.audit\ndpbook.audit.audit_cases()", "dpbook.audit.cases.")   # can fail
    assert len(every) == len(list((PACKAGE / "audit" / "cases").glob("*.py"))) - 1, every


def test_the_catalogue_announces_the_keys_its_modules_register_in_their_order():
    """The keys read from the case modules' sources are the keys importing them registers, in the same order and
    each with the module it was announced with (the order chapter 17's seeded runs follow)."""
    code = ("import dpbook.audit.catalogue as cat, dpbook.audit\n"
            "announced = [(k, cat.FACTORIES._modules[k]) for k in cat.FACTORIES]\n"
            "import importlib, pkgutil, dpbook.audit.cases as cases\n"
            "before = dict(cat.FACTORIES._factories)\n"
            "assert not before, sorted(before)\n"
            "registered = []\n"
            "real = cat.FACTORIES.register\n"
            "cat.FACTORIES.register = lambda key, f: (registered.append((key, f.__module__)), real(key, f))\n"
            "for name in dict.fromkeys(m for _, m in announced): importlib.import_module(name)\n"
            "print(announced == registered, len(announced))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    flag, count = out.stdout.split()
    assert flag == "True" and int(count) > 50, out.stdout
    from dpbook.audit.cases import _registered_keys
    assert _registered_keys('@register("a")\ndef f():\n    pass\n\n@register( \'b\' )\n# @register("c")\n') == ["a", "b"]


# --------------------------------------------------------------------------------------------- companions

def _families() -> list[str]:
    """The mechanism families: the modules (directly under dpbook, or a package) that export a public mechanism."""
    from dpbook.audit import public_mechanisms
    from test_audits import NOT_MECHANISMS
    return sorted({q.split(".")[1] for q in public_mechanisms() if q not in NOT_MECHANISMS})


FAMILIES = _families()


def _imports_family(path: pathlib.Path, family: str) -> bool:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        text = "\n".join("".join(c["source"]) for c in json.loads(text)["cells"] if c["cell_type"] == "code")
    return re.search(rf"(from|import)\s+(dpbook|\.\.?)\.{family}\b|from\s+(dpbook|\.\.)\s+import\s+.*\b{family}\b",
                     text) is not None


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_has_its_companions(family):
    """CONTRIBUTING's "Where things go", executable: a family ``dpbook/<family>.py`` has its bounds
    (``dpbook/theory/<family>.py`` with entries in the theorem registry), its tests (``tests/test_<family>.py``), a
    broken twin (a module of ``dpbook/broken`` built on it), an audit case for a mechanism of it (the catalogue), a
    benchmark (``benchmarks/bench_*.py`` timing it) and a chapter (a notebook that imports it)."""
    import importlib

    from dpbook.audit import audit_cases
    theory = importlib.import_module(f"dpbook.theory.{family}")
    assert getattr(theory, "RESULTS", ()), f"dpbook/theory/{family}.py registers no result (RESULTS)"
    assert (ROOT / "tests" / f"test_{family}.py").exists(), f"tests/test_{family}.py is missing"
    twins = [p for p in (PACKAGE / "broken").glob("*.py") if _imports_family(p, family)]
    assert twins, f"no broken twin in dpbook/broken/ builds on dpbook.{family}"
    assert any(c.target.startswith(f"dpbook.{family}.") for c in audit_cases()), f"no audit case for dpbook.{family}"
    assert any(_imports_family(p, family) for p in (ROOT / "benchmarks").glob("bench_*.py")), \
        f"no benchmarks/bench_*.py times dpbook.{family}"
    assert any(_imports_family(p, family) for p in (ROOT / "notebooks").glob("*.ipynb")), \
        f"no chapter imports dpbook.{family}"


def test_the_families_are_found():
    assert {"laplace", "gaussian", "sparse_vector", "mwem", "idc", "smooth"} <= set(FAMILIES) and len(FAMILIES) >= 12


def _private_imports(root=ROOT):
    found = []
    for path in sorted((root / "dpbook").rglob("*.py")):
        module = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            source = (base + "." + node.module if node.module else base) if node.level else node.module
            if not source or not source.startswith("dpbook"):
                continue
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append((module, source, alias.name))
    return found


def test_no_module_imports_another_modules_private_name():
    bad = _private_imports()
    assert not bad, f"private names imported across modules: {bad}"


def test_the_private_import_check_can_fail(tmp_path):
    (tmp_path / "dpbook" / "broken").mkdir(parents=True)
    (tmp_path / "dpbook" / "__init__.py").write_text("")
    (tmp_path / "dpbook" / "mwem.py").write_text("def _rounds(): pass\n")
    (tmp_path / "dpbook" / "broken" / "mwem.py").write_text("from ..mwem import _rounds, __doc__\n")
    assert _private_imports(tmp_path) == [("dpbook.broken.mwem", "dpbook.mwem", "_rounds")]


# --------------------------------------------------------------------------------------------- tests mirror the package

#: modules whose tests are a cross-cutting file by nature, with the file
TESTED_ACROSS = {
    "dpbook.broken": "test_audits.py",             # each broken twin is an audit control, caught in the catalogue
    "dpbook.theory.reference": "test_registry.py",  # it writes docs/theorems.md from the registry
    "dpbook.theory.auditing": "test_registry.py",   # registry entries only
}


def _test_files_for(module: str, tests=ROOT / "tests") -> list[pathlib.Path]:
    parts = module.split(".")[1:]
    stem = parts[-1].lstrip("_")
    found = [*tests.glob(f"test_{stem}.py"), *tests.glob(f"test_{stem}_*.py")]
    if len(parts) > 1:                                   # a module of a subpackage: the package's own test files too
        found += [*tests.glob(f"test_{parts[0]}.py"), *tests.glob(f"test_{parts[0]}_*.py"),
                  *tests.glob(f"test_{parts[0]}s.py")]
    for prefix, name in TESTED_ACROSS.items():
        if module == prefix or module.startswith(prefix + "."):
            found.append(tests / name)
    return [p for p in found if p.exists()]


def _untested_modules(tests=ROOT / "tests") -> list[str]:
    modules = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts) for p in PACKAGE.rglob("*.py")
                     if p.name != "__init__.py")
    return [m for m in modules if not _test_files_for(m, tests)]


def test_every_module_has_its_test_file():
    """``dpbook/<m>.py`` is tested in ``tests/test_<m>.py`` (or ``test_<m>_<aspect>.py``); a module of a subpackage
    may be tested with its package (``test_<package>_*.py``); three cross-cutting homes are declared above."""
    assert not _untested_modules(), _untested_modules()


def test_the_test_file_check_can_fail(tmp_path):
    (tmp_path / "test_laplace.py").write_text("")
    missing = _untested_modules(tmp_path)
    assert "dpbook.laplace" not in missing and "dpbook.gaussian" in missing and "dpbook.broken.noise" in missing
