#!/usr/bin/env python3
"""Check that the mirror agrees with the real libraries on every case.

    python3 scripts/golden/compare.py                 # runs both generators into temp dirs
    python3 scripts/golden/compare.py --real DIR      # compare against an existing real output
    python3 scripts/golden/compare.py --real DIR --mirror DIR

Compared per (template, case): ok, prompt, error_type, warnings. Differing
error messages are listed separately (informational: pydantic's wording is not
reproduced by the mirror). Exit status 1 on any disagreement.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

KEYS = ("ok", "prompt", "error_type", "warnings")


def _load_dir(d: str) -> dict[str, dict]:
    out = {}
    for fn in sorted(os.listdir(d)):
        if fn.endswith(".json"):
            with open(os.path.join(d, fn), encoding="utf-8") as f:
                out[fn] = json.load(f)
    return out


def short_diff(a: str, b: str, label_a: str, label_b: str, limit: int = 40) -> str:
    lines = list(difflib.unified_diff(a.splitlines(keepends=True), b.splitlines(keepends=True),
                                      label_a, label_b, n=1))
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more diff lines)\n"]
    return "".join(lines)


def compare_dirs(left: str, right: str, lname: str, rname: str, keys=KEYS, verbose=True):
    L, R = _load_dir(left), _load_dir(right)
    per_template = {}
    problems = []
    message_diffs = []
    for fn in sorted(set(L) | set(R)):
        if fn not in L or fn not in R:
            problems.append(f"{fn}: only in {lname if fn in L else rname}")
            continue
        lc, rc = L[fn]["cases"], R[fn]["cases"]
        agree = total = 0
        for cid in sorted(set(lc) | set(rc)):
            total += 1
            if cid not in lc or cid not in rc:
                problems.append(f"{fn} {cid}: only in {lname if cid in lc else rname}")
                continue
            a, b = lc[cid], rc[cid]
            bad = [k for k in keys if a.get(k) != b.get(k)]
            if not bad:
                agree += 1
                if not a["ok"] and a.get("error_message") != b.get("error_message"):
                    message_diffs.append((fn, cid, a.get("error_message"), b.get("error_message")))
                continue
            msg = f"{fn} {cid}: differs in {', '.join(bad)}"
            if verbose:
                if a.get("ok") and b.get("ok") and "prompt" in bad:
                    msg += "\n" + short_diff(a["prompt"], b["prompt"], lname, rname)
                else:
                    def brief(x):
                        if x.get("ok"):
                            return "ok " + json.dumps(x["prompt"][:300], ensure_ascii=False)
                        return f"{x.get('error_type')}: {str(x.get('error_message'))[:300]}"
                    msg += f"\n  {lname}: {brief(a)}\n  {rname}: {brief(b)}"
                    if "warnings" in bad:
                        msg += f"\n  warnings {lname}: {a.get('warnings')}\n  warnings {rname}: {b.get('warnings')}"
            problems.append(msg)
        per_template[fn] = (agree, total)
    return per_template, problems, message_diffs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="mirror vs real-library goldens")
    ap.add_argument("--real")
    ap.add_argument("--mirror")
    ap.add_argument("--templates-dir", default=common.templates_dir())
    ap.add_argument("--show-messages", action="store_true", help="list differing error messages")
    a = ap.parse_args(argv)
    if not os.path.isdir(a.templates_dir):
        print(f"skipped: templates not found at {a.templates_dir}")
        return 0
    tmp = tempfile.mkdtemp(prefix="golden-compare-")
    real = a.real
    if real is None:
        if not os.path.exists(common.VENV_PYTHON):
            print(f"no venv at {common.VENV_PYTHON}: run scripts/golden/setup first", file=sys.stderr)
            return 2
        real = os.path.join(tmp, "real")
        subprocess.run([common.VENV_PYTHON, os.path.join(common.HERE, "generate_real.py"), "--out", real,
                        "--templates-dir", a.templates_dir], check=True, stdout=subprocess.DEVNULL)
    mirror = a.mirror
    if mirror is None:
        import mirror as mirror_mod  # noqa: PLC0415

        mirror = os.path.join(tmp, "mirror")
        mirror_mod.run(mirror, a.templates_dir, quiet=True)

    per_template, problems, message_diffs = compare_dirs(mirror, real, "mirror", "real")
    for p in problems:
        print(p)
    total_agree = total = 0
    print("\nagreement (mirror vs real) per template:")
    for fn, (ag, tot) in per_template.items():
        total_agree += ag
        total += tot
        print(f"  {fn[:-5]:40s} {ag}/{tot}")
    print(f"  {'TOTAL':40s} {total_agree}/{total}")
    print(f"error cases with the same error_type but a different message: {len(message_diffs)}")
    if a.show_messages:
        for fn, cid, m1, m2 in message_diffs:
            print(f"  {fn} {cid}\n    mirror: {m1}\n    real:   {m2}")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
