#!/usr/bin/env python3
"""Writes the bad-input suite next to this script (python3 make_suite.py). Each case is a small Kineto trace
gone wrong in one way; README.md says what each exercises and what Strobe must answer. Cases that cannot be
committed (10 MB string, symlink loop, FIFO, directory named *.json) are made by the test at run time."""
import gzip, json, os, shutil

HERE = os.path.dirname(os.path.abspath(__file__))

HEAD = ('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "GPU 0", "totalGlobalMem": 1024}], '
        '"distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1}, "traceEvents": [\n')
EVENTS = [
    '{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100.000, "dur": 50.000, "args": {"External id": 7}}',
    '{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110.000, "dur": 5.000, "args": {"External id": 7, "correlation": 42}}',
    '{"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 120.000, "dur": 30.000, "args": {"External id": 7, "correlation": 42, "device": 0, "stream": 7, "grid": [1, 1, 1], "block": [128, 1, 1]}}',
    '{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 160.000, "dur": 4.000, "args": {"correlation": 43, "device": 0, "stream": 7, "bytes": 1024}}',
    '{"ph": "s", "id": 42, "pid": 1, "tid": 1, "ts": 110.000, "cat": "ac2g", "name": "ac2g"}',
    '{"ph": "f", "id": 42, "pid": 0, "tid": 7, "ts": 120.000, "cat": "ac2g", "name": "ac2g", "bp": "e"}',
]
TAIL = '\n]}\n'


def trace(events=EVENTS, head=HEAD, tail=TAIL):
    return head + ',\n'.join(events) + tail


def write(name, text):
    data = text if isinstance(text, bytes) else text.encode('utf-8', 'surrogatepass')
    with open(os.path.join(HERE, name), 'wb') as f:
        f.write(data)


def replace(i, old, new):
    ev = list(EVENTS)
    assert old in ev[i], (old, ev[i])
    ev[i] = ev[i].replace(old, new, 1)
    return trace(ev)


full = trace()
# --- truncation at every kind of boundary (a job that crashed while writing)
k = full.index('"ts": 120.000')
write('trunc_in_object.json', full[:k])                                    # after a key/value, inside event 2
k = full.index('gemm_kernel') + 4
write('trunc_in_string.json', full[:k])                                    # inside "gemm_kernel"
k = full.index('120.000') + 4
write('trunc_in_number.json', full[:k])                                    # inside 120.000
esc = trace([EVENTS[0], EVENTS[1].replace('cudaLaunchKernel', 'cuda\\"Launch\\"Kernel')] + EVENTS[2:])
k = esc.index('cuda\\"') + 5
write('trunc_in_escape.json', esc[:k])                                     # right after the backslash
k = full.index(EVENTS[3]) - 2
write('trunc_after_comma.json', full[:k])                                  # ends with "},"  (events 0-2 complete)
write('trunc_in_header.json', HEAD[:40])                                   # before traceEvents
arr = '[\n' + ',\n'.join(EVENTS) + ',\n'
write('array_form_unclosed.json', arr)                                     # legal Chrome form: no closing ]
# --- encoding
write('invalid_utf8_name.json', replace(0, 'aten::mm', 'aten::\udcff\udcfemm'))  # bytes FF FE in a name
write('invalid_utf8_key.json', replace(0, '"tid"', '"t\udcc0d"'))          # overlong C0 in a key
write('bom_utf8.json', b'\xef\xbb\xbf' + full.encode())
write('bom_utf16le.json', b'\xff\xfe' + full.encode('utf-16-le'))
write('lone_surrogate_escape.json', replace(0, 'aten::mm', 'aten::\\ud800mm'))
write('nul_byte_inside.json', replace(0, 'aten::mm', 'aten::\x00mm'))
# --- numbers
write('nan_ts.json', replace(0, '"ts": 100.000', '"ts": NaN'))
write('infinity_dur.json', replace(0, '"dur": 50.000', '"dur": Infinity'))
write('ts_1e400.json', replace(0, '"ts": 100.000', '"ts": 1e400'))
write('ts_2pow70.json', replace(0, '"ts": 100.000', '"ts": %d' % (2 ** 70)))
write('dur_negative_huge.json', replace(0, '"dur": 50.000', '"dur": -1e300'))
write('pid_2pow70.json', replace(0, '"pid": 1', '"pid": %d' % (2 ** 70)))
write('correlation_2pow70.json', replace(2, '"correlation": 42', '"correlation": %d' % (2 ** 70)))
write('correlation_negative.json', replace(2, '"correlation": 42', '"correlation": -42'))
write('rank_2pow40.json', trace(head=HEAD.replace('"rank": 0', '"rank": %d' % (2 ** 40))))
# --- nesting and duplicates
deep = '[' * 10000 + ']' * 10000
write('deep_args_10k.json', replace(0, '"args": {"External id": 7}', '"args": {"External id": 7, "deep": %s}' % deep))
deepo = '{"a": ' * 10000 + '1' + '}' * 10000
write('deep_args_objects_10k.json', replace(0, '"args": {"External id": 7}', '"args": %s' % deepo))
write('duplicate_key_ts.json', replace(0, '"ts": 100.000', '"ts": 100.000, "ts": 900.000'))
write('duplicate_trace_events.json', HEAD + ',\n'.join(EVENTS) + '],\n"traceEvents": [' + EVENTS[0] + TAIL)
# --- wrong types, one per key Strobe reads
wrong = {
    'ph': (0, '"ph": "X"', '"ph": 88'),
    'cat': (0, '"cat": "cpu_op"', '"cat": 5'),
    'name': (0, '"name": "aten::mm"', '"name": {"x": 1}'),
    'pid': (0, '"pid": 1', '"pid": [1]'),
    'tid': (0, '"tid": 1', '"tid": {"t": 1}'),
    'ts': (0, '"ts": 100.000', '"ts": "abc"'),
    'dur': (0, '"dur": 50.000', '"dur": true'),
    'id': (4, '"id": 42', '"id": {"i": 42}'),
    'args': (0, '"args": {"External id": 7}', '"args": [7]'),
    'external_id': (0, '"External id": 7', '"External id": "seven"'),
    'correlation': (1, '"correlation": 42', '"correlation": [42]'),
    'device': (2, '"device": 0', '"device": "zero"'),
    'stream': (2, '"stream": 7', '"stream": {"s": 7}'),
    'grid': (2, '"grid": [1, 1, 1]', '"grid": "1,1,1"'),
    'block': (2, '"block": [128, 1, 1]', '"block": 128'),
    'bytes': (3, '"bytes": 1024', '"bytes": "lots"'),
}
for key, (i, old, new) in wrong.items():
    write('wrong_type_%s.json' % key, replace(i, old, new))
write('wrong_type_deviceProperties.json', trace(head=HEAD.replace(
    '"deviceProperties": [{"id": 0, "name": "GPU 0", "totalGlobalMem": 1024}]', '"deviceProperties": "none"')))
write('wrong_type_rank.json', trace(head=HEAD.replace('"rank": 0', '"rank": "zero"')))
write('wrong_type_world_size.json', trace(head=HEAD.replace('"world_size": 1', '"world_size": [1]')))
write('wrong_type_pg_config.json', trace(head=HEAD.replace('"world_size": 1', '"world_size": 1, "pg_config": 17')))
write('wrong_type_schemaVersion.json', trace(head=HEAD.replace('"schemaVersion": 1', '"schemaVersion": "one"')))
write('wrong_type_traceEvents_string.json', HEAD.replace('"traceEvents": [\n', '"traceEvents": "none"}\n'))
write('wrong_type_traceEvents_null.json', HEAD.replace('"traceEvents": [\n', '"traceEvents": null}\n'))
# --- ids and counts written as strings holding integers (some tools quote them): the legitimate form, accepted
quoted = [EVENTS[0].replace('"External id": 7', '"External id": "7"'),
          EVENTS[1].replace('"correlation": 42', '"correlation": "42"'),
          EVENTS[2].replace('"device": 0', '"device": "0"').replace('"stream": 7', '"stream": "7"'),
          EVENTS[3].replace('"bytes": 1024', '"bytes": "0x400"'),
          EVENTS[4].replace('"id": 42', '"id": "42"'),
          EVENTS[5]]
write('ids_as_strings.json', trace(quoted))
write('event_not_object.json', trace(EVENTS[:2] + ['17', '"text"'] + EVENTS[2:]))
# --- semantics: order, durations, clocks, flows, links
write('events_out_of_order.json', trace(list(reversed(EVENTS))))
write('negative_dur.json', replace(0, '"dur": 50.000', '"dur": -50.000'))
write('zero_dur.json', replace(2, '"dur": 30.000', '"dur": 0'))
write('clock_jump.json', trace(EVENTS + [
    '{"ph": "X", "cat": "cpu_op", "name": "after_jump", "pid": 1, "tid": 1, "ts": 1000000000100.000, "dur": 1.000}',
    '{"ph": "X", "cat": "cpu_op", "name": "before_jump", "pid": 1, "tid": 1, "ts": 200.000, "dur": 1.000}']))
write('flow_without_end.json', trace(EVENTS[:5] + [EVENTS[4].replace('"id": 42', '"id": 99')]))
write('flow_without_start.json', trace(EVENTS[:4] + [EVENTS[5].replace('"id": 42', '"id": 77')]))
write('correlation_nowhere.json', replace(2, '"correlation": 42', '"correlation": 999'))
write('no_events.json', HEAD + TAIL)
write('trailing_text.json', full + 'garbage after the end\n')
# --- two files claiming the same rank (a run directory)
os.makedirs(os.path.join(HERE, 'same_rank'), exist_ok=True)
write('same_rank/rank0_a.json', full)
write('same_rank/rank0_b.json', full)
# --- compression and files
with open(os.path.join(HERE, 'gzip_trailing_garbage.json.gz'), 'wb') as f:
    f.write(gzip.compress(full.encode(), mtime=0) + b'GARBAGE!GARBAGE!')
with open(os.path.join(HERE, 'gzip_empty.json.gz'), 'wb') as f:
    f.write(gzip.compress(b'', mtime=0))
gz = gzip.compress(full.encode(), mtime=0)
with open(os.path.join(HERE, 'gzip_truncated.json.gz'), 'wb') as f:
    f.write(gz[:len(gz) // 2])
with open(os.path.join(HERE, 'gzip_bad_crc.json.gz'), 'wb') as f:
    f.write(gz[:-8] + bytes([gz[-8] ^ 0xFF]) + gz[-7:])
with open(os.path.join(HERE, 'plain_named_gz.json.gz'), 'wb') as f:
    f.write(full.encode())
write('zero_bytes.json', b'')
write('whitespace_only.json', ' \n\t\n')
os.makedirs(os.path.join(HERE, 'not_traces'), exist_ok=True)
write('not_traces/readme.txt', 'not a trace\n')
write('not_traces/data.csv', 'a,b\n1,2\n')
