"""The audit cases, one module per family of mechanisms.  Importing this package imports every module in it, each of
which registers its case factories with :func:`dpbook.audit.catalogue.register`: a new module is found, with no
list to edit.

The catalogue lists the cases in registration order, and chapter 17 runs them with one seeded generator, so the
order of the modules that exist is pinned in :data:`_FIRST` (the chapter's draws depend on it); any other module
follows them, in alphabetical order."""
import importlib
import pkgutil

#: The modules registered first, in this order (the catalogue's order, which chapter 17's seeded runs follow).
_FIRST = ("laplace", "floating_point", "exponential", "randomized_response", "histogram", "gaussian", "sparse_vector",
          "mwem", "idc", "smooth", "sparse_project", "graphs", "mwem_practical", "projection", "misuse",
          "caller_inputs", "custom_noise", "workload_inputs")

_ALL = sorted(info.name for info in pkgutil.iter_modules(__path__))
for _name in [n for n in _FIRST if n in _ALL] + [n for n in _ALL if n not in _FIRST]:
    importlib.import_module(f"{__name__}.{_name}")

__all__: list[str] = []
