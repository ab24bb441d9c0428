"""The book's theorem registry: every result the book implements, one hop from any chapter.

Each ``dpbook/theory/<family>.py`` module declares the results it implements in a module-level tuple
``RESULTS`` of :class:`Result` records; :func:`all_results` collects them from every theory module, so a new
chapter registers its results next to its bounds and nothing else has to be edited.  IDs are spelled the same
everywhere: chapters, docstrings, tests (e.g. ``DR-Thm3.8``, ``PROJ-Thm5``, ``SMOOTH-Thm3.1``).
"""
from __future__ import annotations

import importlib
import re
import pkgutil
from dataclasses import dataclass

__all__ = ["Result", "all_results", "anchor", "cited_ids", "find_result"]

# --- the book's sources, as the ``source`` of a Result cites them: the full citation, linked to its entry in
# docs/bibliography.md (the theorem reference lives next to it in docs/) ---------------------------------------
def _bib(key: str, citation: str) -> str:
    return f"[{citation}](bibliography.md#{key})"


DWORK_ROTH = _bib("dwork-roth-2014", "C. Dwork and A. Roth, *The Algorithmic Foundations of Differential Privacy*, "
                  "Foundations and Trends in Theoretical Computer Science 9(3–4), 2014")
GRU = _bib("gupta-roth-ullman-2012", "A. Gupta, A. Roth and J. Ullman, *Iterative Constructions and Private Data "
           "Release*, TCC 2012")
LECTURE3 = _bib("wang-lecture3-2021", "Y.-X. Wang, *Lecture 3: Sparse Vector Technique and Linear Query Release*, "
                "CS291A, UC Santa Barbara, Fall 2021")
PROJECTION_NOTES = _bib("projection-notes", "course notes on the projection mechanism (after Nikolov, Talwar & Zhang, "
                        "*The Geometry of Differential Privacy: the Sparse and Approximate Cases*, STOC 2013)")
HLM = _bib("hardt-ligett-mcsherry-2012", "M. Hardt, K. Ligett and F. McSherry, *A Simple and Practical Algorithm for "
           "Differentially Private Data Release*, NeurIPS 2012")
HARDT_ROTHBLUM = _bib("hardt-rothblum-2010", "M. Hardt and G. N. Rothblum, *A Multiplicative Weights Mechanism for "
                      "Privacy-Preserving Data Analysis*, FOCS 2010")
BLR = _bib("blum-ligett-roth-2008", "A. Blum, K. Ligett and A. Roth, *A Learning Theory Approach to Non-Interactive "
           "Database Privacy*, STOC 2008 (J. ACM 2013)")
DRV = _bib("dwork-rothblum-vadhan-2010", "C. Dwork, G. N. Rothblum and S. Vadhan, *Boosting and Differential "
           "Privacy*, FOCS 2010")
BALLE_WANG = _bib("balle-wang-2018", "B. Balle and Y.-X. Wang, *Improving the Gaussian Mechanism for Differential "
                  "Privacy: Analytical Calibration and Optimal Denoising*, ICML 2018")
ROTH_ROUGHGARDEN = _bib("roth-roughgarden-2010", "A. Roth and T. Roughgarden, *Interactive Privacy via the Median "
                        "Mechanism*, STOC 2010")
FRIEZE_KANNAN = _bib("frieze-kannan-1999", "A. Frieze and R. Kannan, *Quick Approximation to Matrices and "
                     "Applications*, Combinatorica 1999")
MIRONOV = _bib("mironov-2012", "I. Mironov, *On Significance of the Least Significant Bits for Differential "
               "Privacy*, CCS 2012")
CKS = _bib("canonne-kamath-steinke-2020", "C. Canonne, G. Kamath and T. Steinke, *The Discrete Gaussian for "
           "Differential Privacy*, NeurIPS 2020")
LYU_SU_LI = _bib("lyu-su-li-2017", "M. Lyu, D. Su and N. Li, *Understanding the Sparse Vector Technique for "
                 "Differential Privacy*, PVLDB 2017")
BLUM_ROTH = _bib("tutunov-blog", "R. Tutunov's course-blog summary of A. Blum and A. Roth, *Fast Private Data "
                 "Release Algorithms for Sparse Queries*, APPROX/RANDOM 2013")
WARNER = _bib("warner-1965", "S. L. Warner, *Randomized Response: A Survey Technique for Eliminating Evasive Answer "
              "Bias*, JASA 1965")
MCSHERRY_TALWAR = _bib("mcsherry-talwar-2007", "F. McSherry and K. Talwar, *Mechanism Design via Differential "
                       "Privacy*, FOCS 2007")
#: Errata found while building this book (checked by exact computation; not in any published source).
THIS_BOOK = _bib("this-book", "found while building this book (checked by exact computation)")

#: The ID prefixes: Dwork–Roth's textbook, Gupta–Roth–Ullman (IDC), Lecture 3 (LEC3), the projection
#: notes (PROJ), the sparse-query summary (S1) and the smooth-query paper (SMOOTH).
ID_PREFIXES = ("DR", "IDC", "LEC3", "PROJ", "S1", "SMOOTH")
_PREFIX = "|".join(ID_PREFIXES)
#: One citation as written in prose: ``DR-Thm3.8``, ``DR-Thm3.24/3.26``, ``LEC3-E4..E8``, ``IDC-Alg1(-SV)``, ...
_TOKEN = re.compile(rf"(?<![A-Za-z0-9_#-])({_PREFIX})-([A-Z0-9][A-Za-z0-9.()/-]*)")
#: The plural range form: ``IDC-Claims 4.2–4.8``.
_PLURAL_RANGE = re.compile(rf"(?<![A-Za-z0-9_#-])({_PREFIX})-([A-Z][a-z]+)s (\d+)\.(\d+)[–-](\d+)\.(\d+)")
#: The book's audit templates (PA(i): exact privacy loss; PA(ii): event frequencies).
_TEMPLATE = re.compile(r"(?<![A-Za-z0-9_])PA\((i|ii)\)")


def anchor(result_id: str) -> str:
    """The fragment of ``docs/theorems.md`` for an ID: ``anchor("DR-Thm3.8") == "dr-thm3-8"``
    (chapters link ``../docs/theorems.md#dr-thm3-8``)."""
    if not isinstance(result_id, str):
        raise TypeError(f"result_id must be a str such as 'DR-Thm3.8', got {type(result_id).__name__}")
    if not re.search(r"[A-Za-z0-9]", result_id):
        raise ValueError(f"result_id ({result_id!r}) must contain letters or digits")
    return re.sub(r"[^a-z0-9]+", "-", result_id.lower()).strip("-")


def _clean(body: str) -> str:
    """Strip the punctuation a sentence puts after an ID (``DR-Thm3.8).`` -> ``DR-Thm3.8``)."""
    while body and (body[-1] in ".-/" or (body[-1] == ")" and body.count(")") > body.count("("))):
        body = body[:-1]
    return body


def _expand(prefix: str, body: str) -> list[str]:
    """``Thm3.24/3.26`` -> ``Thm3.24, Thm3.26``; ``Def5.2/Prop5.2``; ``E4..E8``; ``Alg1(-SV)`` -> ``Alg1, Alg1-SV``."""
    m = re.fullmatch(r"(.*?)\(-([A-Za-z0-9]+)\)", body)
    if m:
        return [f"{prefix}-{m.group(1)}", f"{prefix}-{m.group(1)}-{m.group(2)}"]
    ids, kind = [], ""
    for part in body.split("/"):
        if not part:
            continue
        full = re.fullmatch(rf"({_PREFIX})-(.+)", part)
        if full:
            prefix, part = full.group(1), full.group(2)
        elif part[0].isdigit() and kind:
            part = kind + part
        r = re.fullmatch(r"([A-Za-z]*)(\d+)\.\.\1?(\d+)", part)
        if r:
            ids += [f"{prefix}-{r.group(1)}{i}" for i in range(int(r.group(2)), int(r.group(3)) + 1)]
            kind = r.group(1)
            continue
        ids.append(f"{prefix}-{part}")
        kind = re.match(r"[A-Za-z]*", part).group(0)
    return ids


def cited_ids(text: str) -> list[str]:
    """Every result ID that ``text`` cites, in the registry's spelling, in order of first appearance.

    Compound citations are expanded: ``DR-Thm3.24/3.26`` (two theorems), ``DR-Def5.2/Prop5.2``,
    ``IDC-Thm2.3/DR-Thm3.6``, ``LEC3-E4..E8`` (five errata), ``IDC-Alg1(-SV)`` and the plural
    ``IDC-Claims 4.2–4.8``; a range written with a dash (``DR-Thm4.2–4.5``) counts its first ID only.
    The audit templates ``PA(i)`` and ``PA(ii)`` count too.  Fragments of links
    (``theorems.md#dr-thm3-8``) are not citations.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    found: list[tuple[int, str]] = []
    covered: list[tuple[int, int]] = []
    for m in _PLURAL_RANGE.finditer(text):
        prefix, kind, major, lo, major2, hi = m.groups()
        if major == major2 and int(lo) <= int(hi):
            found += [(m.start(), f"{prefix}-{kind}{major}.{i}") for i in range(int(lo), int(hi) + 1)]
            covered.append(m.span())
    for m in _TOKEN.finditer(text):
        if any(a <= m.start() < b for a, b in covered):
            continue
        body = _clean(m.group(2))
        if body:
            found += [(m.start(), i) for i in _expand(m.group(1), body)]
    found += [(m.start(), m.group(0)) for m in _TEMPLATE.finditer(text)]
    seen: dict[str, None] = {}
    for _, rid in sorted(found, key=lambda t: t[0]):
        seen.setdefault(rid, None)
    return list(seen)


@dataclass(frozen=True)
class Result:
    """One result of the book.

    ``id``: the result's ID, one spelling.  ``title``: a few words (``"Laplace mechanism"``).  ``statement``: one
    or two sentences in our own words, Markdown/LaTeX allowed.  ``implemented_by``: dotted names of the
    functions or classes that implement the mechanism or definition.  ``bounds``: dotted names of the
    ``dpbook.theory`` functions that compute its bound.  ``chapter``: the notebook stem (``"01_laplace"``);
    ``section``: the heading in that chapter where the result is stated and checked.  ``source``: the
    reference it comes from (author, short title, year), with errata IDs where they apply.  ``aliases``: the
    other IDs of the same result (``DR-Thm3.8`` is also ``LEC3-3.3``); each gets an anchor.
    """

    id: str
    title: str
    statement: str
    chapter: str
    section: str = ""
    implemented_by: tuple[str, ...] = ()
    bounds: tuple[str, ...] = ()
    source: str = ""
    aliases: tuple[str, ...] = ()

    @property
    def ids(self) -> tuple[str, ...]:
        """The ID and its aliases."""
        return (self.id, *self.aliases)


def find_result(result_id: str) -> Result:
    """The registered :class:`Result` with this ID or alias (``KeyError`` naming the ID if there is none)."""
    anchor(result_id)                                        # type and content checks of the ID
    for r in all_results():
        if result_id in r.ids:
            return r
    raise KeyError(f"result_id ({result_id!r}) is not in the registry")


def all_results() -> list[Result]:
    """Every :class:`Result` declared in a ``RESULTS`` tuple of a ``dpbook.theory`` module, sorted by chapter and ID."""
    from dpbook import theory

    found: list[Result] = []
    for info in pkgutil.iter_modules(theory.__path__):
        if info.name == "registry":
            continue
        module = importlib.import_module(f"dpbook.theory.{info.name}")
        found.extend(getattr(module, "RESULTS", ()))
    return sorted(found, key=lambda r: (r.chapter, r.id))
