#!/usr/bin/python3
"""Where a load's time goes, from `perf record -g` of one process: every sample put in one bucket by its stack.

  XDG_CACHE_HOME=$(mktemp -d) perf record -g -o /tmp/p.data build/release/app/strobe-cli summary FILE
  perf script -i /tmp/p.data | /usr/bin/python3 bench/perf_breakdown.py

Buckets, first match wins: the load cache's write (a write syscall or the column checksums), page faults (the kernel
zeroing and mapping fresh memory: columns, the cache file's pages), process teardown (munmap, exit), then by the
sampled function: SQLite's decoding, the CSV scan and number parsing, string interning, the merge (links, order,
nesting), the summary and its output, the readers' own row code (values into columns), other kernel and other.
User-space stacks are not unwound (no frame pointers), so the user buckets go by the sampled function alone.
Issue 20 (bench/README.md "Readers at their floor — where the time goes").
"""
import collections
import re
import sys

# perf script output: sample header line, then stack frames "\t addr sym (dso)", blank line between samples
groups = collections.Counter(); total = 0
def classify(frames):
    syms = [f[1] for f in frames]
    leaf = syms[0] if syms else '?'; dso = frames[0][2] if frames else ''
    if any('ksys_write' in s or 'Hasher' in s or 'writeEntry' in s for s in syms): return 'cache write (hash + write)'
    if any('exc_page_fault' in s or 'do_anonymous_page' in s for s in syms) or leaf in ('clear_page_erms',): return 'page faults (fresh memory)'
    if any('munmap' in s or 'exit_mmap' in s or 'do_exit' in s for s in syms): return 'teardown (munmap, exit)'
    if 'sqlite' in dso or leaf.startswith('sqlite3'): return 'SQLite decoding'
    if re.search(r'CsvReader|csvFind|csvSeparator', leaf): return 'CSV scan + number parse'
    if re.search(r'StringPool|_Hashtable|intern', leaf, re.I): return 'interning'
    if re.search(r'linkBy|orderByTrack|mergeRank|attach|classify|Classif|annotat|Step|nest|Nest|depth|byTrack|AnnotationIndex|fillLaunched|sort|introsort|insertion', leaf): return 'merge (links, order, nesting)'
    if re.search(r'summar|Summary|fmt::|format', leaf): return 'summary + output'
    if re.search(r'push_back|appendRaw|Column|reserve|addGpu|addSlice|RankBuilder|Loader|Reader|read[A-Z]|optInt|requireInt|text\(|memset|memcpy|memmove|Tracks|sqlrows|SqliteStatement|_M_fill|resize', leaf): return 'rows into columns (reader code)'
    if dso.startswith('[kernel'): return 'other kernel'
    return 'other'
frames = []
for line in sys.stdin:
    if not line.strip():
        if frames: groups[classify(frames)] += 1; total += 1
        frames = []; continue
    if line.startswith('\t') or line.startswith(' '):
        m = re.match(r'\s+([0-9a-f]+)\s+(.*?)\s+\((.*)\)\s*$', line)
        if m: frames.append((m.group(1), m.group(2), m.group(3)))
if frames: groups[classify(frames)] += 1; total += 1
for g, n in groups.most_common(): print(f"{g:40s} {100*n/total:5.1f}%")
