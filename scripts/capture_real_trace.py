#!/usr/bin/env python3
"""Capture real PyTorch profiler traces of CUDA-graph replay on one GPU.

Not part of the build or the tests: this is how the fixtures under
fixtures/real/ were made (see fixtures/real/README.md). It needs PyTorch with
CUDA, and runs two processes ("PP ranks" 0 and 1) on the same GPU:

- gloo is the default process group, so each trace carries distributedInfo
  with its rank and a `mesh_pp` group (section 10 of the spec reads it);
- each stage's forward and backward for every microbatch is its own captured
  CUDA graph, replayed on its own stream, under record_function("PP:<s>F<mb>")
  style regions, the way a CUDA-graph pipeline schedule runs;
- SEND/RECV regions move the activation through pinned host memory (device
  to host copy, gloo send/recv, host to device copy), since two ranks on one
  GPU cannot share an NCCL communicator;
- a one-rank NCCL group per process gives real NCCL all-gather
  (PP:<s>UNSHARD), reduce-scatter and all-reduce work, outside the graphs.

Usage: capture_real_trace.py OUTDIR   (writes rank0_trace.json, rank1_trace.json)
CAPTURE_NO_NCCL=1 leaves the NCCL work out; CAPTURE_STEPS (3) and
CAPTURE_MICROBATCHES (4) size the trace, CAPTURE_TIMEOUT (150 s) bounds the run;
CAPTURE_EXTRAS=1 turns on every optional profiler record (shapes, memory, stacks,
flops, modules); CAPTURE_SYNC_EVENTS=1 records CUDA synchronisation (`cuda_sync`
events: stream syncs and waits on their stream; device-wide context and event
syncs, which PyTorch 2.11 writes on tid 1 with args.stream -1).
       capture_real_trace.py --compiled OUTDIR   (writes compiled_trace.json: one
process, torch.compile(mode="reduce-overhead") instead of hand-captured graphs)
"""

import os
import socket
import subprocess
import sys
import time
import traceback

MICROBATCHES = int(os.environ.get("CAPTURE_MICROBATCHES", "4"))
WARMUP_STEPS = 2
PROFILED_STEPS = int(os.environ.get("CAPTURE_STEPS", "3"))
HIDDEN = 1024
TOKENS = 512


def log(rank, *parts):
    print(f"[rank {rank}]", *parts, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_stage(torch, seed):
    gen = torch.Generator(device="cuda").manual_seed(seed)
    return [
        torch.randn(HIDDEN, HIDDEN, device="cuda", dtype=torch.bfloat16, generator=gen) * 0.02
        for _ in range(3)
    ]


def forward_body(torch, weights, x, side):
    """Main branch on the capture stream, a second branch on `side`."""
    main = torch.cuda.current_stream()
    side.wait_stream(main)
    h = x
    for w in weights[:2]:
        h = torch.nn.functional.gelu(h @ w)
    with torch.cuda.stream(side):
        gate = torch.sigmoid(x @ weights[2])
    main.wait_stream(side)
    return torch.layer_norm(h * gate, (HIDDEN,))


def backward_body(torch, weights, grad):
    g = grad
    for w in reversed(weights):
        g = (g @ w.t()) * 0.5
    wgrad = grad.t() @ g
    return g, wgrad


def capture(torch, fn):
    graph = torch.cuda.CUDAGraph()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        fn()  # warm up kernels and allocator outside the capture
    torch.cuda.current_stream().wait_stream(stream)
    with torch.cuda.graph(graph, stream=stream):
        out = fn()
    return graph, out


def profiler_extras():
    """CAPTURE_EXTRAS=1: every optional kind of event the profiler can add;
    CAPTURE_SYNC_EVENTS=1: CUDA synchronisation events (an experimental option)."""
    options = {}
    if os.environ.get("CAPTURE_EXTRAS") == "1":
        options.update(
            record_shapes=True, profile_memory=True, with_stack=True, with_flops=True,
            with_modules=True,
        )
    if os.environ.get("CAPTURE_SYNC_EVENTS") == "1":
        from torch._C._profiler import _ExperimentalConfig

        options["experimental_config"] = _ExperimentalConfig(enable_cuda_sync_events=True)
    return options


def compiled(outdir):
    """One process, no process group: a model under torch.compile's
    "reduce-overhead" mode (CUDA graph trees) instead of hand-captured graphs."""
    import torch
    from torch.profiler import ProfilerActivity, profile, record_function

    torch.cuda.set_device(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.GELU(), torch.nn.Linear(HIDDEN, HIDDEN)
    ).cuda()
    step = torch.compile(model, mode="reduce-overhead")
    batches = [torch.randn(TOKENS, HIDDEN, device="cuda") for _ in range(MICROBATCHES)]
    for _ in range(WARMUP_STEPS + 2):  # compile, record the graphs, then replay
        for x in batches:
            step(x).sum().item()
    with profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], **profiler_extras()
    ) as prof:
        for i in range(PROFILED_STEPS):
            with record_function(f"ProfilerStep#{i}"):
                for mb, x in enumerate(batches):
                    with record_function(f"PP:0F{mb}"):
                        y = step(x)
                    with record_function(f"PP:0SEND_F{mb}"):
                        y.to("cpu", non_blocking=True)
            torch.cuda.synchronize()
    path = os.path.join(outdir, "compiled_trace.json")
    prof.export_chrome_trace(path)
    log(0, "wrote", path, os.path.getsize(path), "bytes")


def worker(rank, world, port, outdir):
    import torch
    import torch.distributed as dist
    from torch.profiler import ProfilerActivity, profile, record_function

    torch.cuda.set_device(0)
    dist.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world
    )
    try:
        pp_group = dist.new_group(list(range(world)), group_desc="mesh_pp")
    except TypeError:
        pp_group = dist.new_group(list(range(world)))
    nccl = None
    if os.environ.get("CAPTURE_NO_NCCL") != "1":
        try:
            one_rank_groups = [dist.new_group([r], backend="nccl") for r in range(world)]
            nccl = one_rank_groups[rank]
            probe = torch.ones(4, device="cuda")
            dist.all_reduce(probe, group=nccl)
            torch.cuda.synchronize()
        except Exception:
            log(rank, "no NCCL group:", traceback.format_exc(limit=2))
            nccl = None

    stage = rank
    last_stage = stage == world - 1
    weights = make_stage(torch, 1234 + stage)
    shard = torch.randn(HIDDEN * HIDDEN // 4, device="cuda", dtype=torch.bfloat16)
    gathered = torch.empty(HIDDEN * HIDDEN // 4, device="cuda", dtype=torch.bfloat16)
    grads = torch.randn(HIDDEN * HIDDEN // 4, device="cuda", dtype=torch.bfloat16)
    grad_shard = torch.empty_like(grads)
    loss = torch.zeros(1, device="cuda")
    host_act = torch.empty(TOKENS, HIDDEN, dtype=torch.bfloat16, pin_memory=True)

    # One static input/output per microbatch and one graph per (op, microbatch).
    def activation():
        return torch.randn(TOKENS, HIDDEN, device="cuda", dtype=torch.bfloat16)

    inputs = [activation() for _ in range(MICROBATCHES)]
    grad_in = [activation() for _ in range(MICROBATCHES)]
    side = torch.cuda.Stream()
    fwd, bwd = [], []
    for mb in range(MICROBATCHES):
        fwd.append(capture(torch, lambda mb=mb: forward_body(torch, weights, inputs[mb], side)))
        bwd.append(capture(torch, lambda mb=mb: backward_body(torch, weights, grad_in[mb])))
    replay_streams = [torch.cuda.Stream() for _ in range(2 * MICROBATCHES)]
    torch.cuda.synchronize()

    def replay(graph, stream):
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            graph.replay()
        torch.cuda.current_stream().wait_stream(stream)

    def send(tag, src):
        with record_function(tag):
            host_act.copy_(src, non_blocking=True)
            torch.cuda.current_stream().synchronize()
            dist.send(host_act, dst=1 - rank, group=pp_group)

    def recv(tag, dst):
        with record_function(tag):
            dist.recv(host_act, src=1 - rank, group=pp_group)
            dst.copy_(host_act, non_blocking=True)

    def step():
        if nccl is not None:
            with record_function(f"PP:{stage}UNSHARD"):
                dist.all_gather_into_tensor(gathered, shard, group=nccl)
        for mb in range(MICROBATCHES):
            if stage > 0:
                recv(f"PP:{stage}RECV_F{mb}", inputs[mb])
            with record_function(f"PP:{stage}F{mb}"):
                replay(fwd[mb][0], replay_streams[mb])
            if not last_stage:
                send(f"PP:{stage}SEND_F{mb}", fwd[mb][1])
        for mb in range(MICROBATCHES):
            if not last_stage:
                recv(f"PP:{stage}RECV_B{mb}", grad_in[mb])
            with record_function(f"PP:{stage}B{mb}"):
                replay(bwd[mb][0], replay_streams[MICROBATCHES + mb])
            if stage > 0:
                send(f"PP:{stage}SEND_B{mb}", bwd[mb][1][0])
        if nccl is not None:
            with record_function("optimizer"):
                dist.reduce_scatter_tensor(grad_shard, grads, group=nccl)
                loss.fill_(1.0)
                dist.all_reduce(loss, group=nccl)
        torch.cuda.synchronize()

    for _ in range(WARMUP_STEPS):
        step()
    dist.barrier(group=pp_group)
    with profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], **profiler_extras()
    ) as prof:
        for i in range(PROFILED_STEPS):
            with record_function(f"ProfilerStep#{i}"):
                step()
    path = os.path.join(outdir, f"rank{rank}_trace.json")
    prof.export_chrome_trace(path)
    log(rank, "wrote", path, os.path.getsize(path), "bytes")
    dist.barrier(group=pp_group)
    dist.destroy_process_group()


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--worker":
        worker(int(sys.argv[2]), 2, int(sys.argv[3]), sys.argv[4])
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "--compiled":
        os.makedirs(sys.argv[2], exist_ok=True)
        compiled(sys.argv[2])
        return 0
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    port = free_port()
    budget_s = float(os.environ.get("CAPTURE_TIMEOUT", "150"))
    start = time.time()
    procs = [
        subprocess.Popen([sys.executable, __file__, "--worker", str(r), str(port), outdir])
        for r in range(2)
    ]
    status = 0
    for p in procs:
        try:
            status |= p.wait(timeout=max(1.0, budget_s - (time.time() - start)))
        except subprocess.TimeoutExpired:
            p.kill()
            status = 1
    print(f"capture finished in {time.time() - start:.1f} s, status {status}", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
