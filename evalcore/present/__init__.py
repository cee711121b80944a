"""Results and the quantity catalogue → tables, tiles and sentences: the words, written once.

One module per analysis family (:mod:`.anchors`, :mod:`.calibration`, :mod:`.judge`,
:mod:`.power`, :mod:`.ranking`, :mod:`.ties`, :mod:`.verdicts`, :mod:`.summary`), their fixed
texts (:mod:`.calibration_words`, :mod:`.verdict_words`, :mod:`.calibration_choices`), the display
helpers (:mod:`.display`) and the methods text (:mod:`.methods`). The faces (pages, the command
line, the report, the findings) read these; the analyses never do.
"""
