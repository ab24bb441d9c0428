"""The audit cases, one module per family of mechanisms.  Each module registers its case factories with
:func:`dpbook.audit.catalogue.register` (``@register("key")`` on a top-level function, the key a string literal): a
new module is found, with no list to edit.

Importing this package imports none of them: it reads each module's keys from its source and announces them to the
catalogue (:func:`dpbook.audit.catalogue.announce`), which imports a module the first time one of its keys is looked
up — so a chapter that runs one audit loads one family, not every mechanism of the book.  A module whose source
cannot be read is imported at once, as every module was before.

The catalogue lists the cases in registration order, and chapter 17 runs them with one seeded generator, so the
order of the modules that exist is pinned in :data:`_FIRST` (the chapter's draws depend on it); any other module
follows them, in alphabetical order.  Within a module the keys are in the order of its source, the order in which
importing it registers them."""
import importlib
import pathlib
import pkgutil
import re

from dpbook.audit.catalogue import announce     # absolute: a copy of this package (a test) announces too

#: The modules registered first, in this order (the catalogue's order, which chapter 17's seeded runs follow).
_FIRST = ("laplace", "floating_point", "exponential", "randomized_response", "histogram", "gaussian", "sparse_vector",
          "mwem", "idc", "smooth", "sparse_project", "graphs", "mwem_practical", "projection", "misuse",
          "caller_inputs", "custom_noise", "workload_inputs")

#: A registration as the modules write it: ``@register("key")`` at the start of a line.
_REGISTER = re.compile(r"""^@register\(\s*(["'])([^"'\\]+)\1\s*\)\s*$""", re.MULTILINE)


def _registered_keys(source: str) -> list[str]:
    """The catalogue keys a case module's ``source`` registers, in the order importing it registers them."""
    return [m.group(2) for m in _REGISTER.finditer(source)]


_ALL = sorted(info.name for info in pkgutil.iter_modules(__path__))
for _name in [n for n in _FIRST if n in _ALL] + [n for n in _ALL if n not in _FIRST]:
    _files = [pathlib.Path(p) / f"{_name}.py" for p in __path__]
    _source = next((f.read_text(encoding="utf-8") for f in _files if f.is_file()), None)
    if _source is None:                                  # no source to read (a compiled install): import it now
        importlib.import_module(f"{__name__}.{_name}")
        continue
    for _key in _registered_keys(_source):
        announce(_key, f"{__name__}.{_name}")

__all__: list[str] = []
