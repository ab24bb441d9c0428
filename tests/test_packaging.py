"""environment.yml and pyproject.toml must list the same packages; .ci/run must call the README's test command."""
import pathlib
import re
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _name(req: str) -> str:
    return re.split(r"[<>=!~\[ ;]", req.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_name(r) for r in project["dependencies"]}
    for name, extra in project["optional-dependencies"].items():
        if name != "book":                              # the website's tools live in .venv-book, not the conda env
            wanted |= {_name(r) for r in extra}
    conda, in_dependencies = set(), False
    for line in (ROOT / "environment.yml").read_text().splitlines():
        if re.match(r"^\S", line):                      # a top-level key: channels:, dependencies:, ...
            in_dependencies = line.startswith("dependencies:")
            continue
        m = re.match(r"^\s+-\s+([A-Za-z0-9_.\-]+)", line)
        if in_dependencies and m and not line.strip().startswith("- --") and m.group(1) != "pip":
            conda.add(_name(m.group(1)))
    conda.discard("python")
    assert conda == wanted


def test_constraints_pin_every_dependency_and_make_installs_them():
    """What a lecturer installs is the tested set: constraints.txt pins (==) every dependency of pyproject.toml and the
    Makefile installs through it; the pins are consistent with pyproject's lower bounds."""
    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = [Requirement(r) for r in project["dependencies"]]
    reqs += [Requirement(r) for extra in project["optional-dependencies"].values() for r in extra]
    pins = {}
    for file in ("constraints.txt", "constraints-book.txt"):   # the book extra: pinned on top of constraints.txt
        for line in (ROOT / file).read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                name, _, version = line.partition("==")
                assert version, f"{file}: {line!r} is not pinned with =="
                assert _name(name) not in pins, f"{name} is pinned twice"
                pins[_name(name)] = version.strip()
    for req in reqs:
        assert _name(req.name) in pins, f"{req.name} is not pinned in constraints.txt or constraints-book.txt"
        assert req.specifier.contains(pins[_name(req.name)]), f"{req.name}=={pins[_name(req.name)]} violates {req}"
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r'pip install .*-c constraints\.txt -e "\.\[test\]"', makefile)
    assert re.search(r'pip install .*-c constraints\.txt -e "\.\[test,speed\]"', makefile)   # make test: the kernel too
    assert re.search(r"^test: \$\(SPEED_STAMP\)", makefile, re.M)
    assert re.search(r'pip install .*-c constraints\.txt -c constraints-book\.txt .*\.\[book\]', makefile)


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in readme and "make lab" in readme
    assert re.search(r"^\s*make test\b", ci, re.M)


def test_every_chapter_is_listed_in_the_readme():
    readme = (ROOT / "README.md").read_text()
    for nb in sorted((ROOT / "notebooks").glob("[0-9][0-9]*.ipynb")):
        assert nb.name in readme, f"{nb.name} missing from the README's chapter table"


def test_the_fork_workflow_runs_the_ci_script_in_debian_with_the_pinned_python():
    """A lecturer's fork gets CI from .github/workflows/book.yml: it must run .ci/run (the README's test command with
    the browser test required) in a Debian container whose Python is the one constraints.txt was locked with."""
    workflow = (ROOT / ".github" / "workflows" / "book.yml").read_text()
    assert "run: bash .ci/run" in workflow
    image = re.search(r"container:\s*python:(\d+\.\d+)-(\w+)", workflow)
    assert image and image.group(2) in ("bookworm", "trixie"), "a Debian image, so apt provides chromium"
    locked = re.search(r"Python (\d+\.\d+)", (ROOT / "constraints.txt").read_text())
    assert locked and image.group(1) == locked.group(1)
