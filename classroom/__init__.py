"""Tools for teaching with the book: the student edition (``python -m classroom.student``)."""
