"""What the stored-results scripts (``benchmarks/<family>/run.py``) share: the commit their numbers come from."""
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[1]


def git_hash() -> str:
    """The checkout's commit (``git rev-parse HEAD``), or ``"unknown"`` outside a git checkout."""
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
