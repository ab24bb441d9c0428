"""The theorems' bounds as pure functions, one module per family; each docstring quotes its theorem ID
(listed with statements and sources in ``docs/theorems.md``, generated from each module's ``RESULTS``).

Notebooks never retype a formula: they call these, and tests check each against a hand computation.

Two marks in the docstrings say how much of a formula is the source's (docs/bibliography.md explains them too):

* **[RECON]** — *reconstructed*: the formula is missing or unreadable in the copy of the source the book had
  (the copy of Gupta, Roth & Ullman 2012 lost almost every displayed formula); the shape is the paper's, the
  constants are the book's.  Good for teaching the rate; a privacy claim that rests on one says so.
* **[DERIVED]** — the source states the result without this formula (or with a garbled one); the book derives it
  from the cited result, and the docstring or the chapter gives the derivation.
"""
