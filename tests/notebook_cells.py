"""Reading a chapter's widget cell in tests: the ``widgets.panel(...)`` call it makes, whatever else the cell does
(a cell may build the panel into a name and show it on its last line, as the chapters do)."""
import ast


def panel_call(cell: str) -> str:
    """The source of the first ``<module>.panel(...)`` call in the code cell ``cell`` (comments and magics-free
    Python; ``# NBVAL_...`` markers are comments)."""
    tree = ast.parse(cell)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "panel":
            return ast.get_source_segment(cell, node)
    raise ValueError("the cell makes no widgets.panel(...) call")
