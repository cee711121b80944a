# Internal-document citations → docs/ pages or real references. Ordered: specific rules first.
# Apply with: sed -i -E -f citations.sed $(grep -rlE --include=*.py 'DEFINITIONS|VERDICT_FORMAT|[Ss]eed 00[0-9]|shared/|readme_importers' evalcore views app.py benchmarks data)
# --- data contract
s/or a label of VERDICT_FORMAT\.md/or one of these labels/g
s/\(VERDICT_FORMAT\.md\)/(docs\/data-contract.md)/g
s/``shared\/VERDICT_FORMAT\.md``/``docs\/data-contract.md``/g
s/shared\/VERDICT_FORMAT\.md/docs\/data-contract.md/g
s/VERDICT_FORMAT\.md/docs\/data-contract.md/g
s/``docs\/readme_importers\.md``/``docs\/data-contract.md``/g
s/docs\/readme_importers\.md/docs\/data-contract.md/g
# --- AlpacaEval conversion rule (the release notes of a local data copy)
s/\(``shared\/data\/real\/alpacaeval2_weighted\/README\.md``:/(the AlpacaEval weighted-annotator convention, Dubois et al. 2024:/g
s/\(``shared\/data\/real\/alpacaeval2_weighted\/README\.md``, "How slot order was recovered"\)/(docs\/data-contract.md, "AlpacaEval")/g
s/ \(the same key as ``sha1`` in ``shared\/data\/real\/alpacaeval2_weighted\/instructions\.csv``\)//g
s/the rule of\s*`?shared\/data\/real\/alpacaeval2_weighted\/README\.md`?/AlpacaEval's weighted-annotator convention/g
# --- definitions
s/``shared\/notes\/DEFINITIONS\.md``, "Sign-test sample size"/``docs\/definitions.md#power-and-sample-sizes``/g
s/``shared\/notes\/DEFINITIONS\.md``, "Total samples"/``docs\/definitions.md#power-and-sample-sizes``/g
s/DEFINITIONS\.md "Anchors"/docs\/definitions.md#informativeness/g
s/DEFINITIONS\.md, "Anchors"/docs\/definitions.md#informativeness/g
s/; DEFINITIONS\.md "Calibration"//g
s/DEFINITIONS\.md "Calibration"/docs\/definitions.md#calibration/g
s/DEFINITIONS\.md "Effective levels"/docs\/definitions.md#tie-structure/g
s/DEFINITIONS\.md "Sign-test sample size"/docs\/definitions.md#power-and-sample-sizes/g
s/DEFINITIONS\.md "both-orders verdict"/docs\/definitions.md#both-orders-verdict/g
s/DEFINITIONS\.md, "Verdicts and win rates"/docs\/definitions.md#per-anchor-kendall-tau/g
s/DEFINITIONS\.md, \*Total samples\*/docs\/definitions.md#power-and-sample-sizes/g
s/``shared\/notes\/DEFINITIONS\.md``, "The judge"/``docs\/definitions.md`` (the judge's sections)/g
s/``shared\/notes\/DEFINITIONS\.md``, "Calibration"/``docs\/definitions.md#calibration``/g
s/``shared\/notes\/DEFINITIONS\.md``, "Anchors" and "Verdicts and win rates"/``docs\/definitions.md#informativeness``, ``#verdicts-and-win-rates``/g
s/``shared\/notes\/DEFINITIONS\.md``, "Anchors"/``docs\/definitions.md#informativeness``/g
s/``shared\/notes\/DEFINITIONS\.md``/``docs\/definitions.md``/g
s/`shared\/notes\/DEFINITIONS\.md`/`docs\/definitions.md`/g
s/shared\/notes\/DEFINITIONS\.md/docs\/definitions.md/g
s/``DEFINITIONS\.md``, "Total samples"/``docs\/definitions.md#power-and-sample-sizes``/g
s/DEFINITIONS\.md "Calibration"/docs\/definitions.md#calibration/g
s/``DEFINITIONS\.md``/``docs\/definitions.md``/g
s/([^/])DEFINITIONS\.md/\1docs\/definitions.md/g
# --- Don-Yehiya et al. 2026 (anchor selection; seeds 000 and 001 are this paper and its summary)
s/[Ss]eed 00[01]'s/Don-Yehiya et al.'s (2026)/g
s/[Ss]eed 00[01],? (§|App\.|Table|Tables|Fig\.|Figs\.|Listing)/Don-Yehiya et al. 2026, \1/g
s/[Ss]eed 00[01]/Don-Yehiya et al. (2026)/g
# --- Gondara et al. 2026 (The Format is the Filter)
s/[Ss]eed 002's/Gondara et al.'s (2026)/g
s/[Ss]eed 002 \("The Format is the Filter"/Gondara et al. 2026 ("The Format is the Filter"/g
s/[Ss]eed 002,? (§|App\.|Appendix|Table|Tables|Fig\.)/Gondara et al. 2026, \1/g
s/[Ss]eed 002/Gondara et al. (2026)/g
# --- the calibration study (no published title/authors): cite the docs sections instead
s/[Ss]eed 003 §1, §3/docs\/definitions.md#both-orders-verdict, #position-bias/g
s/[Ss]eed 003 §1, §4, §7/docs\/definitions.md#agreement-with-humans/g
s/[Ss]eed 003 §1, §7/docs\/definitions.md#agreement-with-humans/g
s/[Ss]eed 003 §4, §6/docs\/definitions.md#calibration/g
s/[Ss]eed 003 §1 \/ docs\/definitions\.md/docs\/definitions.md#both-orders-verdict/g
s/[Ss]eed 003 §1\/§3\/§7/docs\/definitions.md#both-orders-verdict, #position-bias/g
s/[Ss]eed 003 §4–§6, §8/docs\/definitions.md#calibration/g
s/[Ss]eed 003 §4–§6/docs\/definitions.md#calibration/g
s/[Ss]eed 003 §5–§6/docs\/definitions.md#gates, #floors/g
s/[Ss]eed 003 §1/docs\/definitions.md#both-orders-verdict/g
s/[Ss]eed 003 §3/docs\/definitions.md#position-bias/g
s/[Ss]eed 003 §4/docs\/definitions.md#agreement-with-humans/g
s/[Ss]eed 003 §5/docs\/definitions.md#gates/g
s/[Ss]eed 003 §6/docs\/definitions.md#floors/g
s/[Ss]eed 003 §7/docs\/methods.md#the-judges-spec-sheet/g
s/[Ss]eed 003 §8/docs\/definitions.md#calibration/g
s/[Ss]eed 003's floor table/the published floor table (docs\/definitions.md#floors)/g
s/[Ss]eed 003's table/the published floor table (docs\/definitions.md#floors)/g
s/[Ss]eed 003's/the calibration study's (docs\/methods.md#calibration-against-human-labels)/g
s/[Ss]eed 003 section/docs\/definitions.md#calibration, section/g
s/[Ss]eed 003/docs\/methods.md#calibration-against-human-labels/g
# --- the textbook chapter: cite the original sources by topic
s/\(seed 004, verbosity\)/(Dubois et al. 2024, length-controlled AlpacaEval)/g
s/\(seed 004, self-preference\)/(Panickssery et al. 2024)/g
s/Elo-scale ratings \(seed 004\)/Elo-scale ratings (Elo 1978)/g
s/\(seed 004, "Four biases and their countermeasures"\)/(Zheng et al. 2023, §3.3–3.4; docs\/methods.md#the-judges-spec-sheet)/g
s/\(seed 004; the arena's "style control", Li et al\. 2024\)/(Dubois et al. 2024; the arena's "style control", Li et al. 2024)/g
s/\(seed 004; module docstring\)/(Dubois et al. 2024; module docstring)/g
s/bootstrap over instructions \(seed 004\)/bootstrap over instructions (Efron \& Tibshirani 1993)/g
s/length difference \(seed 004\)/length difference (Dubois et al. 2024)/g
s/Elo points \(seed 004\)/Elo points (Panickssery et al. 2024)/g
s/, seed 004\)/, Zheng et al. 2023)/g
s/style control does \(seed 004\)/style control does (Dubois et al. 2024)/g
s/\(seed 004: a judge favours its own family\)/(Panickssery et al. 2024: a judge favours its own family)/g
s/[Ss]eed 004/Zheng et al. (2023)/g
