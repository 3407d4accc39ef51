#!/usr/bin/env python3
"""Golden-output driver.

    python3 scripts/golden/golden.py update [--engine real|mirror]
        Regenerate test/golden/expected/*.json. Default engine: real if
        scripts/golden/.venv exists (pinned vLLM + transformers), else mirror.
    python3 scripts/golden/golden.py check
        Render every case with the mirror (system Python + jinja2 only) into a
        temp dir and fail with a readable diff on any drift from the committed
        goldens (ok / prompt / error_type, plus stale template or case hashes).
    python3 scripts/golden/golden.py compare
        Mirror vs real libraries on every case (needs the venv).

Templates are read from $NODE_VLLM_CPP_TEMPLATES (default: <repo>/../shared/templates).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def cmd_update(engine: str | None) -> int:
    tdir = common.templates_dir()
    if not os.path.isdir(tdir):
        print(f"error: templates not found at {tdir}", file=sys.stderr)
        return 2
    if engine is None:
        engine = "real" if os.path.exists(common.VENV_PYTHON) else "mirror"
    if engine == "real":
        if not os.path.exists(common.VENV_PYTHON):
            print(f"error: no venv at {common.VENV_PYTHON}; run scripts/golden/setup", file=sys.stderr)
            return 2
        return subprocess.call([common.VENV_PYTHON, os.path.join(common.HERE, "generate_real.py"),
                                "--out", common.EXPECTED_DIR, "--templates-dir", tdir])
    import mirror  # noqa: PLC0415

    mirror.run(common.EXPECTED_DIR, tdir)
    return 0


def cmd_check() -> int:
    t0 = time.time()
    tdir = common.templates_dir()
    if not os.path.isdir(tdir):
        print(f"skipped: templates not found at {tdir}")
        return 0
    import compare  # noqa: PLC0415
    import mirror  # noqa: PLC0415

    problems = []
    expected = {}
    for fn in sorted(os.listdir(common.EXPECTED_DIR)) if os.path.isdir(common.EXPECTED_DIR) else []:
        if fn.endswith(".json"):
            with open(os.path.join(common.EXPECTED_DIR, fn), encoding="utf-8") as f:
                expected[fn] = json.load(f)
    templates = common.list_templates(tdir)
    want = {t[: -len(".jinja")] + ".json" for t in templates}
    for fn in sorted(want - set(expected)):
        problems.append(f"{fn}: no committed golden (run: python3 scripts/golden/golden.py update)")
    for fn in sorted(set(expected) - want):
        problems.append(f"{fn}: committed golden for a template that is not in {tdir}")

    cases = {cid: sha for cid, _c, sha in common.load_cases()}
    for fn, doc in sorted(expected.items()):
        if fn not in want:
            continue
        _text, sha = common.read_template(tdir, doc["template"])
        if sha != doc["template_sha256"]:
            problems.append(f"{fn}: template {doc['template']} changed since the goldens were made "
                            f"({doc['template_sha256'][:12]} -> {sha[:12]})")
        for cid in sorted(set(cases) - set(doc["cases"])):
            problems.append(f"{fn} {cid}: case has no golden (run update)")
        for cid in sorted(set(doc["cases"]) - set(cases)):
            problems.append(f"{fn} {cid}: golden for a case that no longer exists")
        for cid in sorted(set(cases) & set(doc["cases"])):
            if doc["cases"][cid]["case_sha256"] != cases[cid]:
                problems.append(f"{fn} {cid}: case file changed since the goldens were made (run update)")

    tmp = tempfile.mkdtemp(prefix="golden-check-")
    mirror.run(tmp, tdir, quiet=True)
    _per, diffs, _msgs = compare.compare_dirs(common.EXPECTED_DIR, tmp, "committed", "mirror",
                                              keys=("ok", "prompt", "error_type"))
    problems += [d for d in diffs if "only in" not in d]
    n_cases = len(cases) * len(templates)
    dt = time.time() - t0
    if problems:
        print("\n".join(problems))
        print(f"\ngolden check FAILED: {len(problems)} problem(s) over {n_cases} renders ({dt:.1f}s)")
        return 1
    print(f"golden check ok: {len(templates)} templates x {len(cases)} cases = {n_cases} renders ({dt:.1f}s)")
    return 0


def cmd_compare() -> int:
    import compare  # noqa: PLC0415

    return compare.main([])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    up = sub.add_parser("update", help="regenerate test/golden/expected")
    up.add_argument("--engine", choices=("real", "mirror"))
    sub.add_parser("check", help="mirror vs committed goldens (CI)")
    sub.add_parser("compare", help="mirror vs real libraries")
    a = ap.parse_args(argv)
    if a.cmd == "update":
        return cmd_update(a.engine)
    if a.cmd == "check":
        return cmd_check()
    return cmd_compare()


if __name__ == "__main__":
    sys.exit(main())
