#!/usr/bin/env python3
"""Usage: front_memory.py SPMDRUN. The front end's memory on large generated scripts.

Scripts are generated here, at test time, and each is run once, its peak RSS read from
wait4 (Note [One statement at a time] and Note [Nesting limits], compiler/ast/Parse.cpp):
 - just under 8 MiB of short statements (`x = x + 1`, 800,000 of them): runs and prints
   800000 within the time limit, in under 1 GB (it took 3.2 GB for 7 MB when ANTLR's
   parse tree of the whole program lived until its AST was built; 0.6 GB after);
 - one statement of 1,000,001 tokens (a list literal; each token of it costs the parser
   up to 1.1 KB): the "statement too long" error at once, exit 1, in under 400 MB.
"""
import os
import subprocess
import sys
import tempfile
import time

MAX_SCRIPT = 8 << 20  # kMaxScriptBytes, cli/Driver.h


def run(cmd, limit_s):
    """Runs cmd; returns (exit code, stdout, stderr, peak RSS in MB, wall seconds)."""
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err)
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - t0 > limit_s:
                p.kill()
                pid, status, usage = os.wait4(p.pid, 0)
                break
            time.sleep(0.05)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return (p.returncode, out.read().decode(errors="replace"),
                err.read().decode(errors="replace"), usage.ru_maxrss / 1024,
                time.monotonic() - t0)


def main():
    spmdrun = sys.argv[1]
    if os.environ.get("FRONT_MEMORY_SANITIZED"):
        # ./x sanitize: ASan's shadow memory and quarantine multiply the peak RSS, so the
        # bounds below say nothing there (CTest's SKIP_RETURN_CODE).
        print("SKIP: peak-memory bounds are for the plain build, not under ASan")
        sys.exit(77)
    fail = False
    with tempfile.TemporaryDirectory() as tmp:
        # 1. Short statements, filling the script limit.
        n = 800000
        path = os.path.join(tmp, "statements.spmd")
        text = "var x = 0\n" + "x = x + 1\n" * n + "print(x)\n"
        assert len(text) <= MAX_SCRIPT
        with open(path, "w") as f:
            f.write(text)
        rc, out, err, mb, secs = run([spmdrun, "--devices", "cpu:1", path], 240)
        print(f"{n} statements ({len(text)} bytes): exit {rc}, {mb:.0f} MB, {secs:.1f} s")
        if rc != 0 or out.strip() != str(n):
            print(f"FAIL: exit {rc}, want 0 and {n}: {out[:200]} {err[:400]}")
            fail = True
        if mb > 1000:
            print(f"FAIL: peak RSS {mb:.0f} MB, over 1000 MB")
            fail = True

        # 2. One statement over the limit of 1,000,000 tokens: 4 + 2 * 499,998 + 2 tokens; the
        # error is at the 1,000,001st, the last `1` (column 10 + 2 * 499,998).
        path = os.path.join(tmp, "long_statement.spmd")
        with open(path, "w") as f:
            f.write("let b = 2\nlet a = [" + "1," * 499998 + "1]\nprint(shape(a))\n")
        rc, out, err, mb, secs = run([spmdrun, "--devices", "cpu:1", path], 120)
        print(f"a statement of 1,000,001 tokens: exit {rc}, {mb:.0f} MB, {secs:.1f} s")
        want = "long_statement.spmd:2:1000006: error: statement too long (more than 1000000 tokens)"
        if rc != 1 or want not in err or "2:1: note: the statement starts here" not in err:
            print(f"FAIL: exit {rc}, want 1 and '{want}': {err[:400]}")
            fail = True
        if mb > 400:
            print(f"FAIL: peak RSS {mb:.0f} MB, over 400 MB")
            fail = True
    print("FAIL" if fail else "PASS")
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
