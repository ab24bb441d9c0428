"""The audit cases, one module per family of mechanisms.  Importing this package registers every case factory
with :func:`dpbook.audit.catalogue.register`, in the order of the book's chapters as the catalogue lists them."""
from . import laplace, floating_point, exponential, randomized_response, histogram, gaussian, sparse_vector, mwem, idc, smooth, sparse_project, graphs, mwem_practical, projection, misuse, caller_inputs, custom_noise, workload_inputs  # noqa: F401  (imported for their registrations)

__all__: list[str] = []
