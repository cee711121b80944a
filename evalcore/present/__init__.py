"""Results and the quantity catalogue → tables, tiles and sentences: the words, written once.

One module per analysis family (:mod:`.anchors`, :mod:`.calibration`, :mod:`.judge`,
:mod:`.power`, :mod:`.ranking`, :mod:`.ties`, :mod:`.verdicts`, :mod:`.summary`), their fixed
texts (:mod:`.calibration_words`, :mod:`.verdict_words`, :mod:`.calibration_choices`), the display
helpers (:mod:`.display`) and the methods text (:mod:`.methods`). The faces (pages, the command
line, the report, the findings) read these; the analyses never do.

The rules every module follows, said once: nothing here computes a statistic (a function reads a
result); tables come from :func:`.display.catalogue_table` (the catalogue's headings, numbers
written as text, ``—`` when missing) and tiles from :func:`.display.tile`; a sentence is plain
text, which a face escapes for its own markup, or safe Markdown, in which user text (names,
messages that quote them) is already escaped by :func:`evalcore.text.markdown`. Each module's
docstring says which.
"""
