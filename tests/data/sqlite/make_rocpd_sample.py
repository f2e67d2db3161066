#!/usr/bin/python3
"""Writes rocpd_doc_sample.db: a small database in rocprofv3's rocpd layout (schema_version 3), built from the
published rocprofiler-sdk table definitions (rocpd_tables.sql: UUID-suffixed tables, un-suffixed views), because no
real rocpd file is public. Our own data: one process (pid 4242, two threads), one GPU agent and one CPU agent,
three kernel symbols, six dispatches, two memory copies, HIP API regions (one per dispatch/copy, same correlation
id), two marker regions, and two PMC counters per dispatch. The views of rocpd_info_pmc and rocpd_pmc_event are
left out on purpose, so that a reader must also find UUID-suffixed tables by themselves.

Usage: /usr/bin/python3 make_rocpd_sample.py   (rewrites rocpd_doc_sample.db next to this script)
"""
import os
import sqlite3

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "rocpd_doc_sample.db")
U = "_0195d4e2_7c1a_7000_8000_0123456789ab"

TABLES = {
    "rocpd_metadata": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "tag" TEXT NOT NULL, "value" TEXT NOT NULL',
    "rocpd_string": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "guid" TEXT, "string" TEXT NOT NULL UNIQUE',
    "rocpd_info_node": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "guid" TEXT, "hash" BIGINT, "machine_id" TEXT, '
                       '"hostname" TEXT',
    "rocpd_info_process": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "guid" TEXT, "nid" INTEGER, "ppid" INTEGER, '
                          '"pid" INTEGER NOT NULL, "name" TEXT, "start" BIGINT, "end" BIGINT, "command" TEXT',
    "rocpd_info_thread": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "guid" TEXT, "nid" INTEGER, "ppid" INTEGER, '
                         '"pid" INTEGER NOT NULL, "tid" INTEGER NOT NULL, "name" TEXT',
    "rocpd_info_agent": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "guid" TEXT, "nid" INTEGER, "pid" INTEGER, '
                        '"type" TEXT, "absolute_index" INTEGER, "logical_index" INTEGER, "type_index" INTEGER, '
                        '"uuid" INTEGER, "name" TEXT, "generic_name" TEXT, "model_name" TEXT, "vendor_name" TEXT, '
                        '"product_name" TEXT, "extdata" JSONB',
    "rocpd_info_kernel_symbol": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "guid" TEXT, "nid" INTEGER, '
                                '"pid" INTEGER, "code_object_id" INTEGER, "kernel_name" TEXT, "display_name" TEXT, '
                                '"group_segment_size" INTEGER, "private_segment_size" INTEGER, "sgpr_count" INTEGER, '
                                '"arch_vgpr_count" INTEGER, "accum_vgpr_count" INTEGER',
    "rocpd_info_pmc": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "guid" TEXT, "nid" INTEGER, "pid" INTEGER, '
                      '"agent_id" INTEGER, "name" TEXT NOT NULL, "symbol" TEXT, "description" TEXT',
    "rocpd_event": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "guid" TEXT, "category_id" INTEGER, "stack_id" INTEGER, '
                   '"parent_stack_id" INTEGER, "correlation_id" INTEGER, "call_stack" JSONB, "line_info" JSONB, '
                   '"extdata" JSONB',
    "rocpd_pmc_event": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "guid" TEXT, "event_id" INTEGER, '
                       '"pmc_id" INTEGER NOT NULL, "value" REAL DEFAULT 0.0, "extdata" JSONB',
    "rocpd_region": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "guid" TEXT, "nid" INTEGER, "pid" INTEGER NOT NULL, '
                    '"tid" INTEGER NOT NULL, "start" BIGINT NOT NULL, "end" BIGINT NOT NULL, '
                    '"name_id" INTEGER NOT NULL, "event_id" INTEGER, "extdata" JSONB',
    "rocpd_kernel_dispatch": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "guid" TEXT, "nid" INTEGER, '
                             '"pid" INTEGER NOT NULL, "tid" INTEGER, "agent_id" INTEGER NOT NULL, '
                             '"kernel_id" INTEGER NOT NULL, "dispatch_id" INTEGER NOT NULL, '
                             '"queue_id" INTEGER NOT NULL, "stream_id" INTEGER NOT NULL, "start" BIGINT NOT NULL, '
                             '"end" BIGINT NOT NULL, "private_segment_size" INTEGER, "group_segment_size" INTEGER, '
                             '"workgroup_size_x" INTEGER, "workgroup_size_y" INTEGER, "workgroup_size_z" INTEGER, '
                             '"grid_size_x" INTEGER, "grid_size_y" INTEGER, "grid_size_z" INTEGER, '
                             '"region_name_id" INTEGER, "event_id" INTEGER, "extdata" JSONB',
    "rocpd_memory_copy": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "guid" TEXT, "nid" INTEGER, "pid" INTEGER NOT NULL, '
                         '"tid" INTEGER, "start" BIGINT NOT NULL, "end" BIGINT NOT NULL, "name_id" INTEGER NOT NULL, '
                         '"dst_agent_id" INTEGER, "dst_address" INTEGER, "src_agent_id" INTEGER, '
                         '"src_address" INTEGER, "size" INTEGER NOT NULL, "queue_id" INTEGER, "stream_id" INTEGER, '
                         '"region_name_id" INTEGER, "event_id" INTEGER, "extdata" JSONB',
}
NO_VIEW = {"rocpd_info_pmc", "rocpd_pmc_event"}


def main():
    if os.path.exists(OUT):
        os.remove(OUT)
    db = sqlite3.connect(OUT)
    db.execute("PRAGMA page_size = 1024")
    for name, cols in TABLES.items():
        db.execute(f'CREATE TABLE "{name}{U}" ({cols})')
        if name not in NO_VIEW:
            db.execute(f'CREATE VIEW "{name}" AS SELECT * FROM "{name}{U}"')
    ins = lambda t, **kv: db.execute(  # noqa: E731
        f'INSERT INTO "{t}{U}" ({", ".join(kv)}) VALUES ({", ".join("?" * len(kv))})', tuple(kv.values())).lastrowid
    ins("rocpd_metadata", tag="schema_version", value="3")
    strings = {}

    def s(text):
        if text not in strings:
            strings[text] = ins("rocpd_string", string=text)
        return strings[text]

    ins("rocpd_info_node", hash=1, machine_id="m0", hostname="node0")
    proc = ins("rocpd_info_process", nid=1, pid=4242, command="./saxpy --n 1024")
    t_main = ins("rocpd_info_thread", nid=1, pid=proc, tid=4242)
    t_aux = ins("rocpd_info_thread", nid=1, pid=proc, tid=4250)
    ins("rocpd_info_agent", nid=1, pid=proc, type="CPU", absolute_index=0, logical_index=0, type_index=0,
        name="AMD EPYC 9534", product_name="AMD EPYC 9534")
    gpu = ins("rocpd_info_agent", nid=1, pid=proc, type="GPU", absolute_index=1, logical_index=1, type_index=0,
              name="gfx942", model_name="MI300X", product_name="AMD Instinct MI300X")
    syms = [ins("rocpd_info_kernel_symbol", nid=1, pid=proc, code_object_id=1, kernel_name=n, display_name=n,
                group_segment_size=lds, arch_vgpr_count=v)
            for n, lds, v in (("saxpy_kernel(float, float const*, float*)", 0, 16),
                              ("reduce_kernel(float const*, float*)", 1024, 32),
                              ("fill_kernel(float*, float)", 0, 8))]
    pmcs = [ins("rocpd_info_pmc", nid=1, pid=proc, agent_id=gpu, name=n, symbol=n) for n in ("SQ_WAVES", "GRBM_COUNT")]
    hip = s("HIP_RUNTIME_API_EXT")
    marker = s("MARKER_CORE_API")
    t = 1_000_000_000
    corr = 0
    # Six dispatches, each launched by a hipLaunchKernel region with the same correlation id.
    for i in range(6):
        corr += 1
        ev_api = ins("rocpd_event", category_id=hip, correlation_id=corr)
        ins("rocpd_region", nid=1, pid=proc, tid=t_main, start=t, end=t + 4_000, name_id=s("hipLaunchKernel"),
            event_id=ev_api)
        ev_k = ins("rocpd_event", category_id=s("KERNEL_DISPATCH"), correlation_id=corr)
        start = t + 10_000
        dur = 5_000 + 1_000 * i
        ins("rocpd_kernel_dispatch", nid=1, pid=proc, tid=t_main, agent_id=gpu, kernel_id=syms[i % 3],
            dispatch_id=i + 1, queue_id=1, stream_id=0, start=start, end=start + dur, group_segment_size=0,
            workgroup_size_x=256, workgroup_size_y=1, workgroup_size_z=1, grid_size_x=1024 * (i + 1),
            grid_size_y=1, grid_size_z=1, event_id=ev_k)
        for j, p in enumerate(pmcs):
            ins("rocpd_pmc_event", event_id=ev_k, pmc_id=p, value=float(100 * (i + 1) + j))
        t += 50_000
    # Two copies (host to device, device to host), each with its hipMemcpy region.
    for name, size, dst, src in (("MEMORY_COPY_HOST_TO_DEVICE", 4096, gpu, 1), ("MEMORY_COPY_DEVICE_TO_HOST", 8192, 1, gpu)):
        corr += 1
        ev_api = ins("rocpd_event", category_id=hip, correlation_id=corr)
        ins("rocpd_region", nid=1, pid=proc, tid=t_aux, start=t, end=t + 20_000, name_id=s("hipMemcpy"),
            event_id=ev_api)
        ev_c = ins("rocpd_event", category_id=s("MEMORY_COPY"), correlation_id=corr)
        ins("rocpd_memory_copy", nid=1, pid=proc, tid=t_aux, start=t + 2_000, end=t + 12_000, name_id=s(name),
            dst_agent_id=dst, src_agent_id=src, size=size, queue_id=2, stream_id=0, event_id=ev_c)
        t += 50_000
    # Two roctx ranges around everything.
    for name in ("setup", "compute"):
        ev = ins("rocpd_event", category_id=marker, correlation_id=0)
        ins("rocpd_region", nid=1, pid=proc, tid=t_main, start=999_000_000, end=t, name_id=s(name), event_id=ev)
    db.commit()
    db.execute("VACUUM")
    db.close()


main()
