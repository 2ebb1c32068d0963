# agreement.py BINARY FILE...: the replay measure of issue 38 over sessions, from `report --format json`:
# predicted cache reads against the recorded ones, weighted by tokens, each session's first request
# left out (1 - sum |predicted - recorded| / sum recorded); requests off the main chain; negative
# "not in the transcript" gaps.
import json, subprocess, sys
binary, files = sys.argv[1], sys.argv[2:]
err = rec = 0
off = neg = n = 0
for f in files:
    out = subprocess.run([binary, "report", f, "--format", "json"], capture_output=True, text=True,
                         env={"LC_ALL": "C.UTF-8", "NO_COLOR": "1", "XDG_CONFIG_HOME": "/nonexistent"})
    if out.returncode:
        print("%s: exit %d: %s" % (f, out.returncode, out.stderr.strip()))
        continue
    seq = json.loads(out.stdout)["assembly_report"]["sequence"]
    for i, r in enumerate(seq):
        n += 1
        off += not r["main_chain"]
        neg += r.get("not_in_transcript", 0) < 0
        if i == 0 or "recorded" not in r or "predicted" not in r:
            continue
        err += abs(r["predicted"]["cache_read"] - r["recorded"]["cache_read"])
        rec += r["recorded"]["cache_read"]
print("requests %d, off the main chain %d, negative gaps %d" % (n, off, neg))
print("predicted cache reads vs recorded (weighted, first requests left out): %.1f%%" %
      (100 * (1 - err / rec) if rec else 100))
