import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    """Every test starts and ends with no open figure: the sweeps call the chapters' figure functions thousands of
    times, and pyplot keeps every figure it made until it is closed."""
    yield
    plt.close("all")
