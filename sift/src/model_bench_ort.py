# ONNX Runtime's side of `sift model bench` (sift/src/model_bench.rs runs it with python3 -c):
# the same sequences, the same model file, tokens per second by length, as JSON.
# argv: model cores batch seconds length...
import json, sys, time
import numpy as np
import onnxruntime as ort

model, cores, batch, span = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
lengths = [int(x) for x in sys.argv[5:]]


def sequence(length, seed):
    # The same ids as model_bench.rs's `sequence` (xorshift32 from the same seed).
    x = (0x9E3779B9 * (seed + 1)) & 0xFFFFFFFF
    ids = [101]
    while len(ids) < length - 1:
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        ids.append(2000 + x % 18000)
    return ids + [102]


def session(threads):
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    return ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])


def rate(s, ids):
    feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
    s.run(None, feed)
    calls, t0 = 0, time.time()
    while time.time() - t0 < span:
        s.run(None, feed)
        calls += 1
    return calls * ids.size / (time.time() - t0)


rows = []
for how, threads, n in [("one sequence, 1 core", 1, 1), (f"one sequence, {cores} cores (intra-op)", cores, 1), (f"batches of {batch}, {cores} cores (intra-op)", cores, batch)]:
    s = session(threads)
    per = [rate(s, np.array([sequence(l, i) for i in range(n)], dtype=np.int64)) for l in lengths]
    rows.append({"how": how, "tokens_per_s": per})
print(json.dumps(rows))
