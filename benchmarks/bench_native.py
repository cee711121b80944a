"""Native tool files at scale: ``python -m benchmarks.bench_native [--records 300000] [--repeats 3]``.

Writes, in a temporary folder, a synthetic Arena-Hard-Auto judgment JSONL (``--records`` lines,
two games each, with the judge input and reply as text), an AlpacaEval ``annotations.json``
(``--records`` annotations as one JSON array, with the judge's logprobs in ``raw_completion``) and
a Chatbot Arena battle table whose conversations are stored as JSON text (``--records`` lines of
JSON Lines, one voter id per battle, pooled as one judge), then loads each with
``VerdictStore().load_file`` in a fresh process (so its peak resident memory is its own) and
prints the median time and peak RSS over ``--repeats`` runs. The files are streamed
(``evalcore.ingest.native``): DuckDB reads the records in batches and the importer converts one
batch at a time (for the battle table, after one SQL pass that finds whether the voters are
pooled). ``--whole`` also measures the whole-file conversion the streaming replaced (the file read
into Python and the importer run on all of it, as before), for comparison.

Not a test: nothing is asserted (CONTRIBUTING.md).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, resource, sys, time
from evalcore import importers
from evalcore.ingest import canonical, native
from evalcore.ingest.text import build_text
from evalcore.ingest.files import read_raw
from evalcore.store.store import VerdictStore
path, how = sys.argv[1], sys.argv[2]

def whole(cur, src, names, *, origin):  # the whole file in Python, as before streaming
    raw, _ = read_raw(src.path, name=src.file)
    frame, label = importers.convert_native(raw, file=src.file, path=origin)
    del raw
    cur.register("vl_incoming", frame)
    cur.execute("CREATE OR REPLACE TEMP TABLE vl_frame AS SELECT * FROM vl_incoming")
    cur.unregister("vl_incoming")
    build_text(cur, native._frame_exprs(frame.columns), source="vl_frame")
    return label

if how == "whole":
    canonical.convert_native = whole
t = time.perf_counter()
store = VerdictStore()
table = store.load_file(path)
out = {"load": time.perf_counter() - t, "rows": table.report.rows}
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print("RESULT " + json.dumps(out))
"""

_WORDS = "the answer explains each step clearly with an example and a short summary at the end".split()


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def write_arena_hard(path: Path, records: int, *, seed: int = 0) -> None:
    """``records`` lines of ``model_judgment/<judge>/<model>.jsonl`` (v0.1 layout)."""
    rng = random.Random(seed)
    scores = ["A>>B", "A>B", "A=B", "B>A", "B>>A", None]
    with open(path, "w", encoding="utf-8") as out:
        for k in range(records):
            question, answer_a, answer_b = _text(rng, 20), _text(rng, 60), _text(rng, 60)
            games = []
            for first, second in ((answer_a, answer_b), (answer_b, answer_a)):
                prompt = (
                    f"<|User Prompt|>\n{question}\n\n<|The Start of Assistant A's Answer|>\n{first}\n"
                    f"<|The End of Assistant A's Answer|>\n\n<|The Start of Assistant B's Answer|>\n"
                    f"{second}\n<|The End of Assistant B's Answer|>"
                )
                score = rng.choice(scores)
                games.append(
                    {"user_prompt": prompt, "judgment": _text(rng, 80) + f" [[{score}]]", "score": score}
                )
            record = {
                "uid": f"{k:032x}",
                "category": "arena-hard-v0.1",
                "judge": "gpt-4-1106-preview",
                "model": f"model-{k % 40}",
                "baseline": "gpt-4-0314",
                "games": games,
            }
            out.write(json.dumps(record) + "\n")


def write_alpaca_eval(path: Path, records: int, *, seed: int = 0) -> None:
    """``records`` annotations as AlpacaEval writes them (one indented JSON array)."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as out:
        out.write("[\n")
        for k in range(records):
            first, second = -rng.expovariate(1.0), -rng.expovariate(1.0)
            p_first = 1.0 / (1.0 + math.exp(second - first))
            swapped = rng.random() < 0.5
            top = [{"token": "m", "logprob": first}, {"token": "M", "logprob": second}]
            record = {
                "instruction": f"instruction {k}: " + _text(rng, 20),
                "output_1": _text(rng, 60),
                "generator_1": "gpt4_1106_preview",
                "dataset": "helpful_base",
                "output_2": _text(rng, 60),
                "generator_2": f"model-{k % 40}",
                "annotator": "weighted_alpaca_eval_gpt4_turbo",
                "preference": 1.0 + p_first if swapped else 2.0 - p_first,
                "raw_completion": {"logprobs": {"content": [{"top_logprobs": top}]}, "text": "m"},
                "price_per_example": 0.01,
                "time_per_example": 1.2,
            }
            out.write(("" if k == 0 else ",\n") + json.dumps(record, indent=2))
        out.write("\n]\n")


def write_arena_text(path: Path, records: int, *, seed: int = 0) -> None:
    """``records`` arena battles as JSON Lines, each conversation stored as JSON text (as a table
    export writes it), one voter id per battle."""
    rng = random.Random(seed)
    winners = ["model_a", "model_b", "tie", "tie (bothbad)"]
    with open(path, "w", encoding="utf-8") as out:
        for k in range(records):
            question = _text(rng, 20)
            a, b = rng.sample(range(60), 2)
            record = {
                "question_id": f"{k:032x}",
                "model_a": f"model-{a}",
                "model_b": f"model-{b}",
                "winner": rng.choice(winners),
                "judge": f"arena_user_{rng.randrange(records // 3 + 1)}",
                "conversation_a": json.dumps(
                    [{"role": "user", "content": question}, {"role": "assistant", "content": _text(rng, 60)}]
                ),
                "conversation_b": json.dumps(
                    [{"role": "user", "content": question}, {"role": "assistant", "content": _text(rng, 60)}]
                ),
                "language": "English",
            }
            out.write(json.dumps(record) + "\n")


def run(path: Path, how: str) -> dict:
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), how], capture_output=True, text=True, check=False, cwd=root
    )
    found = re.search(r"RESULT (\{.*\})", done.stdout)
    if done.returncode or found is None:
        raise SystemExit(done.stdout[-2000:] + done.stderr[-2000:])
    return json.loads(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=300_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--whole", action="store_true", help="also the whole-file conversion, as before")
    parser.add_argument("--only", help="measure only the files whose name contains this text")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-native-") as work:
        folder = Path(work) / "model_judgment" / "gpt-4-1106-preview"
        folder.mkdir(parents=True)
        files = {
            "Arena-Hard-Auto JSONL": (folder / "model-x.jsonl", write_arena_hard),
            "AlpacaEval annotations.json": (Path(work) / "annotations.json", write_alpaca_eval),
            "Arena battles, conversations as text": (Path(work) / "battles.jsonl", write_arena_text),
        }
        for name, (path, write) in files.items():
            if args.only and args.only.lower() not in name.lower():
                continue
            write(path, args.records)
            for how in ("streamed", "whole") if args.whole else ("streamed",):
                runs = [run(path, how) for _ in range(args.repeats)]
                load = statistics.median(r["load"] for r in runs)
                peak = statistics.median(r["peak_mb"] for r in runs)
                print(
                    f"{name}, {how}: {args.records:,} records ({path.stat().st_size / 1e6:,.0f} MB, "
                    f"{runs[0]['rows']:,} rows), median of {args.repeats}: load {load:.1f} s, "
                    f"peak RSS {peak:,.0f} MB",
                    flush=True,
                )


if __name__ == "__main__":
    main()
